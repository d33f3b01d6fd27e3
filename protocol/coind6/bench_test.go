package coind6

import (
	"testing"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// BenchmarkParser feeds one second of synthetic LiDAR output (10 revolutions, 170 packets, about 13.7 KB,
// with the occasional AA 55 inside samples) through one Parser, whole, in 64-byte chunks and one byte at a
// time. It reports MB/s, ns/packet and allocs/packet in steady state (the parser is reused).
func BenchmarkParser(b *testing.B) {
	s := cleanLidarStream(b, 10)
	streamtest.BenchParser(b, s.data, len(s.pkts), "packet", func() (func([]byte), func() int) {
		var p Parser
		pkts := 0
		emit := func([]byte) { pkts++ }
		return func(d []byte) { p.Feed(d, emit) }, func() int { return pkts }
	})
}

// BenchmarkDecodeAssemble is the rest of the LiDAR path per packet: DecodeInto with a reused sample buffer
// and Assembler.Add. The assembler allocates a new scan (two 400-float slices) once per revolution, by
// design: a finished scan is handed out and must not be overwritten.
func BenchmarkDecodeAssemble(b *testing.B) {
	revs := synthRevolutions(b, 1, 10)
	a := NewAssembler(DefaultScanConfig())
	buf := make([]Sample, 0, MaxSamples)
	size := 0
	for _, tp := range revs {
		size += len(tp.raw)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, tp := range revs {
			p, err := DecodeInto(tp.raw, buf)
			if err != nil {
				b.Fatal(err)
			}
			a.Add(p, t0.Add(tp.at))
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/packet")
}
