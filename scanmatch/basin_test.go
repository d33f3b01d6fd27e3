package scanmatch

import (
	"math"
	"testing"

	"github.com/rosorin/rosorin/sim"
)

// TestConvergenceBasin: the second scan of a fresh odometry (no velocity, no gyro: the guess is "no
// motion") taken up to 0.25 m and 0.25 rad away from the first reads the truth within 3 mm and 0.1
// degree. Farther jumps may miss, but only with an error or a degenerate flag, never a confident answer.
func TestConvergenceBasin(t *testing.T) {
	start := [3]float64{0.2, 0.1, 0.2}
	misses, wrong := 0, 0
	for _, d := range [][3]float64{
		{0.25, 0, 0}, {-0.25, 0, 0}, {0, 0.25, 0}, {0, -0.25, 0}, {0, 0, 0.25}, {0, 0, -0.25},
		{0.15, 0.15, 0.15}, {-0.15, 0.15, -0.15}, {0.18, -0.18, 0.1},
		{0.4, 0, 0}, {0, 0.4, 0}, {0, 0, 0.4}, {0.3, 0.3, 0.3}, {0, 0, 0.6},
	} {
		end := Pose2{start[0], start[1], start[2]}.Compose(Pose2{d[0], d[1], d[2]})
		traj := func(t float64) [3]float64 {
			if t < 0.1 {
				return start
			}
			return [3]float64{end.X, end.Y, end.Yaw}
		}
		w := newWorld(71, sim.DefaultRoom(), traj)
		o, _ := New(DefaultConfig())
		// A jump is no motion at any speed: ScanTime 0 keeps the de-skew (which would read 2.5 m/s into
		// it) out of this test of the matcher alone.
		s0, s1 := w.scan(0), w.scan(1)
		s0.ScanTime, s1.ScanTime = 0, 0
		if _, err := o.Add(s0, Aux{}); err != nil {
			t.Fatal(err)
		}
		e, err := o.Add(s1, Aux{})
		tr := Pose2{start[0], start[1], start[2]}.Between(end)
		inBasin := math.Hypot(d[0], d[1]) <= 0.26 && math.Abs(d[2]) <= 0.25
		ok := err == nil && math.Hypot(e.Pose.X-tr.X, e.Pose.Y-tr.Y) < 0.003 && math.Abs(wrap(e.Pose.Yaw-tr.Yaw)) < 0.1*math.Pi/180
		t.Logf("jump (%.2f m, %.2f m, %.2f rad): ok %v, err %v, error (%.1f, %.1f) mm %.2f deg, used %d/%d degenerate %v",
			d[0], d[1], d[2], ok, err, 1e3*(e.Pose.X-tr.X), 1e3*(e.Pose.Y-tr.Y), wrap(e.Pose.Yaw-tr.Yaw)*180/math.Pi, e.Used, e.Valid, e.Degenerate)
		if inBasin && !ok {
			t.Errorf("jump %v inside the basin: error (%.1f, %.1f) mm, err %v", d, 1e3*(e.Pose.X-tr.X), 1e3*(e.Pose.Y-tr.Y), err)
		}
		if !ok {
			misses++
			if err == nil && !e.Degenerate {
				wrong++
			}
		}
	}
	t.Logf("%d misses, %d of them confident", misses, wrong)
	if wrong > 0 {
		t.Errorf("%d jumps outside the basin gave a confident wrong answer", wrong)
	}
}
