package coind6

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestChapter14NormalPacketFirstSample rebuilds the start of the normal packet printed in chapter 14
// (aa 55 | 00 | 19 | 49 16 | 03 21 | .. | 10 4e 01): FSA 44.5625 degrees, LSA 0x2103 = 66.015625 degrees,
// first sample intensity 0x10, distance (0x01 << 6) | (0x4e >> 2) = 83 mm with the unknown low bits 2: a
// self-return of the robot's own body (native 33-57 degrees at 51-88 mm, chapter 14 health table).
func TestChapter14NormalPacketFirstSample(t *testing.T) {
	p := Packet{FSA: 0x1649, LSA: 0x2103, Samples: make([]Sample, 25)}
	p.Samples[0] = Sample{Intensity: 0x10, DistMM: 83, Flags: 2}
	raw, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xaa, 0x55, 0x00, 0x19, 0x49, 0x16, 0x03, 0x21}; !bytes.Equal(raw[:8], want) {
		t.Fatalf("header % x, want % x", raw[:8], want)
	}
	if want := []byte{0x10, 0x4e, 0x01}; !bytes.Equal(raw[10:13], want) {
		t.Fatalf("first sample % x, want % x", raw[10:13], want)
	}
	if RawToDeg(p.LSA) != 66.015625 {
		t.Fatalf("LSA %v", RawToDeg(p.LSA))
	}
	pts := p.AppendPoints(nil)
	if pts[0].AngleDeg != 44.5625 || pts[24].AngleDeg != 66.015625 || pts[0].DistMM != 83 {
		t.Fatalf("points %+v .. %+v", pts[0], pts[24])
	}
}

func randPacket(rng *rand.Rand, n int) Packet {
	p := Packet{CT: uint8(rng.UintN(256)), FSA: uint16(rng.UintN(65536)), LSA: uint16(rng.UintN(65536))}
	for range n {
		p.Samples = append(p.Samples, Sample{Intensity: uint8(rng.UintN(256)), DistMM: uint16(rng.UintN(MaxDistMM + 1)), Flags: uint8(rng.UintN(4))})
	}
	return p
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 25, 254, 255} {
		for range 50 {
			p := randPacket(rng, n)
			raw, err := Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != p.Size() || Checksum(raw) != uint16(raw[8])|uint16(raw[9])<<8 {
				t.Fatalf("%d samples: %d bytes, checksum field does not verify", n, len(raw))
			}
			q, err := Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				q.Samples, p.Samples = nil, nil
			}
			if !reflect.DeepEqual(p, q) {
				t.Fatalf("round trip: %+v -> %+v", p, q)
			}
			buf := make([]Sample, 0, 300)
			if r, err := DecodeInto(raw, buf); err != nil || (n > 0 && &r.Samples[0] != &buf[:1][0]) {
				t.Fatalf("DecodeInto did not reuse the buffer (err %v)", err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	good, _ := Encode(Packet{FSA: DegToRaw(10), LSA: DegToRaw(20), Samples: make([]Sample, 3)})
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 1; return b }
	cases := []struct {
		name string
		pkt  []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"9 bytes", good[:9], ErrShort},
		{"one sample short", good[:len(good)-3], ErrShort},
		{"one byte long", append(bytes.Clone(good), 0), ErrShort},
		{"no header", flip(0), ErrHeader},
		{"bad 55", flip(1), ErrHeader},
		{"CT flipped", flip(2), ErrChecksum},
		{"FSA flipped", flip(4), ErrChecksum},
		{"checksum flipped", flip(9), ErrChecksum},
		{"sample flipped", flip(13), ErrChecksum},
	}
	for _, c := range cases {
		if _, err := Decode(c.pkt); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	dst := []byte{1, 2, 3}
	for _, p := range []Packet{
		{Samples: make([]Sample, 256)},
		{Samples: []Sample{{DistMM: MaxDistMM + 1}}},
		{Samples: []Sample{{}, {Flags: 4}}},
	} {
		out, err := AppendEncode(dst, p)
		if !errors.Is(err, ErrRange) || !bytes.Equal(out, dst) {
			t.Errorf("AppendEncode(%d samples): % x, %v; want dst unchanged and ErrRange", len(p.Samples), out, err)
		}
	}
	if _, err := Encode(Packet{Samples: []Sample{{DistMM: MaxDistMM, Flags: 3}}}); err != nil {
		t.Errorf("largest distance and flags: %v", err)
	}
}

func TestAngleConversions(t *testing.T) {
	for u := range 360 * 64 {
		raw := uint16(u)<<1 | 1
		if DegToRaw(RawToDeg(raw)) != raw {
			t.Fatalf("raw %#04x -> %v deg -> %#04x", raw, RawToDeg(raw), DegToRaw(RawToDeg(raw)))
		}
	}
	for _, c := range []struct{ deg, want float64 }{{360, 0}, {720.5, 0.5}, {-1, 359}, {-360.25, 359.75}, {359.999, 0}} {
		if got := RawToDeg(DegToRaw(c.deg)); got != c.want {
			t.Errorf("DegToRaw(%v) decodes to %v, want %v", c.deg, got, c.want)
		}
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_ = DegToRaw(v) // must not panic; the value is meaningless
	}
}

// increasingMod360 checks that the points' angles lie in [0, 360) and advance by the same step modulo 360,
// with the total advance below 360: what a packet sweeping FSA to LSA must decode to.
func increasingMod360(t *testing.T, pts []Point, wantFirst, wantLast float64) {
	t.Helper()
	for i, p := range pts {
		if !(p.AngleDeg >= 0 && p.AngleDeg < 360) {
			t.Fatalf("point %d at %v degrees, outside [0, 360)", i, p.AngleDeg)
		}
	}
	if pts[0].AngleDeg != wantFirst || math.Abs(pts[len(pts)-1].AngleDeg-wantLast) > 1e-9 {
		t.Fatalf("angles run %v .. %v, want %v .. %v", pts[0].AngleDeg, pts[len(pts)-1].AngleDeg, wantFirst, wantLast)
	}
	if len(pts) < 2 {
		return
	}
	step := math.Mod(pts[1].AngleDeg-pts[0].AngleDeg+360, 360)
	for i := 1; i < len(pts); i++ {
		d := math.Mod(pts[i].AngleDeg-pts[i-1].AngleDeg+360, 360)
		if math.Abs(d-step) > 1e-9 {
			t.Fatalf("step %d is %v degrees, first step %v: not evenly increasing", i, d, step)
		}
	}
	if step*float64(len(pts)-1) >= 360 {
		t.Fatalf("packet sweeps %v degrees", step*float64(len(pts)-1))
	}
}

// TestAppendPointsWrapsPast360: a packet from 355 to 5 degrees decodes to 355, 355.42, ... 359.58, 0, ... 5.
func TestAppendPointsWrapsPast360(t *testing.T) {
	p := Packet{FSA: DegToRaw(355), LSA: DegToRaw(5), Samples: make([]Sample, 25)}
	pts := p.AppendPoints(nil)
	increasingMod360(t, pts, 355, 5)
	if math.Abs(pts[12].AngleDeg-0) > 1e-9 {
		t.Fatalf("middle sample at %v, want 0", pts[12].AngleDeg)
	}
	// The synthetic stream's first packet of each turn wraps too.
	for _, tp := range synthRevolutions(t, 1, 3) {
		pts := tp.pkt.AppendPoints(nil)
		increasingMod360(t, pts, RawToDeg(tp.pkt.FSA), RawToDeg(tp.pkt.LSA))
	}
}

// TestAppendPointsRawAnglesBeyond360: the 15 bits of FSA/LSA can say up to 511.98 degrees. A packet with such
// a value (corrupted in a way the XOR checksum cannot see) must still decode to angles in [0, 360) that
// increase from FSA to LSA modulo 360. Before the fix a one-sample packet at raw 400 degrees decoded to 400,
// and FSA 500 with LSA 0 swept backwards from 140 to 0 degrees.
func TestAppendPointsRawAnglesBeyond360(t *testing.T) {
	raw := func(deg float64) uint16 { return uint16(math.Round(deg*64))<<1 | 1 } // no wrap, unlike DegToRaw
	one := Packet{CT: 1, FSA: raw(400), LSA: raw(400), Samples: make([]Sample, 1)}
	increasingMod360(t, one.AppendPoints(nil), 40, 40)
	back := Packet{FSA: raw(500), LSA: raw(0), Samples: make([]Sample, 25)}
	increasingMod360(t, back.AppendPoints(nil), 140, 0)
	both := Packet{FSA: raw(511), LSA: raw(370), Samples: make([]Sample, 25)}
	increasingMod360(t, both.AppendPoints(nil), 151, 10)
}
