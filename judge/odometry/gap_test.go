package odometry

import (
	"math"
	"testing"
)

// TestAcrossGap: a kill leg whose scans stop for 1.1 s after the trigger. The odometry alone cannot see the
// stop (JudgeStop: still only after the gap, over the 0.8 s rule); with the wheels measured still from
// below the driver it passes with the odometry's travel; wheels never still, or a robot that moves after the
// gap, FAIL.
func TestAcrossGap(t *testing.T) {
	p := DefaultParams()
	odo := decel(9, 0.2, 0.15, 0.13, 1.5, 5, 1, 0)
	var holed []Odo
	for _, o := range odo {
		if o.T < 1.45 || o.T > 2.6 { // the scan under way at the trigger is lost with the driver
			holed = append(holed, o)
		}
	}
	v := JudgeStop(holed, 1.5, 5, p)
	if v.Outcome != Fail || v.StillAfter < 1.1 {
		t.Fatalf("odometry alone: %s (a still time inside the gap would be invented)", v.Line("kill"))
	}
	if g := AcrossGap(v, 0.55, true, p); g.Outcome != Pass || math.Abs(g.Travel-decelTravel(0.2, 0.15, 0.13)) > 0.01 || g.StillAfter != 0.55 {
		t.Errorf("with the wheels still at 0.55 s: %s", g.Line("kill"))
	} else {
		t.Log(g.Line("driver kill 0.2 fwd"))
	}
	if g := AcrossGap(v, math.NaN(), false, p); g.Outcome != Fail {
		t.Errorf("wheels never still: %s", g.Line("kill"))
	}
	if g := AcrossGap(v, 0.95, true, p); g.Outcome != Fail {
		t.Errorf("wheels still after 0.95 s: %s", g.Line("kill"))
	}
	again := append([]Odo(nil), holed...)
	for i := range again {
		if again[i].T > 3.5 {
			again[i].X += 0.1 * (again[i].T - 3.5)
		}
	}
	if g := AcrossGap(JudgeStop(again, 1.5, 5, p), 0.55, true, p); g.Outcome != Fail {
		t.Errorf("moving after the gap: %s", g.Line("kill"))
	}
}
