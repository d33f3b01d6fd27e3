package coind6

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Baud is the COIN-D6's fixed line rate: it streams at 230400 baud from power-on, with no command
// (chapter 14).
const Baud = 230_400

// Sizes of a packet.
const (
	HeaderLen  = 10
	SampleLen  = 3
	MaxSamples = 255
	// MaxDistMM is the largest distance the 14-bit encoding can carry.
	MaxDistMM = 1<<14 - 1
)

// Errors of Decode and Encode.
var (
	ErrShort    = errors.New("coind6: packet shorter than its header says")
	ErrHeader   = errors.New("coind6: no AA 55 header")
	ErrChecksum = errors.New("coind6: bad checksum")
	ErrRange    = errors.New("coind6: value out of range")
)

func w16(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[i:]) }

// Checksum computes the packet checksum over pkt (header and samples; the CS field itself is not included).
// pkt must hold at least HeaderLen + 3*pkt[3] bytes.
func Checksum(pkt []byte) uint16 {
	n := int(pkt[3])
	x := w16(pkt, 0) ^ w16(pkt, 2) ^ w16(pkt, 4) ^ w16(pkt, 6)
	for k := range n {
		o := HeaderLen + SampleLen*k
		x ^= uint16(pkt[o])
		x ^= w16(pkt, o+1)
	}
	return x
}

// RawToDeg converts an FSA/LSA word to degrees: (u >> 1) / 64.
func RawToDeg(u uint16) float64 { return float64(u>>1) / 64 }

// DegToRaw converts degrees (wrapped into [0, 360)) to an FSA/LSA word with bit 0 set, as the LiDAR sends.
func DegToRaw(deg float64) uint16 {
	deg = math.Mod(deg, 360)
	if deg < 0 {
		deg += 360
	}
	v := uint16(math.Round(deg*64)) % (360 * 64)
	return v<<1 | 1
}

// Sample is one measurement: intensity, distance in millimetres (0 = no return) and the 2 unknown low bits of S1.
type Sample struct {
	Intensity uint8
	DistMM    uint16
	Flags     uint8
}

// Packet is one decoded packet.
type Packet struct {
	CT       uint8
	FSA, LSA uint16
	Samples  []Sample
}

// RingStart reports whether this packet starts a new revolution.
func (p Packet) RingStart() bool { return p.CT&1 != 0 }

// Size returns the encoded size of the packet in bytes.
func (p Packet) Size() int { return HeaderLen + SampleLen*len(p.Samples) }

// Decode decodes one whole packet, checking its header, length and checksum. The samples are a new slice.
func Decode(pkt []byte) (Packet, error) {
	return DecodeInto(pkt, nil)
}

// DecodeInto is Decode reusing buf for the samples (no allocation when buf has room).
func DecodeInto(pkt []byte, buf []Sample) (Packet, error) {
	if len(pkt) < HeaderLen {
		return Packet{}, fmt.Errorf("%w: %d bytes", ErrShort, len(pkt))
	}
	if pkt[0] != 0xAA || pkt[1] != 0x55 {
		return Packet{}, fmt.Errorf("%w: % x", ErrHeader, pkt[:2])
	}
	n := int(pkt[3])
	if len(pkt) != HeaderLen+SampleLen*n {
		return Packet{}, fmt.Errorf("%w: %d bytes for %d samples", ErrShort, len(pkt), n)
	}
	if got, want := Checksum(pkt), w16(pkt, 8); got != want {
		return Packet{}, fmt.Errorf("%w: computed %#04x, packet says %#04x", ErrChecksum, got, want)
	}
	p := Packet{CT: pkt[2], FSA: w16(pkt, 4), LSA: w16(pkt, 6), Samples: buf[:0]}
	for k := range n {
		o := HeaderLen + SampleLen*k
		s1, s2 := pkt[o+1], pkt[o+2]
		p.Samples = append(p.Samples, Sample{Intensity: pkt[o], DistMM: uint16(s2)<<6 | uint16(s1>>2), Flags: s1 & 3})
	}
	return p, nil
}

// AppendEncode appends the encoded packet (with its checksum) to dst.
func AppendEncode(dst []byte, p Packet) ([]byte, error) {
	if len(p.Samples) > MaxSamples {
		return dst, fmt.Errorf("%w: %d samples (max %d)", ErrRange, len(p.Samples), MaxSamples)
	}
	start := len(dst)
	dst = append(dst, 0xAA, 0x55, p.CT, byte(len(p.Samples)))
	dst = binary.LittleEndian.AppendUint16(dst, p.FSA)
	dst = binary.LittleEndian.AppendUint16(dst, p.LSA)
	dst = append(dst, 0, 0)
	for _, s := range p.Samples {
		if s.DistMM > MaxDistMM || s.Flags > 3 {
			return dst[:start], fmt.Errorf("%w: sample distance %d mm flags %d", ErrRange, s.DistMM, s.Flags)
		}
		dst = append(dst, s.Intensity, byte(s.DistMM&0x3F)<<2|s.Flags, byte(s.DistMM>>6))
	}
	binary.LittleEndian.PutUint16(dst[start+8:], Checksum(dst[start:]))
	return dst, nil
}

// Encode returns the encoded packet.
func Encode(p Packet) ([]byte, error) { return AppendEncode(make([]byte, 0, p.Size()), p) }

// Point is one sample with its angle: native degrees in [0, 360), clockwise.
type Point struct {
	AngleDeg  float64
	DistMM    uint16
	Intensity uint8
}

// AppendPoints appends the packet's samples as points. Angles are spaced evenly from FSA to LSA; the span is
// taken modulo 360, so a packet that crosses from 359 to 0 degrees is handled.
func (p Packet) AppendPoints(dst []Point) []Point {
	// The 15-bit words can say up to 511.98 degrees; wrap them first so the span is never negative.
	fsa, lsa := math.Mod(RawToDeg(p.FSA), 360), math.Mod(RawToDeg(p.LSA), 360)
	span := math.Mod(lsa-fsa+360, 360)
	n := len(p.Samples)
	for k, s := range p.Samples {
		a := fsa
		if n > 1 {
			a = math.Mod(fsa+span*float64(k)/float64(n-1), 360)
		}
		dst = append(dst, Point{AngleDeg: a, DistMM: s.DistMM, Intensity: s.Intensity})
	}
	return dst
}
