package scanmatch

import (
	"math"
	"testing"

	"github.com/rosorin/rosorin/sim"
)

type motionCase struct {
	name         string
	dx, dy, v, w float64 // body direction, speed (m/s), yaw rate (rad/s)
	hold         float64 // s at full speed
	gyro         bool
}

var motions = []motionCase{
	{"fwd 0.1", 1, 0, 0.1, 0, 1.5, false},
	{"fwd 0.2", 1, 0, 0.2, 0, 1.5, false},
	{"fwd 0.35", 1, 0, 0.35, 0, 1.5, false},
	{"back 0.2", 1, 0, -0.2, 0, 1.5, false},
	{"strafe left 0.2", 0, 1, 0.2, 0, 1.5, false},
	{"strafe right 0.2", 0, 1, -0.2, 0, 1.5, false},
	{"turn +0.5", 0, 0, 0, 0.5, 2, false},
	{"turn -1.0", 0, 0, 0, -1, 2, false},
	{"turn +1.0 gyro", 0, 0, 0, 1, 2, true},
	{"fwd 0.2 turning 0.5", 1, 0, 0.2, 0.5, 1.5, false},
}

// TestPairAccuracy: every scan pair of every motion, p95 at most 2 mm and 0.1 degree.
func TestPairAccuracy(t *testing.T) {
	var all, allYaw []float64
	for i, m := range motions {
		start := sim.DefaultRoom().Start
		w := newWorld(int64(100+i), sim.DefaultRoom(), leg(start, 0.3, m.dx, m.dy, m.v, m.w, 1.0, m.hold))
		est := run(t, w, 40, m.gyro)
		dxy, dyaw := pairErrors(w, est)
		all, allYaw = append(all, dxy...), append(allYaw, dyaw...)
		t.Logf("%-20s pair error p95 %.2f mm max %.2f mm, yaw p95 %.3f deg max %.3f deg", m.name,
			1e3*quantile(dxy, 0.95), 1e3*quantile(dxy, 1), quantile(dyaw, 0.95)*180/math.Pi, quantile(dyaw, 1)*180/math.Pi)
	}
	p, py := quantile(all, 0.95), quantile(allYaw, 0.95)*180/math.Pi
	t.Logf("all %d pairs: p95 %.2f mm, %.3f deg", len(all), 1e3*p, py)
	if p > 0.002 || py > 0.1 {
		t.Errorf("pair error p95 %.2f mm / %.3f deg, want <= 2 mm / 0.1 deg", 1e3*p, py)
	}
}
