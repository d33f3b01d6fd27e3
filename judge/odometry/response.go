package odometry

import (
	"encoding/json"
	"fmt"
	"math"
)

// Told is a speed the board was told along the leg's direction of travel (m/s, >= 0 when driving it), at T
// (s, the run's timeline): one per motor frame.
type Told struct{ T, V float64 }

// Response is a linear stop's response, split as a safety scanner's maker splits it (the controller's and the
// actuators' response before braking). Times are seconds after the trigger, NaN when not measured.
type Response struct {
	// Board is the trigger to the first frame at the board that told a lower speed than the last one before
	// the trigger: the controller's response (the driver's decision and the serial link).
	Board float64 `json:"-"`
	// Measured is the trigger to the measured deceleration: where the odometry's windowed speed first falls
	// clearly below the speed before the trigger (DecelOnset), interpolated between scans. It lags the true
	// onset by part of the odometry window (Params.Window): a conservative response.
	Measured float64 `json:"-"`
	// Why says why a part was not measured ("" when both were).
	Why string `json:"why,omitempty"`
}

// DecelDrop is the fraction of the speed before the trigger the measured speed must lose to count as the
// deceleration's onset: 10 %, and at least half the judge's moving speed (0.02 m/s by default), above the
// windowed speed's noise (about 5 mm/s with 1 mm of pose noise over a 0.3 s window).
const DecelDrop = 0.10

// BoardResponse is the time from trig to the first frame at or after it that told a lower speed than the
// last frame before it (NaN when no frame came before the trigger, none moved, or none slowed).
func BoardResponse(told []Told, trig float64) float64 {
	before := math.NaN()
	for _, f := range told {
		if f.T < trig {
			before = f.V
			continue
		}
		if math.IsNaN(before) || !(before > 0) {
			return math.NaN()
		}
		if f.V < before-1e-6 {
			return f.T - trig
		}
	}
	return math.NaN()
}

// DecelOnset is the time from trig to where the odometry's windowed speed along the leg first falls below
// before (the stop's Before) less max(DecelDrop × before, Moving / 2), interpolated between the windows' ends as the still time is
// (crossing). NaN when before is not a moving speed or the speed never fell that far by end.
func DecelOnset(odo []Odo, trig, end, before float64, p Params) float64 {
	if math.IsNaN(before) || before < p.Moving {
		return math.NaN()
	}
	thr := before - math.Max(DecelDrop*before, p.Moving/2)
	prevT, prevV := trig, before
	for _, o := range odo {
		if o.T <= trig || o.T > end {
			continue
		}
		w := SpeedAt(odo, o.T, p)
		if !w.Measured || !w.Observable {
			continue
		}
		if w.Speed < thr {
			return crossing(prevT, prevV, o.T, w.Speed, thr, p.MaxGap) - trig
		}
		prevT, prevV = o.T, w.Speed
	}
	return math.NaN()
}

// MeasureResponse measures both parts of a linear stop's response; told may be empty (no record of the
// board's frames: Board is NaN and Why says so).
func MeasureResponse(told []Told, odo []Odo, trig, end float64, v Stop, p Params) Response {
	r := Response{Board: BoardResponse(told, trig), Measured: DecelOnset(odo, trig, end, v.Before, p)}
	var why []string
	switch {
	case len(told) == 0:
		why = append(why, "no record of the board's frames (the simulator keeps one; a robot's driver reports its last frame only every 0.2 s)")
	case math.IsNaN(r.Board):
		why = append(why, "no frame slowed the wheels after the trigger")
	}
	if math.IsNaN(r.Measured) {
		why = append(why, fmt.Sprintf("the measured speed never fell clearly below its %.3f m/s before the trigger", v.Before))
	}
	for i, w := range why {
		if i > 0 {
			r.Why += "; "
		}
		r.Why += w
	}
	return r
}

// MarshalJSON writes the NaN times as null.
func (r Response) MarshalJSON() ([]byte, error) {
	type alias Response
	return json.Marshal(struct {
		alias
		Board    *float64 `json:"board_s"`
		Measured *float64 `json:"measured_s"`
	}{alias(r), Num(r.Board), Num(r.Measured)})
}

// UnmarshalJSON reads what MarshalJSON writes (null -> NaN).
func (r *Response) UnmarshalJSON(b []byte) error {
	type alias Response
	var x struct {
		alias
		Board    *float64 `json:"board_s"`
		Measured *float64 `json:"measured_s"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*r = Response(x.alias)
	r.Board, r.Measured = math.NaN(), math.NaN()
	if x.Board != nil {
		r.Board = *x.Board
	}
	if x.Measured != nil {
		r.Measured = *x.Measured
	}
	return nil
}
