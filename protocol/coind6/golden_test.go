package coind6

import (
	"bytes"
	"testing"
)

// The revolution-start packet worked through in chapter 14.
var ringStart = []byte{0xaa, 0x55, 0xc9, 0x01, 0x7b, 0xb3, 0x7b, 0xb3, 0x2c, 0x54, 0x4c, 0x03, 0x00}

func TestGoldenRingStart(t *testing.T) {
	if got := Checksum(ringStart); got != 0x542c {
		t.Fatalf("checksum %#04x, want 0x542c", got)
	}
	p, err := Decode(ringStart)
	if err != nil {
		t.Fatal(err)
	}
	if !p.RingStart() || len(p.Samples) != 1 {
		t.Fatalf("ring start %v, %d samples", p.RingStart(), len(p.Samples))
	}
	pts := p.AppendPoints(nil)
	if pts[0].AngleDeg != 358.953125 || pts[0].DistMM != 0 || pts[0].Intensity != 0x4c {
		t.Fatalf("point %+v, want 358.953125 deg, 0 mm, intensity 0x4c", pts[0])
	}
	enc, err := Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, ringStart) {
		t.Fatalf("re-encode % x, want % x", enc, ringStart)
	}
}

func TestGoldenFSA(t *testing.T) {
	if got := RawToDeg(0x1649); got != 44.5625 { // bytes 49 16
		t.Fatalf("FSA 49 16 = %v deg, want 44.5625", got)
	}
	if got := DegToRaw(44.5625); got != 0x1649 {
		t.Fatalf("DegToRaw(44.5625) = %#04x, want 0x1649", got)
	}
}
