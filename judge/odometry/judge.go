package odometry

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Outcome is a leg's result. The zero value is Fail, so a verdict nobody filled in never passes.
type Outcome uint8

const (
	Fail      Outcome = iota // the stop was not shown, or the robot moved again, or it kept moving
	Pass                     // the stop was shown by the measured motion
	NotJudged                // the odometry could not see the motion judged (degenerate): refused, never "still"
	NotRun                   // a check before the leg refused it (corridor, rear not covered, odometry)
	Aborted                  // the guard stopped everything during the leg
	Timeout                  // the runner gave up on the leg (its hard timeout)
)

var outcomeWords = []string{"FAIL", "PASS", "NOT JUDGED", "NOT RUN", "ABORTED", "TIMEOUT"}

// String is the word the result line ends with.
func (o Outcome) String() string {
	if int(o) < len(outcomeWords) {
		return outcomeWords[o]
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// MarshalText writes the word, so records read "PASS".
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Odo is one odometry estimate on the judge's timeline.
type Odo struct {
	T         float64 // s: the estimate's time (mid-sweep)
	X, Y, Yaw float64 // base pose relative to the odometry's origin (m, m, rad)
	// Observable: the estimate measures motion along the direction being judged (scanmatch's
	// Estimate.Observable for the leg's direction). A degenerate estimate along it is a prediction.
	Observable bool
}

// Gyro is one gyro z reading (rad/s, counter-clockwise) on the judge's timeline.
type Gyro struct{ T, Z float64 }

// Window is the motion measured over one window.
type Window struct {
	End    float64 // s: the window's end
	Speed  float64 // m/s: planar speed, the least-squares slope of x and y against time
	VX, VY float64 // m/s: the slopes themselves (the odometry's frame)
	N      int     // estimates in it
	// Measured: enough estimates without a gap; Observable: every one of them sees the judged direction.
	Measured, Observable bool
}

// SpeedAt measures the speed over the window ending at t: the least-squares slope of the positions against
// time (gonum stat.LinearRegression) of the estimates in [t-Window, t]. That is the seed's "position change
// over WIN" with every scan's noise averaged in instead of only the two end scans'. The window is not
// measured with fewer than two estimates, a span under half the window, or a gap over MaxGap.
func SpeedAt(odo []Odo, t float64, p Params) Window {
	const eps = 0.02 // receipt jitter: an estimate 20 ms outside still belongs to the window
	w := Window{End: t, Speed: math.NaN(), Observable: true}
	var ts, xs, ys []float64
	for _, o := range odo {
		if o.T < t-p.Window-eps || o.T > t+eps {
			continue
		}
		if n := len(ts); n > 0 && o.T-ts[n-1] > p.MaxGap {
			return w
		}
		ts, xs, ys = append(ts, o.T), append(xs, o.X), append(ys, o.Y)
		w.Observable = w.Observable && o.Observable
	}
	w.N = len(ts)
	if w.N < 2 || ts[w.N-1]-ts[0] < p.Window/2 {
		return w
	}
	_, bx := stat.LinearRegression(ts, xs, nil, false)
	_, by := stat.LinearRegression(ts, ys, nil, false)
	w.Speed, w.VX, w.VY, w.Measured = math.Hypot(bx, by), bx, by, true
	return w
}

// GyroAt is the mean gyro z over [t-span, t] and whether the span holds samples without a gap.
func GyroAt(g []Gyro, t, span float64, p Params) (float64, bool) {
	var zs []float64
	last := math.NaN()
	for _, s := range g {
		if s.T < t-span || s.T > t {
			continue
		}
		if !math.IsNaN(last) && s.T-last > p.MaxGap {
			return math.NaN(), false
		}
		last = s.T
		zs = append(zs, s.Z)
	}
	if len(zs) < 2 {
		return math.NaN(), false
	}
	return stat.Mean(zs, nil), true
}

// Stop is a leg's stop verdict with every number behind it; times are seconds after the trigger, NaN when
// not measured.
type Stop struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	Turn    bool    `json:"turn"`
	// Before is the speed (m/s) or the gyro z rate (rad/s) over the window ending at the trigger.
	Before float64 `json:"before"`
	// StillAfter is the end of the first still window after the trigger (it includes the window).
	StillAfter float64 `json:"still_after_s"`
	// MovedAgain is the end of a moving window after the robot was still (NaN: none).
	MovedAgain float64 `json:"moved_again_s"`
	// AtFailAfter is the speed (or rate) measured at FailAfter after the trigger.
	AtFailAfter float64 `json:"at_fail_after"`
	// Travel is the distance (m) from the pose at the trigger to the mean pose once still (linear legs).
	Travel  float64 `json:"travel_m"`
	Samples int     `json:"samples"`
	Params  Params  `json:"params"`
}

func newStop(turn bool, p Params) Stop {
	return Stop{Turn: turn, Before: math.NaN(), StillAfter: math.NaN(), MovedAgain: math.NaN(), AtFailAfter: math.NaN(),
		Travel: math.NaN(), Params: p}
}

// JudgeStop judges a linear leg (forward, backward, strafe) from the odometry: moving before the trigger,
// still within FailAfter of it, never moving again up to end, and every window along the way observable.
// A window the odometry cannot see is never called still: the verdict is NotJudged.
func JudgeStop(odo []Odo, trig, end float64, p Params) Stop {
	v := newStop(false, p)
	// The speed before the trigger is measured over the window ending at the last estimate up to it: when
	// the trigger takes the scans away (a driver kill) the revolution under way is lost.
	tb := math.NaN()
	for _, o := range odo {
		if o.T <= trig+0.02 && !(o.T <= tb) {
			tb = o.T
		}
	}
	before := Window{Speed: math.NaN()}
	if trig-tb <= p.MaxGap {
		before = SpeedAt(odo, tb, p)
	}
	v.Before = before.Speed
	switch {
	case !before.Measured:
		v.Reason = "no measured odometry over the window before the trigger"
		return v
	case !before.Observable:
		v.Outcome, v.Reason = NotJudged, "the odometry is degenerate along the direction of travel before the trigger: its motion is a prediction"
		return v
	case before.Speed < p.Moving:
		v.Reason = fmt.Sprintf("not moving before the trigger: %.3f m/s measured, need %.2f", before.Speed, p.Moving)
		return v
	}
	stillT, lastT := math.NaN(), math.NaN()
	prevT, prevV := trig, before.Speed
	for _, o := range odo {
		if o.T <= trig || o.T > end {
			continue
		}
		v.Samples++
		w := SpeedAt(odo, o.T, p)
		if !w.Measured {
			continue
		}
		if !w.Observable {
			v.Outcome = NotJudged
			v.Reason = fmt.Sprintf("the odometry is degenerate along the direction of travel %.2f s after the trigger: refusing to call it still", o.T-trig)
			return v
		}
		if math.IsNaN(v.AtFailAfter) && o.T-trig >= p.FailAfter {
			v.AtFailAfter = w.Speed
		}
		switch {
		case math.IsNaN(stillT) && w.Speed < p.Moving:
			stillT, lastT = crossing(prevT, prevV, o.T, w.Speed, p.Moving, p.MaxGap), o.T
		case !math.IsNaN(stillT) && math.IsNaN(v.MovedAgain) && w.Speed >= p.Moving && o.T >= lastT+p.Window:
			v.MovedAgain = o.T - trig // a window of its own, not sharing a scan with the first still one
		}
		prevT, prevV = o.T, w.Speed
	}
	if !math.IsNaN(stillT) {
		v.StillAfter = stillT - trig
		v.Travel = travel(odo, trig, stillT, end, before, tb, p)
	}
	v.Outcome, v.Reason = decide(v, trig, stillT, end, p)
	return v
}

// JudgeTurn judges a turn from the gyro: turning (mean z over Window) before the trigger, mean z over
// GyroWindow below Turning within FailAfter, and never turning again up to end.
func JudgeTurn(g []Gyro, trig, end float64, p Params) Stop {
	v := newStop(true, p)
	before, ok := GyroAt(g, trig, p.Window, p)
	v.Before = before
	switch {
	case !ok:
		v.Reason = "no gyro samples over the window before the trigger"
		return v
	case math.Abs(before) < p.Turning:
		v.Reason = fmt.Sprintf("not turning before the trigger: gyro z %.3f rad/s, need %.2f", before, p.Turning)
		return v
	}
	stillT, lastT := math.NaN(), math.NaN()
	prevT, prevZ := trig, math.Abs(before)
	for _, s := range g {
		if s.T <= trig || s.T > end {
			continue
		}
		v.Samples++
		z, ok := GyroAt(g, s.T, p.GyroWindow, p)
		if !ok {
			continue
		}
		if math.IsNaN(v.AtFailAfter) && s.T-trig >= p.FailAfter {
			v.AtFailAfter = z
		}
		switch {
		case math.IsNaN(stillT) && math.Abs(z) < p.Turning:
			stillT, lastT = crossing(prevT, prevZ, s.T, math.Abs(z), p.Turning, p.MaxGap), s.T
		case !math.IsNaN(stillT) && math.IsNaN(v.MovedAgain) && math.Abs(z) >= p.Turning && s.T >= lastT+p.GyroWindow:
			v.MovedAgain = s.T - trig
		}
		prevT, prevZ = s.T, math.Abs(z)
	}
	if !math.IsNaN(stillT) {
		v.StillAfter = stillT - trig
	}
	v.Outcome, v.Reason = decide(v, trig, stillT, end, p)
	return v
}

// crossing is where the measured level crosses thr between two windows' ends (t0, v0 >= thr) and (t1, v1 <
// thr), by linear interpolation: the scans come at 10 Hz, and a stop time on their grid would be up to 0.1 s
// late (the deadman at 0.2 m/s sits about 0.1 s under the 0.8 s rule). Across a gap longer than maxGap
// nothing is interpolated: the crossing is the first window after it.
func crossing(t0, v0, t1, v1, thr, maxGap float64) float64 {
	if !(v0 > v1) || v0 < thr || t1-t0 > maxGap {
		return t1
	}
	return t0 + (v0-thr)/(v0-v1)*(t1-t0)
}

// decide applies the seed's rules to a verdict's numbers.
func decide(v Stop, trig, stillT, end float64, p Params) (Outcome, string) {
	win := p.Window
	if v.Turn {
		win = p.GyroWindow
	}
	switch {
	case math.IsNaN(stillT):
		return Fail, fmt.Sprintf("STILL MOVING %.1f s after the stop: never measured still in the %.1f s after the trigger", p.FailAfter, end-trig)
	case v.StillAfter > p.FailAfter+1e-9:
		return Fail, fmt.Sprintf("STILL MOVING %.1f s after the stop: still only after %.2f s", p.FailAfter, v.StillAfter)
	case !math.IsNaN(v.MovedAgain):
		return Fail, fmt.Sprintf("MOVED AGAIN after stopping: moving %.2f s after the trigger", v.MovedAgain)
	case end-stillT < win:
		return Fail, fmt.Sprintf("still only %.2f s before the recording ends: no window of its own after it", end-stillT)
	}
	return Pass, ""
}

// travel is the distance from the pose at the trigger to the mean pose of the estimates from stillT to end:
// the stopping distance, with the noise of the rest averaged. The pose at the trigger is interpolated
// between the estimates around it, or, across a gap (the scans taken away by the trigger), carried on from
// the last estimate before it (tb) with the velocity measured before it.
func travel(odo []Odo, trig, stillT, end float64, before Window, tb float64, p Params) float64 {
	x0, y0, ok := poseAt(odo, trig, p.MaxGap)
	if !ok && before.Measured {
		if xb, yb, okb := poseAt(odo, tb, p.MaxGap); okb || exactly(odo, tb, &xb, &yb) {
			x0, y0, ok = xb+before.VX*(trig-tb), yb+before.VY*(trig-tb), true
		}
	}
	if !ok {
		return math.NaN()
	}
	var xs, ys []float64
	for _, o := range odo {
		if o.T >= stillT && o.T <= end {
			xs, ys = append(xs, o.X), append(ys, o.Y)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return math.Hypot(stat.Mean(xs, nil)-x0, stat.Mean(ys, nil)-y0)
}

// exactly finds the estimate at time t.
func exactly(odo []Odo, t float64, x, y *float64) bool {
	for _, o := range odo {
		if o.T == t {
			*x, *y = o.X, o.Y
			return true
		}
	}
	return false
}

// poseAt interpolates the position at t between the estimates around it, when they are at most maxGap apart.
func poseAt(odo []Odo, t, maxGap float64) (x, y float64, ok bool) {
	for i := 1; i < len(odo); i++ {
		a, b := odo[i-1], odo[i]
		if a.T <= t && t <= b.T && b.T > a.T && b.T-a.T <= maxGap {
			f := (t - a.T) / (b.T - a.T)
			return a.X + f*(b.X-a.X), a.Y + f*(b.Y-a.Y), true
		}
	}
	return 0, 0, false
}

// Line is the seed's result line: "estop fwd 0.2 before: 0.19 m/s measured; measured still after 0.38 s;
// travel after the trigger: LiDAR 3.1 cm PASS".
func (v Stop) Line(name string) string {
	before := "turning"
	if !v.Turn {
		before = fmt.Sprintf("%.2f m/s measured", v.Before)
	}
	if math.IsNaN(v.Before) {
		before = "not measured"
	}
	still := "never measured still"
	if !math.IsNaN(v.StillAfter) {
		still = fmt.Sprintf("measured still after %.2f s", v.StillAfter)
	}
	s := fmt.Sprintf("%s before: %s; %s;", name, before, still)
	if !v.Turn && !math.IsNaN(v.Travel) {
		s += fmt.Sprintf(" travel after the trigger: LiDAR %.1f cm", 100*v.Travel)
	}
	s += " " + v.Outcome.String()
	if v.Reason != "" {
		s += " - " + v.Reason
	}
	return s
}

// MarshalJSON writes NaN numbers as null (encoding/json refuses NaN, and the record would be lost).
func (v Stop) MarshalJSON() ([]byte, error) {
	type plain struct {
		Outcome     Outcome  `json:"outcome"`
		Reason      string   `json:"reason,omitempty"`
		Turn        bool     `json:"turn"`
		Before      *float64 `json:"before"`
		StillAfter  *float64 `json:"still_after_s"`
		MovedAgain  *float64 `json:"moved_again_s"`
		AtFailAfter *float64 `json:"at_fail_after"`
		Travel      *float64 `json:"travel_m"`
		Samples     int      `json:"samples"`
		Params      Params   `json:"params"`
	}
	return json.Marshal(plain{v.Outcome, v.Reason, v.Turn, Num(v.Before), Num(v.StillAfter), Num(v.MovedAgain),
		Num(v.AtFailAfter), Num(v.Travel), v.Samples, v.Params})
}

// Num is x for a JSON record, nil (null) when it is NaN or infinite.
func Num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
