package coind6

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// readAll feeds a Parser from r the way a serial reader does (streamtest.ReadAll).
func readAll(t *testing.T, r io.Reader, bufSize int) result {
	t.Helper()
	var p Parser
	var pkts [][]byte
	streamtest.ReadAll(t, r, bufSize, func(b []byte) { p.Feed(b, func(pkt []byte) { pkts = append(pkts, bytes.Clone(pkt)) }) })
	return result{Items: pkts, Stats: p.Stats(), Pending: p.Pending()}
}

func TestParserHostileStreamGroundTruth(t *testing.T) {
	s := hostileLidarStream(t)
	got := whole(s.data)
	if !samePkts(got.Items, s.pkts) {
		t.Fatalf("packets differ from those put into the stream: %s", firstDiff(got.Items, s.pkts))
	}
	for _, p := range got.Items {
		if _, err := Decode(p); err != nil {
			t.Fatalf("emitted packet does not decode: %v", err)
		}
	}
	// At least: AA 55 00 FF in the garbage, 2 false headers behind damaged headers, a flipped sample bit,
	// a flipped checksum byte.
	if got.Stats.BadChecksum < 5 {
		t.Errorf("BadChecksum = %d, want >= 5", got.Stats.BadChecksum)
	}
	if got.Pending != 20 {
		t.Errorf("pending %d bytes, want the 20 bytes of the cut-off packet", got.Pending)
	}
	checkAccounting(t, len(s.data), got)
	ref, st, pend := refParse(s.data)
	checkResult(t, "reference model", got, result{Items: ref, Stats: st, Pending: pend})
	t.Logf("%d bytes: %+v, %d pending", len(s.data), got.Stats, got.Pending)
}

func TestParserCleanStream(t *testing.T) {
	s := cleanLidarStream(t, 10)
	got := whole(s.data)
	if !samePkts(got.Items, s.pkts) {
		t.Fatal(firstDiff(got.Items, s.pkts))
	}
	if want := (Stats{Packets: uint64(len(s.pkts))}); got.Stats != want || got.Pending != 0 {
		t.Fatalf("clean stream: stats %+v pending %d, want %+v and 0", got.Stats, got.Pending, want)
	}
	if len(s.pkts) != 10*17 || len(s.data) < 13000 || len(s.data) > 14500 {
		t.Fatalf("one second of LiDAR is %d packets in %d bytes; the robot sends 170 packets in about 13.7 KB", len(s.pkts), len(s.data))
	}
	falseHeaders := 0
	for _, p := range s.pkts {
		if falseHeaderAt(p) > 0 {
			falseHeaders++
		}
	}
	if falseHeaders == 0 {
		t.Fatal("the clean stream has no AA 55 inside a packet: it would not test anything")
	}
}

func TestParserChunkingIndependent(t *testing.T) {
	s := hostileLidarStream(t)
	want := whole(s.data)
	cases := streamtest.Cases(s.data, []int{1, 2, 9, 10, 84, 85, 64, 775}, []int{3, 90, 1000}, 1024)
	for _, c := range cases {
		checkResult(t, c.Name, readAll(t, c.Reader(), c.Buf), want)
	}
}

func TestParserZeroByteFeeds(t *testing.T) {
	s := hostileLidarStream(t)
	want := whole(s.data)
	var p Parser
	var pkts [][]byte
	emit := func(pkt []byte) { pkts = append(pkts, bytes.Clone(pkt)) }
	streamtest.ZeroByteFeeds(s.data, func(b []byte) { p.Feed(b, emit) })
	checkResult(t, "zero-byte feeds", result{Items: pkts, Stats: p.Stats(), Pending: p.Pending()}, want)
}

// TestParserFalseHeaderDoesNotSwallow damages the real header of a packet whose samples contain AA 55 and
// whose false header claims more bytes than the packet has left: the false header is rejected and every real
// packet behind it is emitted, as chapter 14's "resync by 2" demands.
func TestParserFalseHeaderDoesNotSwallow(t *testing.T) {
	revs := synthRevolutions(t, 3, 10)
	tested := 0
	for i, p := range revs[:len(revs)-12] {
		k := falseHeaderAt(p.raw)
		if k < 0 {
			continue
		}
		var rest []byte
		for _, q := range revs[i+1 : i+12] {
			rest = append(rest, q.raw...)
		}
		intact := append(bytes.Clone(p.raw), rest...)
		claimed := HeaderLen + SampleLen*int(intact[k+3])
		if k+claimed <= len(p.raw) || k+claimed > len(intact) {
			continue // the false header must overlap the next packet and be decidable within the stream
		}
		tested++
		for _, r := range []result{whole(intact), feedChunks(intact, func() int { return 1 })} {
			if len(r.Items) != 12 || r.Stats.BadChecksum != 0 {
				t.Errorf("intact packet with AA 55 at byte %d: %d packets, stats %+v; want 12, no bad checksum", k, len(r.Items), r.Stats)
			}
		}
		damaged := bytes.Clone(intact)
		damaged[0] = 0x00
		for _, r := range []result{whole(damaged), feedChunks(damaged, func() int { return 1 })} {
			if len(r.Items) != 11 || !bytes.Equal(r.Items[0], revs[i+1].raw) {
				t.Errorf("damaged header, false AA 55 at byte %d claiming %d bytes: %d packets, want the 11 behind it", k, claimed, len(r.Items))
			}
			if r.Stats.BadChecksum != 1 || r.Stats.SkippedBytes != uint64(len(p.raw)) {
				t.Errorf("damaged header: stats %+v, want 1 bad checksum and the %d bytes of the damaged packet skipped", r.Stats, len(p.raw))
			}
		}
	}
	if tested < 2 {
		t.Fatalf("only %d packets with a usable false header; the synthetic stream changed", tested)
	}
}

// TestParserResyncByTwo: AA 55 directly in front of a real packet makes a candidate whose CT and LSN are the
// real packet's AA 55; after its checksum fails the parser drops exactly two bytes and finds the real one.
func TestParserResyncByTwo(t *testing.T) {
	revs := synthRevolutions(t, 4, 1)
	var tail []byte
	for _, p := range revs[1:] {
		tail = append(tail, p.raw...)
	}
	data := append([]byte{0xAA, 0x55}, tail...)
	r := whole(data)
	if len(r.Items) != len(revs)-1 || r.Stats.BadChecksum != 1 || r.Stats.SkippedBytes != 2 {
		t.Fatalf("%d packets, stats %+v; want %d packets, 1 bad checksum, 2 bytes skipped", len(r.Items), r.Stats, len(revs)-1)
	}
}

// TestParserCorruptedNeverEmitted flips every bit of CT, the angles, the checksum and the samples of a packet
// between two good ones. The XOR checksum changes with any single-bit flip, so each must be counted and never
// emitted. (A flipped LSN reframes the packet: not a single-bit error of the checksummed words.)
func TestParserCorruptedNeverEmitted(t *testing.T) {
	revs := synthRevolutions(t, 5, 1)
	before, victim, after := revs[0].raw, revs[1].raw, revs[2].raw
	var behind []byte
	for _, p := range revs[3:] {
		behind = append(behind, p.raw...) // room for a reframed candidate to be decided
	}
	for pos := 2; pos < len(victim); pos++ {
		if pos == 3 {
			continue
		}
		for bit := range 8 {
			bad := bytes.Clone(victim)
			bad[pos] ^= 1 << bit
			data := bytes.Join([][]byte{before, bad, after, behind}, nil)
			r := whole(data)
			if len(r.Items) != len(revs)-1 || !bytes.Equal(r.Items[0], before) || !bytes.Equal(r.Items[1], after) {
				t.Fatalf("byte %d bit %d flipped: %d packets, want the %d good ones", pos, bit, len(r.Items), len(revs)-1)
			}
			if r.Stats.BadChecksum < 1 {
				t.Fatalf("byte %d bit %d flipped: stats %+v, want the bad checksum counted", pos, bit, r.Stats)
			}
		}
	}
}

func TestParserLeadingGarbage(t *testing.T) {
	pkt := synthRevolutions(t, 6, 1)[3].raw
	for _, garbage := range [][]byte{
		{0x00}, {0x55, 0x55}, {0xAA}, {0xAA, 0xAA, 0xAA}, {0x12, 0xAA, 0x00, 0xAA},
		bytes.Repeat([]byte{0x42}, 1000),
	} {
		data := append(bytes.Clone(garbage), pkt...)
		for _, r := range []result{whole(data), feedChunks(data, func() int { return 1 })} {
			if len(r.Items) != 1 || r.Stats.SkippedBytes != uint64(len(garbage)) || r.Pending != 0 || r.Stats.BadChecksum != 0 {
				t.Errorf("garbage % x: %d packets, stats %+v, pending %d", garbage[:min(8, len(garbage))], len(r.Items), r.Stats, r.Pending)
			}
		}
	}
}

func TestParserPendingAndReset(t *testing.T) {
	pkt := synthRevolutions(t, 7, 1)[1].raw
	var p Parser
	n := 0
	emit := func([]byte) { n++ }
	for i := range len(pkt) - 1 {
		p.Feed(pkt[i:i+1], emit)
		if p.Pending() != i+1 || n != 0 || p.Stats().SkippedBytes != 0 {
			t.Fatalf("after %d bytes of a packet: pending %d, %d packets, stats %+v", i+1, p.Pending(), n, p.Stats())
		}
	}
	p.Reset()
	if p.Pending() != 0 {
		t.Fatalf("pending %d after Reset", p.Pending())
	}
	p.Feed(pkt, emit)
	if n != 1 || p.Stats().Packets != 1 {
		t.Fatalf("after Reset and a whole packet: %d packets, stats %+v", n, p.Stats())
	}
}

func TestParserMatchesReferenceOnRandomStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	var pieces [][]byte
	for _, p := range synthRevolutions(t, 8, 2) {
		pieces = append(pieces, p.raw)
	}
	pieces = append(pieces, []byte{0xAA}, []byte{0xAA, 0x55}, []byte{0xAA, 0x55, 0x00, 0x02}, ringStart, []byte{0xAA, 0x55, 0x01, 0x00, 0, 0, 0, 0, 0, 0})
	for iter := range 200 {
		var data []byte
		for range 1 + rng.IntN(40) {
			if rng.IntN(4) == 0 {
				for range rng.IntN(6) {
					data = append(data, byte(rng.UintN(256)))
				}
			}
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(8) == 0 {
				p = bytes.Clone(p)
				p[rng.IntN(len(p))] ^= byte(1 << rng.IntN(8))
			}
			data = append(data, p...)
		}
		ref, st, pend := refParse(data)
		got := feedChunks(data, func() int { return rng.IntN(120) })
		checkResult(t, fmt.Sprintf("random stream %d", iter), got, result{Items: ref, Stats: st, Pending: pend})
		checkAccounting(t, len(data), got)
		if t.Failed() {
			t.FailNow()
		}
	}
}
