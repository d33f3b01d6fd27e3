package board

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkParser feeds 10 s of synthetic board traffic (110 Hz IMU, battery, 20 Hz gamepad, 5 Hz motor
// frames, keys: about 37 KB) through one Parser, whole, in 64-byte chunks (a typical USB CDC read) and one
// byte at a time. It reports MB/s, ns/frame and allocs/frame; the parser is reused across iterations, so
// allocs/frame measures the steady state a driver sees.
func BenchmarkParser(b *testing.B) {
	s := cleanBoardStream(b, 10*time.Second)
	for _, c := range []struct {
		name  string
		chunk int
	}{{"whole", len(s.data)}, {"chunk64", 64}, {"chunk1", 1}} {
		b.Run(c.name, func(b *testing.B) {
			var p Parser
			frames := 0
			emit := func(Frame) { frames++ }
			feed := func() {
				for d := s.data; len(d) > 0; {
					n := min(c.chunk, len(d))
					p.Feed(d[:n], emit)
					d = d[n:]
				}
			}
			feed() // warm up: the parser's buffer reaches its working size
			frames = 0
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
			if frames == 0 || frames%len(s.frames) != 0 {
				b.Fatalf("%d frames, not a multiple of the stream's %d", frames, len(s.frames))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(frames), "allocs/frame")
		})
	}
}

// BenchmarkDecodeIMU is the per-frame decode cost of the most frequent report.
func BenchmarkDecodeIMU(b *testing.B) {
	p := EncodeIMU(IMU{Accel: [3]float32{0.01, 0.02, 0.99}, Gyro: [3]float32{1, 2, 3}})[4:28]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeIMU(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeWheelRPS is the per-tick cost of the frame the driver sends.
func BenchmarkEncodeWheelRPS(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeWheelRPS([4]float64{0.5, -0.5, 0.5, -0.5}); err != nil {
			b.Fatal(err)
		}
	}
}
