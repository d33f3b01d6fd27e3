package board

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"
)

// readAll feeds p from r through one reused read buffer of size bufSize, the way a serial reader does.
// Reusing the buffer is deliberate: a parser that kept pointers into a previous chunk instead of copying its
// unfinished tail would see those bytes overwritten by the next read. Timeouts are transient (a serial port
// with VTIME returns them); any other error ends the read.
func readAll(t *testing.T, r io.Reader, bufSize int) result {
	t.Helper()
	var p Parser
	var c collector
	buf := make([]byte, bufSize)
	for zeros := 0; ; {
		n, err := r.Read(buf)
		p.Feed(buf[:n], c.emit)
		clear(buf[:n]) // scribble over the chunk: nothing may still point into it
		switch {
		case errors.Is(err, io.EOF):
			return result{c.frames, p.Stats(), p.Pending()}
		case errors.Is(err, iotest.ErrTimeout):
		case err != nil:
			t.Fatalf("read: %v", err)
		case n == 0:
			if zeros++; zeros > 1000 {
				t.Fatal("reader makes no progress")
			}
		default:
			zeros = 0
		}
	}
}

// chunkReader returns chunks of random size between 0 and max (zero-byte reads included) from a seeded RNG.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (r *chunkReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(int(r.rng.IntN(r.max+1)), len(b), len(r.data))
	copy(b, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

func checkResult(t *testing.T, name string, got, want result) {
	t.Helper()
	if !sameFrames(got.frames, want.frames) {
		t.Errorf("%s: frames differ from the whole-buffer feed: %s", name, firstDiff(got.frames, want.frames))
	}
	if got.stats != want.stats {
		t.Errorf("%s: stats %+v, whole-buffer feed %+v", name, got.stats, want.stats)
	}
	if got.pending != want.pending {
		t.Errorf("%s: %d bytes pending, whole-buffer feed %d", name, got.pending, want.pending)
	}
}

// checkAccounting asserts that every input byte is in exactly one place: an emitted frame, the skipped count
// or the pending tail.
func checkAccounting(t *testing.T, n int, r result) {
	t.Helper()
	var fb uint64
	for _, f := range r.frames {
		fb += uint64(len(f.Payload) + Overhead)
	}
	if fb+r.stats.SkippedBytes+uint64(r.pending) != uint64(n) {
		t.Errorf("%d frame bytes + %d skipped + %d pending != %d input bytes", fb, r.stats.SkippedBytes, r.pending, n)
	}
}

func TestParserHostileStreamGroundTruth(t *testing.T) {
	s := hostileBoardStream(t)
	got := whole(s.data)
	if !sameFrames(got.frames, s.frames) {
		t.Fatalf("frames differ from the frames put into the stream: %s", firstDiff(got.frames, s.frames))
	}
	if got.stats.Frames != uint64(len(s.frames)) {
		t.Errorf("Stats.Frames = %d, %d emitted", got.stats.Frames, len(s.frames))
	}
	// At least: 3 false headers behind damaged headers, a flipped payload bit, a flipped CRC.
	if got.stats.BadChecksum < 5 {
		t.Errorf("BadChecksum = %d, want >= 5", got.stats.BadChecksum)
	}
	// At least: AA 55 0C and AA 55 FF in the leading garbage, and the whole unknown-function frame.
	if got.stats.UnknownFunc < 3 {
		t.Errorf("UnknownFunc = %d, want >= 3", got.stats.UnknownFunc)
	}
	if got.pending != 10 {
		t.Errorf("pending %d bytes, want the 10 bytes of the cut-off frame", got.pending)
	}
	checkAccounting(t, len(s.data), got)

	ref, refStats, refPending := refParse(s.data)
	checkResult(t, "reference model", got, result{ref, refStats, refPending})
	t.Logf("%d bytes: %+v, %d pending", len(s.data), got.stats, got.pending)
}

func TestParserCleanStream(t *testing.T) {
	s := cleanBoardStream(t, 3*time.Second)
	got := whole(s.data)
	if !sameFrames(got.frames, s.frames) {
		t.Fatal(firstDiff(got.frames, s.frames))
	}
	if want := (Stats{Frames: uint64(len(s.frames))}); got.stats != want || got.pending != 0 {
		t.Fatalf("clean stream: stats %+v pending %d, want %+v and 0", got.stats, got.pending, want)
	}
}

// TestParserChunkingIndependent feeds the hostile stream through every hostile reader and chunking and
// demands the whole-buffer result each time: same frames, same counters, same pending tail.
func TestParserChunkingIndependent(t *testing.T) {
	s := hostileBoardStream(t)
	want := whole(s.data)
	rd := func() io.Reader { return bytes.NewReader(s.data) }
	cases := []struct {
		name string
		r    func() io.Reader
		buf  int
	}{
		{"OneByteReader", func() io.Reader { return iotest.OneByteReader(rd()) }, 64},
		{"HalfReader/61", func() io.Reader { return iotest.HalfReader(rd()) }, 61},
		{"HalfReader/4096", func() io.Reader { return iotest.HalfReader(rd()) }, 4096},
		{"DataErrReader", func() io.Reader { return iotest.DataErrReader(rd()) }, 100},
		{"DataErrReader/OneByte", func() io.Reader { return iotest.DataErrReader(iotest.OneByteReader(rd())) }, 100},
		{"TimeoutReader", func() io.Reader { return iotest.TimeoutReader(rd()) }, 33},
		{"buf1", rd, 1},
		{"buf2", rd, 2},
		{"buf3", rd, 3},
		{"buf28", rd, 28}, // one byte short of an IMU frame
		{"buf29", rd, 29},
		{"buf64", rd, 64},
		{"buf259", rd, 259},
	}
	for seed := range uint64(8) {
		for _, max := range []int{3, 40, 300} {
			cases = append(cases, struct {
				name string
				r    func() io.Reader
				buf  int
			}{fmt.Sprintf("random/seed%d/max%d", seed, max),
				func() io.Reader { return &chunkReader{s.data, rand.New(rand.NewPCG(seed, 1)), max} }, 512})
		}
	}
	for _, c := range cases {
		checkResult(t, c.name, readAll(t, c.r(), c.buf), want)
	}
}

// TestParserZeroByteFeeds interleaves empty and nil chunks with one-byte chunks.
func TestParserZeroByteFeeds(t *testing.T) {
	s := hostileBoardStream(t)
	want := whole(s.data)
	var p Parser
	var c collector
	for i := range s.data {
		p.Feed(nil, c.emit)
		p.Feed(s.data[i:i], c.emit)
		p.Feed(s.data[i:i+1], c.emit)
	}
	checkResult(t, "zero-byte feeds", result{c.frames, p.Stats(), p.Pending()}, want)
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
			if len(r.frames) != 1+len(behind) || r.stats.BadChecksum != 0 || r.stats.SkippedBytes != 0 {
				t.Errorf("%s intact: %d frames, stats %+v; want %d frames, no bad checksum, nothing skipped", name, len(r.frames), r.stats, 1+len(behind))
			}
		}
		damaged := bytes.Clone(intact)
		damaged[0] = 0x00
		for _, r := range []result{whole(damaged), feedChunks(damaged, func() int { return 1 })} {
			if len(r.frames) != len(behind) || !bytes.Equal(r.frames[0].Payload, behind[0][4:len(behind[0])-1]) {
				t.Errorf("%s with damaged header: got %d frames %v, want the %d real frames behind it", name, len(r.frames), r.frames, len(behind))
			}
			if r.stats.BadChecksum != 1 {
				t.Errorf("%s with damaged header: BadChecksum %d, want 1 (the false header at byte %d)", name, r.stats.BadChecksum, falseAt[i])
			}
			if r.stats.SkippedBytes != uint64(len(f)) {
				t.Errorf("%s with damaged header: skipped %d bytes, want the %d of the damaged frame", name, r.stats.SkippedBytes, len(f))
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
				if len(r.frames) != 2 || r.frames[0].Func != FuncSys || r.frames[1].Func != FuncKey {
					t.Fatalf("%s byte %d bit %d flipped: frames %v, want only the two good neighbours", FuncName(v[2]), pos, bit, r.frames)
				}
				if r.stats.BadChecksum+r.stats.UnknownFunc != 1 {
					t.Fatalf("%s byte %d bit %d flipped: stats %+v, want exactly one bad checksum or unknown function", FuncName(v[2]), pos, bit, r.stats)
				}
				if r.stats.SkippedBytes != uint64(len(v)) {
					t.Fatalf("%s byte %d bit %d flipped: skipped %d, want %d", FuncName(v[2]), pos, bit, r.stats.SkippedBytes, len(v))
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
			if len(r.frames) != 1 || r.stats.SkippedBytes != uint64(len(garbage)) || r.pending != 0 {
				t.Errorf("garbage % x: %d frames, stats %+v, pending %d; want 1 frame and %d skipped", garbage[:min(8, len(garbage))], len(r.frames), r.stats, r.pending, len(garbage))
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
		want := result{ref, st, pend}
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
