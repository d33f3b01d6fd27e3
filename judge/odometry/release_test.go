package odometry

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// resume is a synthetic robot standing still until start, then speeding up at accel (m/s²) to v1: the
// take-over's release at the driver's ramp (0.5 m/s²), estimated at 10 Hz with 1 mm of noise per axis.
func resume(seed uint64, start, accel, v1, end float64, observable bool) []Odo {
	rng := rand.New(rand.NewPCG(seed, 2))
	var out []Odo
	for t := 0.0; t <= end+1e-9; t += 0.1 {
		var s float64
		if d := t - start; d > 0 {
			ramp := v1 / accel
			if d <= ramp {
				s = accel * d * d / 2
			} else {
				s = v1*ramp/2 + v1*(d-ramp)
			}
		}
		out = append(out, Odo{T: t, X: s + 0.001*rng.NormFloat64(), Y: 0.001 * rng.NormFloat64(), Observable: observable})
	}
	return out
}

func TestJudgeRelease(t *testing.T) {
	p := DefaultParams()
	// Autonomous drives again 0.2 s after the let-go (source_timeout) and ramps to 0.2 m/s: moving once the
	// window's slope passes 0.04 m/s, well within 1 s.
	v := JudgeRelease(resume(1, 1.2, 0.5, 0.2, 4, true), 1.0, 3.0, p)
	if v.Outcome != Pass || !(v.MovingAfter > 0.3 && v.MovingAfter < 1.0) || v.Speed < p.Moving {
		t.Errorf("resumed: %+v\n%s", v, v.Line("let go"))
	}
	if l := v.Line("let go"); !strings.Contains(l, "measured moving again ") || !strings.HasSuffix(l, "PASS") {
		t.Errorf("line %q", l)
	}
	// The negative control: the robot stays still after the let-go (a silent source, or a stop that never
	// lets go): FAIL, never "moving" on noise.
	for seed := uint64(1); seed <= 20; seed++ {
		v = JudgeRelease(resume(seed, 99, 0.5, 0.2, 4, true), 1.0, 3.0, p)
		if v.Outcome != Fail || !strings.Contains(v.Reason, "not moving again within 2.0 s") || !math.IsNaN(v.MovingAfter) {
			t.Fatalf("still robot, seed %d: %+v", seed, v)
		}
	}
	// Degenerate odometry is no evidence: FAIL, saying so.
	v = JudgeRelease(resume(1, 1.2, 0.5, 0.2, 4, false), 1.0, 3.0, p)
	if v.Outcome != Fail || !strings.Contains(v.Reason, "no window measured") {
		t.Errorf("degenerate: %+v", v)
	}
	// Motion before the let-go does not count.
	v = JudgeRelease(resume(1, 0, 0.5, 0.2, 1.0, true), 1.0, 3.0, p)
	if v.Outcome != Fail {
		t.Errorf("no estimates after the let-go: %+v", v)
	}
	if v = JudgeRelease(nil, 2, 1, p); v.Outcome != Fail || !strings.Contains(v.Reason, "bad time range") {
		t.Errorf("bad range: %+v", v)
	}
}
