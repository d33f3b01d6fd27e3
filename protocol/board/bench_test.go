package board

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// BenchmarkParser feeds 10 s of synthetic board traffic (110 Hz IMU, battery, 20 Hz gamepad, 5 Hz motor
// frames, keys: about 37 KB) through one Parser, whole, in 64-byte chunks (a typical USB CDC read) and one
// byte at a time. It reports MB/s, ns/frame and allocs/frame; the parser is reused across iterations, so
// allocs/frame measures the steady state a driver sees.
func BenchmarkParser(b *testing.B) {
	s := cleanBoardStream(b, 10*time.Second)
	streamtest.BenchParser(b, s.data, len(s.frames), "frame", func() (func([]byte), func() int) {
		var p Parser
		frames := 0
		emit := func(Frame) { frames++ }
		return func(d []byte) { p.Feed(d, emit) }, func() int { return frames }
	})
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
