package coind6

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// Run locally with, for example:
//
//	go test -run '^$' -fuzz '^FuzzCoinD6Parser$' -fuzztime 20s ./protocol/coind6
//
// Crashers land in testdata/fuzz/<FuzzName>/ and are replayed by every plain `go test`.

// checkPoints asserts what any decoded packet's points must satisfy: angles in [0, 360), evenly increasing
// modulo 360 over less than a full turn.
func checkPoints(t *testing.T, p Packet) {
	t.Helper()
	pts := p.AppendPoints(nil)
	if len(pts) != len(p.Samples) {
		t.Fatalf("%d points from %d samples", len(pts), len(p.Samples))
	}
	if len(pts) == 0 {
		return
	}
	first, last := math.Mod(RawToDeg(p.FSA), 360), math.Mod(RawToDeg(p.LSA), 360)
	if len(pts) == 1 {
		last = first // one sample sits at FSA; LSA says nothing
	}
	increasingMod360(t, pts, first, last)
}

// FuzzCoinD6Parser: the parser never panics; every packet it emits sits at the offset the byte accounting
// predicts, verifies its checksum there and decodes; two chunks split anywhere give the whole-buffer output;
// the output equals the reference model's; the assembler takes every packet without panicking.
func FuzzCoinD6Parser(f *testing.F) {
	f.Add(ringStart, uint(5))
	revs := synthRevolutions(f, 1, 1)
	var all []byte
	for i, p := range revs {
		all = append(all, p.raw...)
		if i < 4 {
			f.Add(p.raw, uint(i*7))
		}
	}
	f.Add(all, uint(700))
	f.Add(append([]byte{0xAA, 0x55}, all[:300]...), uint(2))
	f.Add(hostileLidarStream(f).data[:900], uint(450))

	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		var p Parser
		var pkts [][]byte
		var pktBytes uint64
		a := NewAssembler(DefaultScanConfig())
		now := t0
		p.Feed(data, func(pkt []byte) {
			off := pktBytes + p.Stats().SkippedBytes
			if off+uint64(len(pkt)) > uint64(len(data)) || !bytes.Equal(data[off:off+uint64(len(pkt))], pkt) {
				t.Fatalf("emitted % x is not the input at offset %d", pkt, off)
			}
			if len(pkt) < HeaderLen || Checksum(pkt) != uint16(pkt[8])|uint16(pkt[9])<<8 {
				t.Fatalf("emitted a packet whose checksum does not verify: % x", pkt)
			}
			dp, err := Decode(pkt)
			if err != nil {
				t.Fatalf("emitted packet does not decode: %v", err)
			}
			checkPoints(t, dp)
			now = now.Add(time.Millisecond)
			if s, ok := a.Add(dp, now); ok && (len(s.Ranges) != DefaultBins || s.ScanTime <= 0) {
				t.Fatalf("scan with %d bins, scan time %v", len(s.Ranges), s.ScanTime)
			}
			pkts = append(pkts, bytes.Clone(pkt))
			pktBytes += uint64(len(pkt))
		})
		got := result{Items: pkts, Stats: p.Stats(), Pending: p.Pending()}
		checkAccounting(t, len(data), got)

		two := feedChunks(data, streamtest.SplitAt(len(data), split))
		checkResult(t, "two chunks", two, got)

		ref, st, pend := refParse(data)
		checkResult(t, "reference model", got, result{Items: ref, Stats: st, Pending: pend})
	})
}

// FuzzCoinD6Decode: Decode never panics; a packet it accepts re-encodes to the same bytes (the unknown low
// bits of S1 included) and decodes to well-formed points. The fuzz input read as packet fields round trips
// Encode -> Parser -> Decode.
func FuzzCoinD6Decode(f *testing.F) {
	f.Add(ringStart, uint8(0xC9), uint16(0xb37b), uint16(0xb37b))
	for _, p := range synthRevolutions(f, 2, 1)[:3] {
		f.Add(p.raw, p.pkt.CT, p.pkt.FSA, p.pkt.LSA)
	}
	f.Add([]byte{0xAA, 0x55, 0x00, 0x00, 0, 0, 0, 0, 0xAA, 0x55}, uint8(1), uint16(0xFFFF), uint16(0)) // no samples

	f.Fuzz(func(t *testing.T, data []byte, ct uint8, fsa, lsa uint16) {
		if p, err := Decode(data); err == nil {
			again, err := Encode(p)
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("decoded %+v re-encodes to % x (%v), was % x", p, again, err, data)
			}
			checkPoints(t, p)
			a := NewAssembler(DefaultScanConfig())
			a.Add(Packet{CT: 1}, t0)
			a.Add(p, t0.Add(time.Millisecond))
			if s, ok := a.Add(Packet{CT: 1}, t0.Add(2*time.Millisecond)); !ok || s.Samples != len(p.Samples) {
				t.Fatalf("assembler: ok %v, %d samples, want %d", ok, s.Samples, len(p.Samples))
			}
		}

		// The same bytes as fields: three per sample.
		p := Packet{CT: ct, FSA: fsa, LSA: lsa}
		for i := 0; i+3 <= len(data) && len(p.Samples) < MaxSamples; i += 3 {
			p.Samples = append(p.Samples, Sample{Intensity: data[i], DistMM: (uint16(data[i+1]) | uint16(data[i+2])<<8) & MaxDistMM, Flags: data[i+1] & 3})
		}
		raw, err := Encode(p)
		if err != nil {
			t.Fatalf("Encode(%+v): %v", p, err)
		}
		var got []Packet
		var parser Parser
		parser.Feed(raw, func(pkt []byte) {
			q, err := Decode(pkt)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, q)
		})
		if len(got) != 1 {
			t.Fatalf("parser found %d packets in one encoded packet % x (stats %+v)", len(got), raw, parser.Stats())
		}
		if len(p.Samples) == 0 {
			got[0].Samples = nil
		}
		if !reflect.DeepEqual(got[0], p) {
			t.Fatalf("round trip %+v -> %+v", p, got[0])
		}
	})
}
