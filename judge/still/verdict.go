package still

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Verdict is Judge's answer with the numbers behind it. Times named ...Motion are seconds after From; From and
// To are on the shared timeline.
type Verdict struct {
	Outcome Outcome
	// Reason says why the verdict is not PASS, in words for the result line: the first motion at the board
	// and/or measured, "moving at the start of the hold: ...", or the hole in the evidence. Empty on PASS.
	Reason   string
	From, To float64
	// FirstMotion: seconds after From of the first motion, at the board or measured, whichever came first; nil
	// when none. BoardMotion and MeasuredMotion are the two separately (what moved).
	FirstMotion, BoardMotion, MeasuredMotion *float64
	// BoardFirst is the first frame in the hold that commands motion (or the one held at From, for NOT RUN);
	// zero when none.
	BoardFirst Frame
	// BoardPeak is the largest component of any frame the board held during the hold (m/s or rad/s).
	BoardPeak float64
	// Frames: frames the board held during the hold (the one held at From and those in (From, To]);
	// MovingFrames of them command motion. FrameGap: the longest silence between them (see LongestSilence).
	Frames, MovingFrames int
	FrameGap             float64
	// Gyro, when given: vibration windows scored, the loud ones, those without data, the loudest score (rad/s;
	// NaN when none had data).
	Windows, LoudWindows, NoDataWindows int
	VibrationPeak                       float64
	// Speed, when given: samples in the hold, those at or above the threshold, the largest |V| (NaN when none).
	SpeedSamples, FastSamples int
	SpeedPeak                 float64
	// Dropped: frames and samples anywhere in the input skipped for a non-finite number.
	Dropped int
	Params  Params
}

// Passed reports whether the outcome is Pass.
func (v Verdict) Passed() bool { return v.Outcome == Pass }

// nameWidth is judge/vibration's result-line name column.
const nameWidth = 34

// Line renders the verdict as one result line, for example
//
//	e-stop reset, fwd 0.2              hold 5.00 s: board peak 0.000 in 251 frames; vibration peak 0.0021 (< 0.0035) in 97 windows  PASS
//	driver restart, fwd 0.2            hold 5.00 s: board peak 0.200 in 251 frames  FAIL: first motion 0.47 s into the hold: the board was told 0.20 m/s forward at 1.35 s
//
// A verdict that is not PASS ends with its reason. Unmeasured numbers print as "nan".
func (v Verdict) Line(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s hold %.2f s: board peak %.3f in %d frames", nameWidth, name, v.To-v.From, v.BoardPeak, v.Frames)
	if v.Windows > 0 || v.NoDataWindows > 0 {
		rel := "<"
		if !(v.VibrationPeak < v.Params.Vibration.Threshold) {
			rel = ">="
		}
		fmt.Fprintf(&b, "; vibration peak %s (%s %.4f) in %d windows", f4(v.VibrationPeak), rel, v.Params.Vibration.Threshold, v.Windows)
	}
	if v.SpeedSamples > 0 {
		rel := "<"
		if !(v.SpeedPeak < v.Params.SpeedThreshold) {
			rel = ">="
		}
		fmt.Fprintf(&b, "; speed peak %.3f %s (%s %.3f) in %d samples", v.SpeedPeak, v.Params.SpeedUnit, rel, v.Params.SpeedThreshold, v.SpeedSamples)
	}
	b.WriteString("  ")
	b.WriteString(v.Outcome.String())
	if v.Outcome != Pass && v.Reason != "" {
		b.WriteString(": ")
		if v.FirstMotion != nil && v.Outcome == Fail {
			fmt.Fprintf(&b, "first motion %.2f s into the hold: ", *v.FirstMotion)
		}
		b.WriteString(v.Reason)
	}
	return b.String()
}

func f4(x float64) string {
	if math.IsNaN(x) {
		return "nan"
	}
	return fmt.Sprintf("%.4f", x)
}

// MarshalJSON writes the verdict with its non-finite numbers (a peak nobody measured is NaN) as null:
// encoding/json refuses NaN, and a record that cannot be written would lose the whole run.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type alias Verdict
	return json.Marshal(struct {
		alias
		BoardPeak     *float64 `json:"BoardPeak"`
		FrameGap      *float64 `json:"FrameGap"`
		VibrationPeak *float64 `json:"VibrationPeak"`
		SpeedPeak     *float64 `json:"SpeedPeak"`
		From          *float64 `json:"From"`
		To            *float64 `json:"To"`
	}{alias(v), Num(v.BoardPeak), Num(v.FrameGap), Num(v.VibrationPeak), Num(v.SpeedPeak), Num(v.From), Num(v.To)})
}

// Num is x, or nil when x is not finite (JSON null).
func Num(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}
