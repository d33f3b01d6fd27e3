package odometry

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// decel is a synthetic leg along the unit direction (dx, dy): speed v0 until the stop acts at trigger+delay,
// then a first-order run-down with time constant tau; estimated at 10 Hz with 1 mm of noise per axis, as
// the odometry in the sim's room does (docs/scanmatch.md: 1.6 mm p95 per axis per pair).
func decel(seed uint64, v0, delay, tau, trig, end, dx, dy float64) []Odo {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Odo
	for t := 0.0; t <= end+1e-9; t += 0.1 {
		var s float64 // distance travelled
		switch stop := trig + delay; {
		case t <= stop:
			s = v0 * t
		default:
			s = v0*stop + v0*tau*(1-math.Exp(-(t-stop)/tau))
		}
		out = append(out, Odo{T: t, X: s*dx + 0.001*rng.NormFloat64(), Y: s*dy + 0.001*rng.NormFloat64(), Observable: true})
	}
	return out
}

// decelTravel is the true distance after the trigger of decel.
func decelTravel(v0, delay, tau float64) float64 { return v0*delay + v0*tau }

func TestJudgeStopPass(t *testing.T) {
	p := DefaultParams()
	for _, c := range []struct {
		name                   string
		v0, delay, tau         float64
		dx, dy, wantLo, wantHi float64
	}{
		{"estop fwd 0.2", 0.2, 0.02, 0.13, 1, 0, 0.2, 0.6},
		{"deadman back 0.1", 0.1, 0.32, 0.13, -1, 0, 0.4, 0.8},
		{"estop strafe left", 0.153, 0.02, 0.13, 0, 1, 0.2, 0.6},
		{"kill fwd 0.35", 0.35, 0.15, 0.13, 1, 0, 0.3, 0.8},
	} {
		for seed := uint64(1); seed <= 10; seed++ {
			odo := decel(seed, c.v0, c.delay, c.tau, 1.5, 4, c.dx, c.dy)
			v := JudgeStop(odo, 1.5, 4, p)
			if v.Outcome != Pass || v.StillAfter < c.wantLo || v.StillAfter > c.wantHi {
				t.Fatalf("%s seed %d: %s", c.name, seed, v.Line(c.name))
			}
			if want := decelTravel(c.v0, c.delay, c.tau); math.Abs(v.Travel-want) > 0.01 {
				t.Errorf("%s seed %d: travel %.4f m, truth %.4f m (1 cm allowed)", c.name, seed, v.Travel, want)
			}
			if math.Abs(v.Before-c.v0) > 0.02 {
				t.Errorf("%s seed %d: before %.3f m/s, truth %.3f", c.name, seed, v.Before, c.v0)
			}
			if seed == 1 {
				t.Log(v.Line(c.name))
			}
		}
	}
}

// The negative controls: a stop that does not happen, happens too late, or lets the robot move again must
// FAIL; a robot that never moved cannot prove a stop.
func TestJudgeStopNegative(t *testing.T) {
	p := DefaultParams()
	never := decel(3, 0.2, 100, 0.13, 1.5, 4, 1, 0)  // the board ignores the stop
	late := decel(4, 0.2, 0.9, 0.13, 1.5, 4, 1, 0)   // still only after 0.9 s + run-down
	again := decel(5, 0.2, 0.02, 0.13, 1.5, 4, 1, 0) // stops, then creeps at 0.1 m/s from 2.8 s
	for i := range again {
		if again[i].T > 2.8 {
			again[i].X += 0.1 * (again[i].T - 2.8)
		}
	}
	still := decel(6, 0, 0, 0.13, 1.5, 4, 1, 0)
	for _, c := range []struct {
		name string
		odo  []Odo
		want string
	}{
		{"ignored stop", never, "STILL MOVING 0.8 s after the stop: never"},
		{"late stop", late, "STILL MOVING 0.8 s after the stop: still only after"},
		{"moved again", again, "MOVED AGAIN after stopping"},
		{"never moved", still, "not moving before the trigger"},
		{"no odometry", nil, "no measured odometry"},
	} {
		v := JudgeStop(c.odo, 1.5, 4, p)
		if v.Outcome != Fail || !strings.Contains(v.Reason, c.want) {
			t.Errorf("%s: %s, want FAIL with %q", c.name, v.Line(c.name), c.want)
		}
	}
}

// A degenerate odometry (a corridor: the motion along it is a prediction) must never be called still: the
// positions below read "still" exactly, yet the verdict is NOT JUDGED; the same data observable passes.
func TestJudgeStopDegenerateRefuses(t *testing.T) {
	p := DefaultParams()
	odo := decel(7, 0.2, 0.02, 0.13, 1.5, 4, 1, 0)
	if v := JudgeStop(odo, 1.5, 4, p); v.Outcome != Pass {
		t.Fatalf("control: %s", v.Line("control"))
	}
	after := append([]Odo(nil), odo...)
	for i := range after {
		if after[i].T > 1.7 {
			after[i].Observable = false
		}
	}
	if v := JudgeStop(after, 1.5, 4, p); v.Outcome != NotJudged || !strings.Contains(v.Reason, "refusing to call it still") {
		t.Errorf("degenerate after the trigger: %s", v.Line("corridor"))
	}
	before := append([]Odo(nil), odo...)
	for i := range before {
		before[i].Observable = false
	}
	if v := JudgeStop(before, 1.5, 4, p); v.Outcome != NotJudged {
		t.Errorf("degenerate throughout: %s", v.Line("corridor"))
	}
}

// A gap in the scans is not stillness: windows across it are not measured.
func TestJudgeStopGap(t *testing.T) {
	p := DefaultParams()
	odo := decel(8, 0.2, 100, 0.13, 1.5, 4, 1, 0) // never stops
	var holed []Odo
	for _, o := range odo {
		if o.T < 1.6 || o.T > 3.5 {
			holed = append(holed, o)
		}
	}
	if v := JudgeStop(holed, 1.5, 4, p); v.Outcome != Fail {
		t.Errorf("moving robot with a 1.9 s hole in its scans: %s", v.Line("gap"))
	}
	if w := SpeedAt(holed, 2.5, p); w.Measured {
		t.Errorf("window inside the hole measured: %+v", w)
	}
}

func gyroDecay(seed uint64, w0, delay, tau, trig, end float64) []Gyro {
	rng := rand.New(rand.NewPCG(seed, 2))
	var out []Gyro
	for t := 0.0; t <= end; t += 1.0 / 110 {
		z := w0
		if stop := trig + delay; t > stop {
			z = w0 * math.Exp(-(t-stop)/tau)
		}
		out = append(out, Gyro{T: t, Z: z + 0.01*rng.NormFloat64()})
	}
	return out
}

func TestJudgeTurn(t *testing.T) {
	p := DefaultParams()
	for _, w0 := range []float64{0.465, -0.465} {
		v := JudgeTurn(gyroDecay(1, w0, 0.02, 0.13, 1.5, 4), 1.5, 4, p)
		if v.Outcome != Pass || v.StillAfter > 0.4 {
			t.Errorf("turn %.3f: %s", w0, v.Line("estop turn"))
		}
		t.Log(v.Line("estop turn"))
	}
	if v := JudgeTurn(gyroDecay(2, 0.465, 100, 0.13, 1.5, 4), 1.5, 4, p); v.Outcome != Fail || !strings.Contains(v.Reason, "STILL MOVING") {
		t.Errorf("ignored stop in a turn: %s", v.Line("turn"))
	}
	again := gyroDecay(3, 0.465, 0.02, 0.13, 1.5, 4)
	for i := range again {
		if again[i].T > 3 {
			again[i].Z += 0.3
		}
	}
	if v := JudgeTurn(again, 1.5, 4, p); v.Outcome != Fail || !strings.Contains(v.Reason, "MOVED AGAIN") {
		t.Errorf("turning again: %s", v.Line("turn"))
	}
	if v := JudgeTurn(gyroDecay(4, 0.02, 0.02, 0.13, 1.5, 4), 1.5, 4, p); v.Outcome != Fail || !strings.Contains(v.Reason, "not turning") {
		t.Errorf("never turned: %s", v.Line("turn"))
	}
}

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.Moving = 0
	if p.Validate() == nil {
		t.Error("Moving 0 accepted")
	}
	p = DefaultParams()
	p.MinValid = 1.5
	if p.Validate() == nil {
		t.Error("MinValid 1.5 accepted")
	}
}
