package odometry

import (
	"fmt"
	"math"
)

// AcrossGap judges a leg whose scans stop with its trigger (a driver kill or a service stop: the scans
// reach the proof through the driver, and the next driver needs about a second): the odometry measures the
// speed before the trigger, the travel after it (the first scans after the gap match the keyframe from
// before it) and that the robot stays still once scans are back; when the wheels were still (s after the
// trigger) comes from wheelsStill, measured without the driver (the board's gyro vibration from below it,
// the stand judge's rule). v is JudgeStop's verdict over the same odometry, which on its own cannot see the
// stop inside the gap; wheelsOK says the vibration judge passed.
func AcrossGap(v Stop, wheelsStill float64, wheelsOK bool, p Params) Stop {
	if v.Outcome == NotJudged || math.IsNaN(v.Before) || v.Before < p.Moving {
		return v // not moving, unmeasured or degenerate before the trigger: JudgeStop's word stands
	}
	odoStill := v.StillAfter
	v.StillAfter = wheelsStill
	switch {
	case !wheelsOK || math.IsNaN(wheelsStill):
		v.Outcome, v.Reason = Fail, "the wheels were never measured still from below the driver"
	case wheelsStill > p.FailAfter+1e-9:
		v.Outcome, v.Reason = Fail, fmt.Sprintf("STILL MOVING %.1f s after the stop: the wheels still only after %.2f s", p.FailAfter, wheelsStill)
	case math.IsNaN(odoStill):
		v.Outcome, v.Reason = Fail, "the odometry never measured the robot still once scans were back"
	case !math.IsNaN(v.MovedAgain):
		v.Outcome, v.Reason = Fail, fmt.Sprintf("MOVED AGAIN after stopping: moving %.2f s after the trigger", v.MovedAgain)
	case math.IsNaN(v.Travel):
		v.Outcome, v.Reason = Fail, "no travel after the trigger: no pose at the trigger"
	default:
		v.Outcome, v.Reason = Pass, ""
	}
	return v
}
