package odometry

import (
	"encoding/json"
	"fmt"
	"math"
)

// Release is the verdict on a stop that must let go by itself once its cause is gone (the take-over once the
// operator lets go, and the driving input's commands go on): the robot measured moving again. Times are
// seconds after from, NaN when not measured.
type Release struct {
	Outcome Outcome
	Reason  string
	// MovingAfter is the end of the first window measured moving (speed >= Moving, observable) after from.
	MovingAfter float64
	// Speed is the speed measured in that window (m/s).
	Speed   float64
	Samples int
	Params  Params
}

// JudgeRelease is the floor's release check, the counterpart of the stand's: PASS when a window ending in
// (from, to] measures the robot moving again along the judged direction (the same speed measure and
// threshold as the stop judge's), FAIL when none does. A window that is not measured or not observable is no
// evidence either way. Linear motion only: the take-over leg drives forward.
func JudgeRelease(odo []Odo, from, to float64, p Params) Release {
	v := Release{Outcome: Fail, MovingAfter: math.NaN(), Speed: math.NaN(), Params: p}
	if err := p.Validate(); err != nil {
		v.Reason = "bad judge parameters: " + err.Error()
		return v
	}
	if !(to > from) {
		v.Reason = fmt.Sprintf("bad time range: from %v, to %v", from, to)
		return v
	}
	measured := 0
	for _, o := range odo {
		if o.T <= from || o.T > to {
			continue
		}
		v.Samples++
		w := SpeedAt(odo, o.T, p)
		if !w.Measured || !w.Observable {
			continue
		}
		measured++
		if w.Speed >= p.Moving {
			v.Outcome, v.MovingAfter, v.Speed = Pass, o.T-from, w.Speed
			return v
		}
	}
	switch {
	case measured == 0:
		v.Reason = fmt.Sprintf("no window measured in the %.1f s after letting go (%d estimates): no data is never evidence", to-from, v.Samples)
	default:
		v.Reason = fmt.Sprintf("not moving again within %.1f s of letting go: %d windows measured, all below %.2f m/s", to-from, measured, p.Moving)
	}
	return v
}

// Line is the release's result line: "let go (autonomous resumed) fwd 0.2: measured moving again 0.85 s after
// letting go (0.14 m/s) PASS".
func (v Release) Line(name string) string {
	s := name + ": "
	if math.IsNaN(v.MovingAfter) {
		s += "never measured moving again"
	} else {
		s += fmt.Sprintf("measured moving again %.2f s after letting go (%.2f m/s)", v.MovingAfter, v.Speed)
	}
	s += " " + v.Outcome.String()
	if v.Reason != "" {
		s += " - " + v.Reason
	}
	return s
}

// MarshalJSON writes NaN numbers as null.
func (v Release) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Outcome     Outcome  `json:"outcome"`
		Reason      string   `json:"reason,omitempty"`
		MovingAfter *float64 `json:"moving_after_s"`
		Speed       *float64 `json:"speed"`
		Samples     int      `json:"samples"`
		Params      Params   `json:"params"`
	}{v.Outcome, v.Reason, Num(v.MovingAfter), Num(v.Speed), v.Samples, v.Params})
}
