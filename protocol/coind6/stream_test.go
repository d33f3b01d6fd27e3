package coind6

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// This file builds realistic synthetic COIN-D6 streams (every packet made by Encode) with known ground truth,
// and holds a byte-at-a-time reference model of the chapter 14 parser rules.

// Revolution geometry measured on the robot (chapter 14): 10 revolutions per second, a revolution-start
// packet with one sample, then 16 packets of 25 samples: 401 samples per turn.
const (
	synthPeriod    = 100 * time.Millisecond
	synthPackets   = 16
	synthPerPacket = 25
	synthSamples   = 1 + synthPackets*synthPerPacket
	synthStep      = 360.0 / synthSamples
	ringStartCT    = 0xC9 // as captured: bit 0 set; bits 7:1 = 100, the scan rate in 0.1 Hz
)

// roomMM is the distance in mm seen at native angle deg from a point 0.6 m right of and 0.4 m behind the
// centre of a 4 m x 3 m room, before the sensor's own quirks.
func roomMM(deg float64) float64 {
	a := deg * math.Pi / 180
	dx, dy := math.Cos(a), math.Sin(a)
	x, y := 0.6, -0.4
	t := math.Inf(1)
	if dx > 0 {
		t = min(t, (2-x)/dx)
	} else if dx < 0 {
		t = min(t, (-2-x)/dx)
	}
	if dy > 0 {
		t = min(t, (1.5-y)/dy)
	} else if dy < 0 {
		t = min(t, (-1.5-y)/dy)
	}
	return t * 1000
}

// Sensor quirks measured on the robot (chapter 14 health table), in native degrees.
func inBlindSector(deg float64) bool { return deg >= 140 && deg <= 205 }
func inSelfReturn(deg float64) bool  { return deg >= 33 && deg <= 57 }

// timedPacket is a packet with its arrival time from the start of the stream and its bytes.
type timedPacket struct {
	at  time.Duration
	pkt Packet
	raw []byte
}

// synthRevolutions returns revs revolutions of packets. The start angle drifts a little each turn (the
// rotor is not locked to the packet clock) and starts just below 360, as in the captured ring-start packet
// at 358.95 degrees, so the first normal packet of every turn wraps past 360. Distances come from the room
// with 6 mm noise, no return (0) in the rear blind sector, 51..88 mm self-returns, and one sample per turn
// forced to the bytes AA 55 (intensity 0xAA, S1 0x55): the false header chapter 14 found in real data.
func synthRevolutions(t testing.TB, seed uint64, revs int) []timedPacket {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0xd6))
	var out []timedPacket
	for r := range revs {
		a0 := math.Mod(358.953125+0.37*float64(r), 360)
		sample := func(j int) (Sample, float64) {
			deg := math.Mod(a0+float64(j)*synthStep, 360)
			var d float64
			switch {
			case inBlindSector(deg):
				d = 0
			case inSelfReturn(deg):
				d = 51 + 37*rng.Float64()
			default:
				d = roomMM(deg) + 6*rng.NormFloat64()
			}
			if d > 8000 {
				d = 0
			}
			s := Sample{DistMM: uint16(math.Round(d)), Intensity: uint8(max(20, 230-d/30))}
			if s.DistMM == 0 {
				s.Intensity = 0
			}
			if j == 60+r && s.DistMM > 64 { // force S0 S1 = AA 55
				s.Intensity, s.Flags = 0xAA, 1
				s.DistMM = s.DistMM&^63 | 21
			}
			return s, deg
		}
		start := time.Duration(r) * synthPeriod
		s0, deg0 := sample(0)
		out = append(out, mkTimed(t, start, Packet{CT: ringStartCT, FSA: DegToRaw(deg0), LSA: DegToRaw(deg0), Samples: []Sample{s0}}))
		for m := range synthPackets {
			var p Packet
			var first, last float64
			for k := range synthPerPacket {
				s, deg := sample(1 + m*synthPerPacket + k)
				if k == 0 {
					first = deg
				}
				last = deg
				p.Samples = append(p.Samples, s)
			}
			p.FSA, p.LSA = DegToRaw(first), DegToRaw(last)
			at := start + time.Duration(m+1)*synthPeriod/(synthPackets+1)
			out = append(out, mkTimed(t, at, p))
		}
	}
	return out
}

func mkTimed(t testing.TB, at time.Duration, p Packet) timedPacket {
	t.Helper()
	raw, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return timedPacket{at, p, raw}
}

// synthStream is a byte stream with the packets a correct parser must emit from it.
type synthStream struct {
	data []byte
	pkts [][]byte
}

func (s *synthStream) add(raw []byte, emitted bool) {
	s.data = append(s.data, raw...)
	if emitted {
		s.pkts = append(s.pkts, bytes.Clone(raw))
	}
}

func cleanLidarStream(t testing.TB, revs int) synthStream {
	t.Helper()
	var s synthStream
	for _, p := range synthRevolutions(t, 1, revs) {
		s.add(p.raw, true)
	}
	return s
}

// falseHeaderAt returns the offset of the first AA 55 after the packet header, or -1.
func falseHeaderAt(raw []byte) int {
	k := bytes.Index(raw[2:], []byte{0xAA, 0x55})
	if k < 0 {
		return -1
	}
	return k + 2
}

// hostileLidarStream is six revolutions with every fault the parser must survive:
//   - the capture starts 30 bytes into a packet (as the chapter 14 capture did), then random garbage, a
//     lone AA, and AA 55 00 FF: a false header claiming 775 bytes, long enough to cover several real packets;
//   - packets with AA 55 inside their samples, intact (emitted, no bad checksum) and with the real header
//     damaged (the false header must be rejected and the real packets behind it emitted);
//   - a packet with a flipped sample bit and one with a flipped checksum byte (counted, never emitted);
//   - a packet cut short at the end of the capture (left pending).
func hostileLidarStream(t testing.TB) synthStream {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	revs := synthRevolutions(t, 2, 6)
	var s synthStream
	s.add(revs[1].raw[30:], false)
	garbage := make([]byte, 50)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	s.add(garbage, false)
	s.add([]byte{0xAA, 0x00, 0xAA, 0x55, 0x00, 0xFF}, false)
	damaged := 0
	for i, p := range revs[2:] {
		switch {
		case i == 40:
			bad := bytes.Clone(p.raw)
			bad[HeaderLen+4] ^= 0x08
			s.add(bad, false)
		case i == 50:
			bad := bytes.Clone(p.raw)
			bad[9] ^= 0x80
			s.add(bad, false)
		case i > 60 && damaged < 2 && falseHeaderAt(p.raw) > 0:
			bad := bytes.Clone(p.raw)
			bad[0] = 0xA0
			s.add(bad, false)
			damaged++
		default:
			s.add(p.raw, true)
		}
	}
	if damaged != 2 {
		t.Fatalf("only %d packets with a false header to damage", damaged)
	}
	s.add(revs[5].raw[:20], false)
	return s
}

// refParse applies the chapter 14 rules one position at a time to a whole buffer: find AA 55, wait for the
// whole packet, keep it if the checksum verifies, else drop the two header bytes. It returns the packets,
// the counts and the trailing bytes that could still become a packet.
func refParse(data []byte) (pkts [][]byte, st Stats, pending int) {
	i := 0
	for i < len(data) {
		switch {
		case data[i] != 0xAA:
			st.SkippedBytes++
			i++
			continue
		case i+1 == len(data):
			return pkts, st, len(data) - i
		case data[i+1] != 0x55:
			st.SkippedBytes++
			i++
			continue
		case i+HeaderLen > len(data):
			return pkts, st, len(data) - i
		}
		end := i + HeaderLen + SampleLen*int(data[i+3])
		if end > len(data) {
			return pkts, st, len(data) - i
		}
		if Checksum(data[i:end]) != uint16(data[i+8])|uint16(data[i+9])<<8 {
			st.BadChecksum++
			st.SkippedBytes += 2
			i += 2
			continue
		}
		st.Packets++
		pkts = append(pkts, data[i:end])
		i = end
	}
	return pkts, st, 0
}

// result is everything observable about one parse of a stream.
type result = streamtest.Result[[]byte, Stats]

func feedChunks(data []byte, next func() int) result {
	var p Parser
	var pkts [][]byte
	streamtest.Chunks(data, next, func(b []byte) { p.Feed(b, func(pkt []byte) { pkts = append(pkts, bytes.Clone(pkt)) }) })
	return result{Items: pkts, Stats: p.Stats(), Pending: p.Pending()}
}

func whole(data []byte) result { return feedChunks(data, func() int { return len(data) }) }

func samePkts(a, b [][]byte) bool { return firstDiff(a, b) == "" }

// firstDiff describes where two packet lists part, for failure messages ("" when they do not).
func firstDiff(got, want [][]byte) string {
	for i := range min(len(got), len(want)) {
		if !bytes.Equal(got[i], want[i]) {
			return fmt.Sprintf("packet %d: got % x, want % x", i, got[i][:min(16, len(got[i]))], want[i][:min(16, len(want[i]))])
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %d packets, want %d", len(got), len(want))
	}
	return ""
}

func checkResult(t *testing.T, name string, got, want result) {
	t.Helper()
	streamtest.CheckResult(t, name, got, want, firstDiff)
}

// checkAccounting asserts that every input byte is in exactly one place: an emitted packet, the skipped
// count or the pending tail.
func checkAccounting(t *testing.T, n int, r result) {
	t.Helper()
	streamtest.CheckAccounting(t, n, r.Items, func(p []byte) int { return len(p) }, r.Stats.SkippedBytes, r.Pending)
}
