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
