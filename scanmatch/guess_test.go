package scanmatch

import (
	"math"
	"testing"

	"github.com/rosorin/rosorin/sim"
)

// TestGuessIsNoPrior: the gyro and the previous velocity only seed the first step; a wrong seed does not
// pull the answer (rf2o's velocity filter and Cartographer's prior residuals do, which read a 15 cm strafe
// as 1.1 cm). A still robot with a gyro claiming 0.5 rad/s, and a robot that stops hard (3 m/s^2, an
// e-stop) while the constant-velocity guess says it keeps going, both read the truth.
func TestGuessIsNoPrior(t *testing.T) {
	t.Run("lying gyro", func(t *testing.T) {
		w := newWorld(41, sim.DefaultRoom(), still([3]float64{0.3, 0.2, 0.4}))
		o, _ := New(DefaultConfig())
		var e Estimate
		for k := 0; k < 20; k++ {
			var err error
			if e, err = o.Add(w.scan(k), Aux{YawRate: 0.5, HasYawRate: true}); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("gyro says 0.5 rad/s, robot still: pose (%.2f, %.2f) mm %.4f deg", 1e3*e.Pose.X, 1e3*e.Pose.Y, e.Pose.Yaw*180/math.Pi)
		if math.Hypot(e.Pose.X, e.Pose.Y) > 0.003 || math.Abs(e.Pose.Yaw) > 0.1*math.Pi/180 {
			t.Errorf("a lying gyro moved the estimate to %+v", e.Pose)
		}
	})
	t.Run("hard stop", func(t *testing.T) {
		const v, dec, tStop = 0.35, 3.0, 1.2
		traj := func(t float64) [3]float64 {
			var x float64
			switch {
			case t < tStop:
				x = v * t
			case t < tStop+v/dec:
				u := t - tStop
				x = v*tStop + v*u - 0.5*dec*u*u
			default:
				x = v*tStop + v*v/(2*dec)
			}
			return [3]float64{x - 0.3, 0.1, 0}
		}
		// A robot already moving at the first scan: start the odometry while it moves.
		w := newWorld(43, sim.DefaultRoom(), traj)
		est := run(t, w, 25, false)
		k0 := int(tStop / scanPeriod) // the scan before the stop
		got := est[len(est)-1].Pose.X - est[k0].Pose.X
		want := w.truth(len(est)-1).X - w.truth(k0).X
		t.Logf("travel from scan %d to the end: read %.2f mm, truth %.2f mm", k0, 1e3*got, 1e3*want)
		if math.Abs(got-want) > 0.003 {
			t.Errorf("hard stop: read %.2f mm of travel, truth %.2f mm", 1e3*got, 1e3*want)
		}
	})
}

// TestGapsAndUnknownSweep: revolutions lost on the link (a 0.3 s gap, and a 0.7 s one beyond MaxGap where
// the previous velocity is not trusted) in a 0.35 m/s leg, and scans without a ScanTime (no de-skew, Time =
// Stamp): the leg still reads within 1 %.
func TestGapsAndUnknownSweep(t *testing.T) {
	for _, c := range []struct {
		name     string
		drop     func(k int) bool
		noSweep  bool
		maxError float64
	}{
		{"0.3 s gap", func(k int) bool { return k >= 10 && k < 13 }, false, 0.01},
		{"0.7 s gap", func(k int) bool { return k >= 10 && k < 17 }, false, 0.01},
		{"no ScanTime", func(int) bool { return false }, true, 0.01},
	} {
		w := newWorld(61, sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.3, 1, 0, 0.35, 0, 1, 1.5))
		o, _ := New(DefaultConfig())
		var first, e Estimate
		var firstT, lastT float64
		for k := 0; k < 30; k++ {
			if c.drop(k) {
				continue
			}
			s := w.scan(k)
			if c.noSweep {
				s.ScanTime = 0
			}
			var err error
			if e, err = o.Add(s, Aux{}); err != nil {
				t.Fatalf("%s: scan %d: %v", c.name, k, err)
			}
			if k == 0 {
				first, firstT = e, e.Time.Sub(epoch).Seconds()
			}
			lastT = e.Time.Sub(epoch).Seconds()
		}
		a, b := w.traj(firstT), w.traj(lastT)
		want := Pose2{a[0], a[1], a[2]}.Between(Pose2{b[0], b[1], b[2]})
		got := first.Pose.Between(e.Pose)
		rel := (math.Hypot(got.X, got.Y) - math.Hypot(want.X, want.Y)) / math.Hypot(want.X, want.Y)
		t.Logf("%-12s read %.1f mm, truth %.1f mm: %+.2f %%", c.name, 1e3*got.X, 1e3*want.X, 100*rel)
		if math.Abs(rel) > c.maxError {
			t.Errorf("%s: read %.1f mm, truth %.1f mm (%+.2f %%)", c.name, 1e3*got.X, 1e3*want.X, 100*rel)
		}
	}
}
