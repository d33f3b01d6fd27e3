// Package streamtest is the shared test support of the protocol's stream parsers (protocol/board's
// Parser, protocol/coind6's Parser): hostile readers (testing/iotest's one-byte, half, data-with-error and
// timeout readers, odd read buffers, seeded random chunks with zero-byte reads), the read loop of a serial
// reader, zero-byte feeds and the parser benchmark. Test code only: the parsers themselves never read.
package streamtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/iotest"
)

// Case is one way of reading a stream: a fresh reader over the data and the read buffer size.
type Case struct {
	Name   string
	Reader func() io.Reader
	Buf    int
}

// Cases lists the hostile ways of reading data: iotest's readers, a plain reader with each read buffer size
// in bufs (pick sizes around the frame sizes), and for 8 seeds and each max in maxes a random chunker
// (0..max bytes a read) with a read buffer of randBuf.
func Cases(data []byte, bufs, maxes []int, randBuf int) []Case {
	rd := func() io.Reader { return bytes.NewReader(data) }
	cases := []Case{
		{"OneByteReader", func() io.Reader { return iotest.OneByteReader(rd()) }, 64},
		{"HalfReader/61", func() io.Reader { return iotest.HalfReader(rd()) }, 61},
		{"HalfReader/4096", func() io.Reader { return iotest.HalfReader(rd()) }, 4096},
		{"DataErrReader", func() io.Reader { return iotest.DataErrReader(rd()) }, 100},
		{"DataErrReader/OneByte", func() io.Reader { return iotest.DataErrReader(iotest.OneByteReader(rd())) }, 100},
		{"TimeoutReader", func() io.Reader { return iotest.TimeoutReader(rd()) }, 33},
	}
	for _, b := range bufs {
		cases = append(cases, Case{fmt.Sprintf("buf%d", b), rd, b})
	}
	for seed := range uint64(8) {
		for _, max := range maxes {
			cases = append(cases, Case{fmt.Sprintf("random/seed%d/max%d", seed, max),
				func() io.Reader { return NewChunkReader(data, seed, max) }, randBuf})
		}
	}
	return cases
}

// ReadAll reads r to its end through one reused buffer of bufSize, the way a serial reader does, and hands
// each chunk to feed. After feed returns the chunk is scribbled over: a parser that kept pointers into a
// previous chunk instead of copying its unfinished tail would see those bytes change. Timeouts are
// transient (a serial port with VTIME returns them); any other error fails the test.
func ReadAll(t testing.TB, r io.Reader, bufSize int, feed func(chunk []byte)) {
	t.Helper()
	buf := make([]byte, bufSize)
	for zeros := 0; ; {
		n, err := r.Read(buf)
		feed(buf[:n])
		clear(buf[:n])
		switch {
		case errors.Is(err, io.EOF):
			return
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

// Chunks feeds data in chunks of the sizes next returns (0 included).
func Chunks(data []byte, next func() int, feed func(chunk []byte)) {
	for len(data) > 0 {
		n := min(next(), len(data))
		feed(data[:n])
		data = data[n:]
	}
}

// ZeroByteFeeds feeds data one byte at a time with a nil and an empty chunk before each byte.
func ZeroByteFeeds(data []byte, feed func(chunk []byte)) {
	for i := range data {
		feed(nil)
		feed(data[i:i])
		feed(data[i : i+1])
	}
}

// ChunkReader returns chunks of random size between 0 and max (zero-byte reads included) from a seeded
// RNG, then io.EOF.
type ChunkReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

// NewChunkReader reads data in random chunks of at most max bytes.
func NewChunkReader(data []byte, seed uint64, max int) *ChunkReader {
	return &ChunkReader{data, rand.New(rand.NewPCG(seed, 1)), max}
}

func (r *ChunkReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(r.rng.IntN(r.max+1), len(b), len(r.data))
	copy(b, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// BenchParser feeds data through one parser, whole, in 64-byte chunks (a typical USB CDC read) and one
// byte at a time. newParser makes the parser's feed and a counter of what it emitted; data holds perStream
// units (frames, packets). It reports MB/s, ns/unit and allocs/unit; the parser is reused across
// iterations, so allocs/unit measures the steady state a driver sees.
func BenchParser(b *testing.B, data []byte, perStream int, unit string, newParser func() (feed func([]byte), emitted func() int)) {
	for _, c := range []struct {
		name  string
		chunk int
	}{{"whole", len(data)}, {"chunk64", 64}, {"chunk1", 1}} {
		b.Run(c.name, func(b *testing.B) {
			feed, emitted := newParser()
			all := func() { Chunks(data, func() int { return c.chunk }, feed) }
			all() // warm up: the parser's buffer reaches its working size
			n0 := emitted()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for b.Loop() {
				all()
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			n := emitted() - n0
			if n == 0 || n%perStream != 0 {
				b.Fatalf("%d %ss, not a multiple of the stream's %d", n, unit, perStream)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/"+unit)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/"+unit)
		})
	}
}

// Result is everything observable about one parse of a stream: what was emitted, the counters and the
// pending tail.
type Result[T any, S comparable] struct {
	Items   []T
	Stats   S
	Pending int
}

// CheckResult fails t unless got equals want (the whole-buffer feed or a reference model): the same
// items (diff describes the first difference, "" when there is none), counters and pending tail.
func CheckResult[T any, S comparable](t testing.TB, name string, got, want Result[T, S], diff func(got, want []T) string) {
	t.Helper()
	if d := diff(got.Items, want.Items); d != "" {
		t.Errorf("%s: output differs from the whole-buffer feed: %s", name, d)
	}
	if got.Stats != want.Stats {
		t.Errorf("%s: stats %+v, whole-buffer feed %+v", name, got.Stats, want.Stats)
	}
	if got.Pending != want.Pending {
		t.Errorf("%s: %d bytes pending, whole-buffer feed %d", name, got.Pending, want.Pending)
	}
}

// CheckAccounting fails t unless every one of n input bytes is in exactly one place: an emitted item (of
// size(item) bytes), the skipped count or the pending tail.
func CheckAccounting[T any](t testing.TB, n int, items []T, size func(T) int, skipped uint64, pending int) {
	t.Helper()
	used := 0
	for _, it := range items {
		used += size(it)
	}
	if uint64(used)+skipped+uint64(pending) != uint64(n) {
		t.Errorf("%d bytes emitted + %d skipped + %d pending != %d input bytes", used, skipped, pending, n)
	}
}

// SplitAt is a chunk-size function for Chunks over n bytes that cuts them once, at split mod (n+1).
func SplitAt(n int, split uint) func() int {
	cut := int(split % uint(n+1))
	return func() int { c := cut; cut = n; return c }
}
