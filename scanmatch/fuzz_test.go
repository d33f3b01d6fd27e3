package scanmatch

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// fuzzScan turns bytes into a scan: an 8-byte stamp offset (ns), 4-byte scan time (ns), float32 range
// limits, then float32 ranges that overwrite base's from bin 0 on (so short inputs stay near a real scan).
func fuzzScan(base coind6.Scan, data []byte) coind6.Scan {
	s := base
	s.Ranges = append([]float32(nil), base.Ranges...)
	u64 := func(n int) uint64 {
		var b [8]byte
		if len(data) > 0 {
			k := copy(b[:n], data)
			data = data[k:]
		}
		return binary.LittleEndian.Uint64(b[:])
	}
	if len(data) > 0 {
		s.Stamp = s.Stamp.Add(time.Duration(int64(u64(8))))
	}
	if len(data) > 0 {
		s.ScanTime = time.Duration(int32(u64(4)))
	}
	if len(data) >= 8 {
		s.RangeMin = math.Float32frombits(uint32(u64(4)))
		s.RangeMax = math.Float32frombits(uint32(u64(4)))
	}
	for i := 0; i < len(s.Ranges) && len(data) >= 4; i++ {
		s.Ranges[i] = math.Float32frombits(uint32(u64(4)))
	}
	return s
}

func checkEstimate(t *testing.T, e Estimate, cfg Config) {
	t.Helper()
	for _, v := range []float64{e.Pose.X, e.Pose.Y, e.Pose.Yaw, e.Delta.X, e.Delta.Y, e.Delta.Yaw, e.Velocity.Vx, e.Velocity.Vy, e.Velocity.W} {
		if !finite(v) {
			t.Fatalf("non-finite estimate %+v", e)
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if !finite(e.Cov[i][j]) || e.Cov[i][i] < 0 {
				t.Fatalf("bad covariance %v", e.Cov)
			}
		}
	}
	if e.Used > e.Valid || e.Valid > cfg.Bins || (!e.Keyframe || e.Used > 0) && e.Used < cfg.MinPoints && e.Used != 0 {
		t.Fatalf("used %d valid %d", e.Used, e.Valid)
	}
}

// FuzzAdd feeds a hostile scan after a good one and before another: nothing panics, an answer is finite
// with a non-negative covariance, and the odometry still works afterwards.
func FuzzAdd(f *testing.F) {
	w := newWorld(1, sim.DefaultRoom(), still([3]float64{0.2, 0.1, 0.3}))
	s0, s1, s2 := w.scan(0), w.scan(1), w.scan(2)
	f.Add([]byte{})
	f.Add(make([]byte, 16))
	raw := make([]byte, 16+4*400)
	binary.LittleEndian.PutUint64(raw, uint64(100*time.Millisecond))
	binary.LittleEndian.PutUint32(raw[8:], uint32(100*time.Millisecond))
	binary.LittleEndian.PutUint32(raw[12:], math.Float32bits(0.12))
	binary.LittleEndian.PutUint32(raw[16:], math.Float32bits(8))
	for i, r := range s1.Ranges[:399] {
		binary.LittleEndian.PutUint32(raw[20+4*i:], math.Float32bits(r))
	}
	f.Add(raw)
	nan := append([]byte(nil), raw...)
	for i := 20; i+4 <= len(nan); i += 4 {
		binary.LittleEndian.PutUint32(nan[i:], 0x7fc00000)
	}
	f.Add(nan)
	cfg := DefaultConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The hostile scan first (as the origin), then in the middle of good ones.
		if e, err := o.Add(fuzzScan(s0, data), Aux{YawRate: float64(len(data)%7) - 3, HasYawRate: len(data)%2 == 0}); err == nil {
			checkEstimate(t, e, cfg)
		}
		o.Reset()
		if _, err := o.Add(s0, Aux{}); err != nil {
			t.Fatal(err)
		}
		if e, err := o.Add(fuzzScan(s1, data), Aux{}); err == nil {
			checkEstimate(t, e, cfg)
		}
		late := s2
		late.Stamp = late.Stamp.Add(time.Hour) // after any fuzzed stamp
		e, err := o.Add(late, Aux{})
		if err == nil {
			checkEstimate(t, e, cfg)
		}
	})
}
