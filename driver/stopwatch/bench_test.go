package stopwatch

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/scanmatch"
)

// BenchmarkIMUOutsideStop is the cost of one board IMU reading while no stop is timed: a ring write.
func BenchmarkIMUOutsideStop(b *testing.B) {
	w, _ := New(DefaultParams())
	base := time.Now()
	g := [3]float32{-1.7, -1.6, 0.05}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.IMU(base.Add(time.Duration(i)*9*time.Millisecond), g)
	}
}

// BenchmarkOdoOutsideStop and BenchmarkCommandedOutsideStop: the other two streams, likewise.
func BenchmarkOdoOutsideStop(b *testing.B) {
	w, _ := New(DefaultParams())
	base := time.Now()
	var e scanmatch.Estimate
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Odo(base.Add(time.Duration(i)*100*time.Millisecond), e)
	}
}

func BenchmarkCommandedOutsideStop(b *testing.B) {
	w, _ := New(DefaultParams())
	base := time.Now()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Commanded(base.Add(time.Duration(i)*20*time.Millisecond), fwd(0.2))
	}
}

// BenchmarkStopJudging is one whole floor stop: the trigger, the window's samples (4.35 s of IMU, odometry and
// commands) and the judging in Poll, on a watch that has timed stops before (the recording's capacity kept).
func BenchmarkStopJudging(b *testing.B) {
	w, _ := New(DefaultParams())
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	g := [3]float32{-1.7, -1.6, 0.05}
	var e scanmatch.Estimate
	t0 := 0
	feed := func(from, to int, moving bool) {
		for ms := from; ms < to; ms++ {
			if ms%9 == 0 {
				g[0] = -1.7 + float32(ms%7-3)*0.05
				w.IMU(at(ms), g)
			}
			if ms%100 == 0 {
				if moving {
					e.Pose.X += 0.02
				}
				w.Odo(at(ms), e)
			}
			if ms%20 == 0 {
				b := [3]float64{}
				if moving {
					b = fwd(0.2)
				}
				w.Commanded(at(ms), b)
			}
		}
	}
	feed(0, 2000, true)
	t0 = 2000
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		feed(t0, t0+1500, true)
		t0 += 1500
		b.StartTimer()
		w.Trigger(Trigger{Kind: api.StopEStop, At: at(t0)})
		feed(t0, t0+4400, false)
		t0 += 4400
		if rs := w.Poll(at(t0)); len(rs) != 1 {
			b.Fatalf("%d records", len(rs))
		}
	}
}
