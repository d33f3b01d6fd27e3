package coind6

import (
	"runtime"
	"testing"
)

// BenchmarkParser feeds one second of synthetic LiDAR output (10 revolutions, 170 packets, about 13.7 KB,
// with the occasional AA 55 inside samples) through one Parser, whole, in 64-byte chunks and one byte at a
// time. It reports MB/s, ns/packet and allocs/packet in steady state (the parser is reused).
func BenchmarkParser(b *testing.B) {
	s := cleanLidarStream(b, 10)
	for _, c := range []struct {
		name  string
		chunk int
	}{{"whole", len(s.data)}, {"chunk64", 64}, {"chunk1", 1}} {
		b.Run(c.name, func(b *testing.B) {
			var p Parser
			pkts := 0
			emit := func([]byte) { pkts++ }
			feed := func() {
				for d := s.data; len(d) > 0; {
					n := min(c.chunk, len(d))
					p.Feed(d[:n], emit)
					d = d[n:]
				}
			}
			feed()
			pkts = 0
			b.SetBytes(int64(len(s.data)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for b.Loop() {
				feed()
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			if pkts == 0 || pkts%len(s.pkts) != 0 {
				b.Fatalf("%d packets, not a multiple of the stream's %d", pkts, len(s.pkts))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pkts), "ns/packet")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(pkts), "allocs/packet")
		})
	}
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
