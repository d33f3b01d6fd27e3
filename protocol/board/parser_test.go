package board

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// readAll feeds a Parser from r the way a serial reader does (streamtest.ReadAll).
func readAll(t *testing.T, r io.Reader, bufSize int) result {
	t.Helper()
	var p Parser
	var c collector
	streamtest.ReadAll(t, r, bufSize, func(b []byte) { p.Feed(b, c.emit) })
	return result{Items: c.frames, Stats: p.Stats(), Pending: p.Pending()}
}

func checkResult(t *testing.T, name string, got, want result) {
	t.Helper()
	streamtest.CheckResult(t, name, got, want, firstDiff)
}

// checkAccounting asserts that every input byte is in exactly one place: an emitted frame, the skipped count
// or the pending tail.
func checkAccounting(t *testing.T, n int, r result) {
	t.Helper()
	streamtest.CheckAccounting(t, n, r.Items, func(f Frame) int { return len(f.Payload) + Overhead }, r.Stats.SkippedBytes, r.Pending)
}

func TestParserHostileStreamGroundTruth(t *testing.T) {
	s := hostileBoardStream(t)
	got := whole(s.data)
	if !sameFrames(got.Items, s.frames) {
		t.Fatalf("frames differ from the frames put into the stream: %s", firstDiff(got.Items, s.frames))
	}
	if got.Stats.Frames != uint64(len(s.frames)) {
		t.Errorf("Stats.Frames = %d, %d emitted", got.Stats.Frames, len(s.frames))
	}
	// At least: 3 false headers behind damaged headers, a flipped payload bit, a flipped CRC.
	if got.Stats.BadChecksum < 5 {
		t.Errorf("BadChecksum = %d, want >= 5", got.Stats.BadChecksum)
	}
	// At least: AA 55 0C and AA 55 FF in the leading garbage, and the whole unknown-function frame.
	if got.Stats.UnknownFunc < 3 {
		t.Errorf("UnknownFunc = %d, want >= 3", got.Stats.UnknownFunc)
	}
	if got.Pending != 10 {
		t.Errorf("pending %d bytes, want the 10 bytes of the cut-off frame", got.Pending)
	}
	checkAccounting(t, len(s.data), got)

	ref, refStats, refPending := refParse(s.data)
	checkResult(t, "reference model", got, result{Items: ref, Stats: refStats, Pending: refPending})
	t.Logf("%d bytes: %+v, %d pending", len(s.data), got.Stats, got.Pending)
}

func TestParserCleanStream(t *testing.T) {
	s := cleanBoardStream(t, 3*time.Second)
	got := whole(s.data)
	if !sameFrames(got.Items, s.frames) {
		t.Fatal(firstDiff(got.Items, s.frames))
	}
	if want := (Stats{Frames: uint64(len(s.frames))}); got.Stats != want || got.Pending != 0 {
		t.Fatalf("clean stream: stats %+v pending %d, want %+v and 0", got.Stats, got.Pending, want)
	}
}

// TestParserChunkingIndependent feeds the hostile stream through every hostile reader and chunking and
// demands the whole-buffer result each time: same frames, same counters, same pending tail.
func TestParserChunkingIndependent(t *testing.T) {
	s := hostileBoardStream(t)
	want := whole(s.data)
	// buf28 is one byte short of an IMU frame.
	cases := streamtest.Cases(s.data, []int{1, 2, 3, 28, 29, 64, 259}, []int{3, 40, 300}, 512)
	for _, c := range cases {
		checkResult(t, c.Name, readAll(t, c.Reader(), c.Buf), want)
	}
}

// TestParserZeroByteFeeds interleaves empty and nil chunks with one-byte chunks.
func TestParserZeroByteFeeds(t *testing.T) {
	s := hostileBoardStream(t)
	want := whole(s.data)
	var p Parser
	var c collector
	streamtest.ZeroByteFeeds(s.data, func(b []byte) { p.Feed(b, c.emit) })
	checkResult(t, "zero-byte feeds", result{Items: c.frames, Stats: p.Stats(), Pending: p.Pending()}, want)
}

// TestParserFalseHeaderDoesNotSwallow puts each frame with AA 55 inside its payload in front of five real
// frames, more bytes than the false header claims: intact, it is emitted with no bad checksum; with its real
// header damaged, the false header is rejected by its CRC and every real frame behind it is still emitted.
func TestParserFalseHeaderDoesNotSwallow(t *testing.T) {
	frames, falseAt := aa55Frames(t)
	behind := [][]byte{EncodeBattery(Battery{7400}), EncodeKey(Key{2, KeyPressed})}
	for i := range 3 {
		behind = append(behind, EncodeIMU(IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{float32(i), 0, 0}}))
	}
	for i, f := range frames {
		name := FuncName(f[2])
		intact := append(bytes.Clone(f), bytes.Join(behind, nil)...)
		for _, r := range []result{whole(intact), feedChunks(intact, func() int { return 1 })} {
			if len(r.Items) != 1+len(behind) || r.Stats.BadChecksum != 0 || r.Stats.SkippedBytes != 0 {
				t.Errorf("%s intact: %d frames, stats %+v; want %d frames, no bad checksum, nothing skipped", name, len(r.Items), r.Stats, 1+len(behind))
			}
		}
		damaged := bytes.Clone(intact)
		damaged[0] = 0x00
		for _, r := range []result{whole(damaged), feedChunks(damaged, func() int { return 1 })} {
			if len(r.Items) != len(behind) || !bytes.Equal(r.Items[0].Payload, behind[0][4:len(behind[0])-1]) {
				t.Errorf("%s with damaged header: got %d frames %v, want the %d real frames behind it", name, len(r.Items), r.Items, len(behind))
			}
			if r.Stats.BadChecksum != 1 {
				t.Errorf("%s with damaged header: BadChecksum %d, want 1 (the false header at byte %d)", name, r.Stats.BadChecksum, falseAt[i])
			}
			if r.Stats.SkippedBytes != uint64(len(f)) {
				t.Errorf("%s with damaged header: skipped %d bytes, want the %d of the damaged frame", name, r.Stats.SkippedBytes, len(f))
			}
		}
	}
}

// TestParserCorruptedNeverEmitted flips every bit of the function, payload and CRC bytes of a frame that sits
// between two good ones. CRC-8 detects every single-bit error, so each corrupted frame must be counted and
// never emitted, and both neighbours must survive. (A flipped length byte moves the CRC to another byte and
// is caught only with probability 255/256, a limit of the protocol, so it is not part of this test.)
func TestParserCorruptedNeverEmitted(t *testing.T) {
	before, after := EncodeBattery(Battery{7390}), EncodeKey(Key{1, KeyLongPress})
	victims := [][]byte{
		EncodeIMU(IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{1, 2, 3}}),
		StopFrame(),
		EncodeGamepad(Gamepad{Buttons: BtnCross, LX: -128}),
	}
	for _, v := range victims {
		for pos := 2; pos < len(v); pos++ {
			if pos == 3 {
				continue
			}
			for bit := range 8 {
				bad := bytes.Clone(v)
				bad[pos] ^= 1 << bit
				data := bytes.Join([][]byte{before, bad, after}, nil)
				r := whole(data)
				if len(r.Items) != 2 || r.Items[0].Func != FuncSys || r.Items[1].Func != FuncKey {
					t.Fatalf("%s byte %d bit %d flipped: frames %v, want only the two good neighbours", FuncName(v[2]), pos, bit, r.Items)
				}
				if r.Stats.BadChecksum+r.Stats.UnknownFunc != 1 {
					t.Fatalf("%s byte %d bit %d flipped: stats %+v, want exactly one bad checksum or unknown function", FuncName(v[2]), pos, bit, r.Stats)
				}
				if r.Stats.SkippedBytes != uint64(len(v)) {
					t.Fatalf("%s byte %d bit %d flipped: skipped %d, want %d", FuncName(v[2]), pos, bit, r.Stats.SkippedBytes, len(v))
				}
			}
		}
	}
}

func TestParserLeadingGarbage(t *testing.T) {
	frame := EncodeBattery(Battery{7400})
	for _, garbage := range [][]byte{
		{0x00},
		{0x55, 0x55, 0x55},
		{0xAA},                   // lone AA before the real AA 55
		{0xAA, 0xAA, 0xAA},       // several
		{0xAA, 0x55, 0x0C},       // unknown function 12
		{0x12, 0xAA, 0x00, 0xAA}, // AA not followed by 55
		bytes.Repeat([]byte{0x42}, 1000),
	} {
		data := append(bytes.Clone(garbage), frame...)
		for _, r := range []result{whole(data), feedChunks(data, func() int { return 1 })} {
			if len(r.Items) != 1 || r.Stats.SkippedBytes != uint64(len(garbage)) || r.Pending != 0 {
				t.Errorf("garbage % x: %d frames, stats %+v, pending %d; want 1 frame and %d skipped", garbage[:min(8, len(garbage))], len(r.Items), r.Stats, r.Pending, len(garbage))
			}
		}
	}
}

// TestParserPendingAndReset: a frame cut short stays pending (neither skipped nor counted) until its last
// byte arrives; Reset drops it and keeps the counters.
func TestParserPendingAndReset(t *testing.T) {
	f := EncodeBattery(Battery{7400})
	var p Parser
	var c collector
	p.Feed(EncodeKey(Key{1, 1}), c.emit)
	for i := range len(f) - 1 {
		p.Feed(f[i:i+1], c.emit)
		if p.Pending() != i+1 || len(c.frames) != 1 || p.Stats().SkippedBytes != 0 {
			t.Fatalf("after %d bytes of a frame: pending %d, %d frames, stats %+v", i+1, p.Pending(), len(c.frames), p.Stats())
		}
	}
	p.Reset()
	if p.Pending() != 0 || p.Stats().Frames != 1 {
		t.Fatalf("after Reset: pending %d, stats %+v; want 0 pending and the counters kept", p.Pending(), p.Stats())
	}
	p.Feed(f[len(f)-1:], c.emit) // the lost frame's last byte is garbage now
	p.Feed(f, c.emit)
	if len(c.frames) != 2 || p.Stats().SkippedBytes != 1 {
		t.Fatalf("after Reset and a new frame: %d frames, stats %+v", len(c.frames), p.Stats())
	}
}

// TestParserMatchesReferenceOnRandomStreams mixes real frames with random bytes and false headers and checks
// the parser, fed in random chunks, against the reference model.
func TestParserMatchesReferenceOnRandomStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	pieces := [][]byte{StopFrame(), EncodeBattery(Battery{7000}), EncodeKey(Key{1, 2}),
		{0xAA}, {0xAA, 0x55}, {0xAA, 0x55, 0x07}, {0xAA, 0x55, 0x07, 0x18}, {0xAA, 0x55, 0xFE}, {0xAA, 0x55, 0x00, 0x00, 0x00}}
	pieces = append(pieces, synthBoardRaw(t, 300*time.Millisecond)...)
	for iter := range 200 {
		var data []byte
		for range 1 + rng.IntN(60) {
			if rng.IntN(4) == 0 {
				for range rng.IntN(6) {
					data = append(data, byte(rng.UintN(256)))
				}
			}
			data = append(data, pieces[rng.IntN(len(pieces))]...)
		}
		ref, st, pend := refParse(data)
		want := result{Items: ref, Stats: st, Pending: pend}
		got := feedChunks(data, func() int { return rng.IntN(40) })
		checkResult(t, fmt.Sprintf("random stream %d", iter), got, want)
		checkAccounting(t, len(data), got)
		if t.Failed() {
			t.Fatalf("stream % x", data)
		}
	}
}

func synthBoardRaw(t testing.TB, dur time.Duration) [][]byte {
	var out [][]byte
	for _, f := range synthBoard(t, 3, dur) {
		out = append(out, f.raw)
	}
	return out
}
