package scanmatch

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// periodic is a trajectory that returns to its start every 120 s (strafing, driving and turning at once),
// so that a benchmark can loop over its scans without a jump.
func periodic(t float64) [3]float64 {
	return [3]float64{0.3 * math.Sin(2*math.Pi*t/12), 0.25 * math.Sin(2*math.Pi*t/8), 0.6 * math.Sin(2*math.Pi*t/10)}
}

func benchScans(b *testing.B, traj trajectory, n int) []coind6.Scan {
	w := newWorld(1, sim.DefaultRoom(), traj)
	s := make([]coind6.Scan, n)
	for k := range s {
		s[k] = w.scan(k)
	}
	return s
}

// benchAdd times Add over a loop of scans; each op is one scan matched against its keyframe (one pair).
// Besides wall time it reports the thread's CPU time per op (what one core spends, whatever else runs on
// this shared machine) and the Gauss-Newton steps per op (all passes).
func benchAdd(b *testing.B, scans []coind6.Scan) { benchAddGyro(b, scans, nil) }

// benchAddGyro is benchAdd with the gyro stream g (of the scans' first lap) fed before each scan, as
// runGyro does; its AddGyro calls are inside the timed loop.
func benchAddGyro(b *testing.B, scans []coind6.Scan, g []gyroSample) {
	o, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	n := len(scans)
	period := time.Duration(n) * 100 * time.Millisecond
	j := 0
	feed := func(lap, k int) {
		for end := float64(k+1)*scanPeriod + gyroLag; len(g) > 0; {
			s := g[j]
			if s.t > end {
				break
			}
			if err := o.AddGyro(epoch.Add(time.Duration(lap)*period+time.Duration(s.t*1e9)), s.wz); err != nil {
				b.Fatal(err)
			}
			if j++; j == len(g) {
				j, lap = 0, lap+1
				end -= float64(n) * scanPeriod
			}
		}
	}
	for k := 0; k < n; k++ { // warm up: one lap
		feed(0, k)
		if _, err := o.Add(scans[k], Aux{}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	steps0 := o.steps
	b.ResetTimer()
	cpu0 := threadCPU()
	fails := 0
	for i := 0; i < b.N; i++ {
		k := i % n
		s := scans[k]
		s.Stamp = s.Stamp.Add(time.Duration(1+i/n) * period)
		feed(1+i/n, k)
		if _, err := o.Add(s, Aux{}); err != nil {
			fails++
		}
	}
	if cpu := threadCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.ReportMetric(float64(o.steps-steps0)/float64(b.N), "steps/op")
	if fails > 0 {
		b.Fatalf("%d of %d scans failed", fails, b.N)
	}
}

func BenchmarkAddMoving(b *testing.B) { benchAdd(b, benchScans(b, periodic, 1200)) }

// BenchmarkAddMovingGyro: the same scans with the sim IMU's gyro stream.
func BenchmarkAddMovingGyro(b *testing.B) {
	w := newWorld(1, sim.DefaultRoom(), periodic)
	benchAddGyro(b, benchScans(b, periodic, 1200), gyroOf(w, 1, 0, 120, 0.002, 0))
}

func BenchmarkAddStill(b *testing.B) { benchAdd(b, benchScans(b, still([3]float64{}), 100)) }
