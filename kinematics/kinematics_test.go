package kinematics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestWheelRPSWorkedValues(t *testing.T) {
	g := DefaultGeometry()
	cases := []struct {
		name string
		in   Twist
		want [4]float64
	}{
		// The seed's worked values, printed to three decimals.
		{"forward 0.2", Twist{VX: 0.2}, [4]float64{0.796, 0.796, -0.796, -0.796}},
		{"rotate 1.0", Twist{WZ: 1.0}, [4]float64{-0.694, -0.694, -0.694, -0.694}},
		{"left 0.2", Twist{VY: 0.2}, [4]float64{-0.796, 0.796, -0.796, 0.796}},
		{"still", Twist{}, [4]float64{}},
		{"backward 0.35", Twist{VX: -0.35}, [4]float64{-1.393, -1.393, 1.393, 1.393}},
	}
	for _, c := range cases {
		got := WheelRPS(c.in, g)
		for i := range got {
			if !near(got[i], c.want[i], 0.0005) {
				t.Fatalf("%s: motor %d = %.4f, want %.3f (all %v)", c.name, i+1, got[i], c.want[i], got)
			}
		}
	}
	// Exact formula check for one value: 0.2 / (pi x 0.08).
	if got := WheelRPS(Twist{VX: 0.2}, g)[0]; got != 0.2/(math.Pi*0.08) {
		t.Fatalf("forward rps %v, want %v", got, 0.2/(math.Pi*0.08))
	}
	// A still robot must give +0 on every wheel: the stop frame's bytes are 00 00 00 00, not 00 00 00 80.
	for i, v := range WheelRPS(Twist{}, g) {
		if math.Signbit(v) {
			t.Fatalf("motor %d is -0 for a still robot", i+1)
		}
	}
}

// Stand test C (2026-09-27): +0.5 rad/s turned the left wheels backward and the right ones forward. A wheel
// turns forward when its wire sign matches the sign it gets for driving forward.
func TestRotationSenseLeftBackRightForward(t *testing.T) {
	g := DefaultGeometry()
	fwd := WheelRPS(Twist{VX: 0.1}, g)
	rot := WheelRPS(Twist{WZ: 0.5}, g)
	dir := func(i int) float64 { return math.Copysign(1, rot[i]) * math.Copysign(1, fwd[i]) }
	// Motors 1, 2 are the left side, 3, 4 the right (forward sign + on 1, 2 and - on the mirrored 3, 4).
	if dir(0) > 0 || dir(1) > 0 {
		t.Fatalf("left wheels turn forward on +wz: rot %v fwd %v", rot, fwd)
	}
	if dir(2) < 0 || dir(3) < 0 {
		t.Fatalf("right wheels turn backward on +wz: rot %v fwd %v", rot, fwd)
	}
}

// BodyTwist undoes WheelRPS: over a grid of twists beyond the gate's limits (every sign, each axis alone and
// combined) and random twists, on the default chassis and random ones, the round trip returns the twist.
func TestRoundTrip(t *testing.T) {
	check := func(tw Twist, g Geometry) {
		t.Helper()
		got := BodyTwist(WheelRPS(tw, g), g)
		eps := 1e-12 * (1 + math.Abs(tw.VX) + math.Abs(tw.VY) + math.Abs(tw.WZ))
		if !near(got.VX, tw.VX, eps) || !near(got.VY, tw.VY, eps) || !near(got.WZ, tw.WZ, eps) {
			t.Fatalf("BodyTwist(WheelRPS(%v)) = %v on %+v", tw, got, g)
		}
	}
	steps := []float64{-1, -0.35, -0.2, -0.013, 0, 0.013, 0.2, 0.35, 1}
	for _, vx := range steps {
		for _, vy := range steps {
			for _, wz := range []float64{-5, -1, -0.5, 0, 0.04, 0.5, 1, 5} {
				check(Twist{vx, vy, wz}, DefaultGeometry())
			}
		}
	}
	r := rand.New(rand.NewPCG(17, 661))
	for range 10000 {
		g := Geometry{WheelDiameter: 0.02 + r.Float64()*0.2, Wheelbase: 0.05 + r.Float64()*0.5, Track: 0.05 + r.Float64()*0.5}
		check(Twist{r.NormFloat64(), r.NormFloat64(), 4 * r.NormFloat64()}, g)
	}
	// The other way: wheel speeds that WheelRPS can give (three degrees of freedom of four) come back.
	g := DefaultGeometry()
	for range 1000 {
		w := WheelRPS(Twist{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}, g)
		back := WheelRPS(BodyTwist(w, g), g)
		for i := range w {
			if !near(back[i], w[i], 1e-12) {
				t.Fatalf("WheelRPS(BodyTwist(%v)) = %v", w, back)
			}
		}
	}
}

// The inverse sees each wheel: one wheel's speed alone moves the body (a broken column would read as still).
func TestBodyTwistEachWheel(t *testing.T) {
	g := DefaultGeometry()
	for i := range 4 {
		var w [4]float64
		w[i] = 1
		if tw := BodyTwist(w, g); tw.IsZero() {
			t.Fatalf("wheel %d alone gives no twist", i+1)
		}
	}
}
