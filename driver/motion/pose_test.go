package motion

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

func TestMaxWheelRPSUnderLimits(t *testing.T) {
	g := kinematics.DefaultGeometry()
	l := DefaultLimits()
	l.MaxLinear = 0.35 // the running value (arm_limits.yaml)
	m := l.MaxWheelRPS(g)
	worst := 0.0
	for _, sx := range []float64{-1, 1} {
		for _, sy := range []float64{-1, 1} {
			for _, sw := range []float64{-1, 1} {
				for _, v := range kinematics.WheelRPS(kinematics.Twist{VX: sx * l.MaxLinear, VY: sy * l.MaxLinear, WZ: sw * l.MaxAngular}, g) {
					worst = math.Max(worst, math.Abs(v))
				}
			}
		}
	}
	if !near(m, worst, 1e-12) {
		t.Fatalf("MaxWheelRPS %v, worst corner %v", m, worst)
	}
	if m >= 5 {
		t.Fatalf("0.35 m/s limits give %v rps, above the board's 5 rps", m)
	}
}

func TestIntegratePose(t *testing.T) {
	const dt = 0.02
	cases := []struct {
		name  string
		start Pose
		tw    kinematics.Twist
		steps int
		want  Pose
		eps   float64
	}{
		{"straight 1 s at 0.2", Pose{}, kinematics.Twist{VX: 0.2}, 50, Pose{X: 0.2}, 1e-12},
		{"straight along heading 90 deg", Pose{Theta: math.Pi / 2}, kinematics.Twist{VX: 0.2}, 50, Pose{Y: 0.2, Theta: math.Pi / 2}, 1e-12},
		{"sideways left 1 s", Pose{}, kinematics.Twist{VY: 0.2}, 50, Pose{Y: 0.2}, 1e-12},
		{"heading: turn in place pi/2", Pose{}, kinematics.Twist{WZ: math.Pi / 2}, 50, Pose{Theta: math.Pi / 2}, 1e-12},
		// A full circle of radius 0.5 m returns to the start (midpoint heading makes the polygon closed).
		{"full circle", Pose{}, kinematics.Twist{VX: 0.5, WZ: 1}, 0, Pose{}, 1e-9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.start
			steps := c.steps
			d := dt
			if steps == 0 { // full circle: 2 pi s in 1000 equal steps
				steps, d = 1000, 2*math.Pi/1000
			}
			for i := 0; i < steps; i++ {
				p = IntegratePose(p, c.tw, d)
			}
			if !near(p.X, c.want.X, c.eps) || !near(p.Y, c.want.Y, c.eps) || !near(math.Abs(WrapAngle(p.Theta-c.want.Theta)), 0, c.eps) {
				t.Fatalf("got %+v, want %+v", p, c.want)
			}
		})
	}
	t.Run("half circle reaches the far side at y = 2r", func(t *testing.T) {
		p := Pose{}
		for i := 0; i < 500; i++ {
			p = IntegratePose(p, kinematics.Twist{VX: 0.5, WZ: 1}, math.Pi/500)
		}
		if !near(p.X, 0, 1e-9) || !near(p.Y, 1.0, 1e-5) || !near(math.Remainder(p.Theta-math.Pi, 2*math.Pi), 0, 1e-9) {
			t.Fatalf("half circle ended at %+v, want (0, 1, pi)", p)
		}
	})
}

func TestWrapAngle(t *testing.T) {
	if got := WrapAngle(-math.Pi); got != math.Pi {
		t.Fatalf("WrapAngle(-pi) = %v, want exactly pi", got)
	}
	cases := []struct{ in, want float64 }{
		{0, 0}, {math.Pi, math.Pi}, {-math.Pi, math.Pi}, {3 * math.Pi, math.Pi}, {-3 * math.Pi, math.Pi},
		{math.Pi / 2, math.Pi / 2}, {-math.Pi / 2, -math.Pi / 2}, {2*math.Pi + 0.1, 0.1}, {-2*math.Pi - 0.1, -0.1},
	}
	for _, c := range cases {
		got := WrapAngle(c.in)
		if !near(math.Remainder(got-c.want, 2*math.Pi), 0, 1e-12) || got <= -math.Pi || got > math.Pi {
			t.Fatalf("WrapAngle(%v) = %v, want %v in (-pi, pi]", c.in, got, c.want)
		}
	}
}

func TestOdometry(t *testing.T) {
	t.Run("dead reckoning with scale and covariances", func(t *testing.T) {
		o := NewOdometry(DefaultOdomConfig())
		var s OdomSample
		for i := 0; i <= 50; i++ { // 1 s sliding left at a commanded 0.2 m/s
			s = o.Update(at(float64(i)*0.02), kinematics.Twist{VY: 0.2})
		}
		if !near(s.Pose.Y, 0.2*0.765, 1e-12) || s.Pose.X != 0 {
			t.Fatalf("pose %+v, want y = 0.153 (0.2 x 0.765 x 1 s)", s.Pose)
		}
		if !near(s.Twist.VY, 0.2*0.765, 1e-15) || s.Twist.VX != 0 {
			t.Fatalf("twist %v, want scaled vy", s.Twist)
		}
		for _, i := range []int{0, 7, 35} {
			if s.PoseCov[i] != 1e3 {
				t.Fatalf("pose cov[%d] = %v, want 1e3 (dead reckoning)", i, s.PoseCov[i])
			}
		}
		for _, i := range []int{14, 21, 28} {
			if s.PoseCov[i] != 1e-6 || s.TwistCov[i] != 1e-6 {
				t.Fatalf("cov[%d] = %v/%v, want 1e-6", i, s.PoseCov[i], s.TwistCov[i])
			}
		}
		if !near(s.TwistCov[0], 0.0025, 1e-15) || s.TwistCov[7] != s.TwistCov[0] || !near(s.TwistCov[35], 0.04, 1e-15) {
			t.Fatalf("twist cov %v", s.TwistCov)
		}
		if s.QW != 1 || s.QZ != 0 {
			t.Fatalf("quaternion z %v w %v for heading 0", s.QZ, s.QW)
		}
	})
	t.Run("first update integrates nothing, dt capped at 0.1 s, negative dt ignored", func(t *testing.T) {
		o := NewOdometry(DefaultOdomConfig())
		if s := o.Update(t0, kinematics.Twist{VX: 0.2}); s.Pose.X != 0 {
			t.Fatalf("first update moved: %+v", s.Pose)
		}
		if s := o.Update(t0.Add(5*time.Second), kinematics.Twist{VX: 0.2}); !near(s.Pose.X, 0.02, 1e-15) {
			t.Fatalf("5 s gap moved %v, want 0.02 (capped 0.1 s)", s.Pose.X)
		}
		if s := o.Update(t0, kinematics.Twist{VX: 0.2}); !near(s.Pose.X, 0.02, 1e-15) {
			t.Fatalf("backward time moved: %v", s.Pose.X)
		}
	})
	t.Run("heading quaternion and non-finite input", func(t *testing.T) {
		o := NewOdometry(DefaultOdomConfig())
		o.SetPose(Pose{Theta: math.Pi / 2})
		s := o.Update(t0, kinematics.Twist{VX: math.NaN()})
		if o.Skipped() != 1 || !near(s.QZ, math.Sin(math.Pi/4), 1e-15) || !near(s.QW, math.Cos(math.Pi/4), 1e-15) {
			t.Fatalf("sample %+v skipped %d", s, o.Skipped())
		}
		s = o.Update(t0.Add(tick), kinematics.Twist{VX: math.Inf(1)})
		if s.Pose != o.Pose() || math.IsNaN(s.Pose.X) || s.Pose.X != 0 || s.Pose.Y != 0 {
			t.Fatalf("non-finite twist moved the pose: %+v", s.Pose)
		}
	})
}
