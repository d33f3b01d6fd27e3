package ramp

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rosorin/rosorin/judge/still"
)

// Twist is a body velocity: VX and VY in m/s (forward, left), WZ in rad/s (counterclockwise).
type Twist struct{ VX, VY, WZ float64 }

// String names the twist in judge/still's words ("0.20 m/s forward").
func (w Twist) String() string { return still.Frame{VX: w.VX, VY: w.VY, WZ: w.WZ}.String() }

// Accel is one measured body acceleration sample (the floor's IMU): X forward, Y left, in m/s², gravity and
// bias removed, filtered by the caller.
type Accel struct{ T, X, Y float64 }

// Input is the evidence and the moments of one resume.
type Input struct {
	Frames  []still.Frame // what the board was told; sample-and-hold, reaching back to E
	Enable  float64       // E: the deliberate enable
	Command float64       // C: the first send, at or after E, of the command judged
	Target  Twist         // that command as the gate can reach it (clamped to the speed limits)
	To      float64       // end of the judged interval, before the command changes
	Accel   []Accel       // optional measured acceleration
}

// Params are the judge's limits. The zero value is invalid; start from DefaultParams.
type Params struct {
	// MaxAccelLinear (m/s²) and MaxAccelAngular (rad/s²): the robot's ramps, 0.5 and 2.0
	// (driver/motion.DefaultLimits, driver/config's max_accel_linear and max_accel_angular).
	MaxAccelLinear, MaxAccelAngular float64
	// Tick (s): the control tick, 0.02 s at 50 Hz; the first ramp step may land one tick after the command.
	Tick float64
	// TimeTol (s): timing tolerance of the shared timeline, 0.05 s.
	TimeTol float64
	// TargetTol (m/s or rad/s): how far beyond the target (or zero) a frame may be, and how close counts as
	// reached. 0.01: one ramp step at 0.5 m/s² and 50 Hz.
	TargetTol float64
	// ReachSlack (s): the target must be reached within the ramp time + Tick + TimeTol + this. 0.5 s.
	ReachSlack float64
	// Epsilon: a frame component above it commands motion (the before check). 1e-3, as judge/still.
	Epsilon float64
	// MaxFrameGap (s): 0 for a complete record of the board's frames; else a longer silence is a hole.
	MaxFrameGap float64
	// AccelFactor and AccelNoise: the measured acceleration limit per axis is MaxAccelLinear x AccelFactor +
	// AccelNoise (m/s²): 2 and 0.3. AccelMaxGap (s): a longer stretch without a sample is a hole, 0.1 s.
	AccelFactor, AccelNoise, AccelMaxGap float64
}

// DefaultParams returns the robot's defaults above.
func DefaultParams() Params {
	return Params{MaxAccelLinear: 0.5, MaxAccelAngular: 2.0, Tick: 0.02, TimeTol: 0.05, TargetTol: 0.01,
		ReachSlack: 0.5, Epsilon: 1e-3, AccelFactor: 2, AccelNoise: 0.3, AccelMaxGap: 0.1}
}

// Validate says what is wrong with p, or nil.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"MaxAccelLinear", p.MaxAccelLinear}, {"MaxAccelAngular", p.MaxAccelAngular}, {"Tick", p.Tick},
		{"TargetTol", p.TargetTol}, {"Epsilon", p.Epsilon}, {"AccelFactor", p.AccelFactor}, {"AccelMaxGap", p.AccelMaxGap}} {
		if !finite(f.v) || f.v <= 0 {
			return fmt.Errorf("ramp: %s %v must be a positive number (start from DefaultParams)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"TimeTol", p.TimeTol}, {"ReachSlack", p.ReachSlack}, {"MaxFrameGap", p.MaxFrameGap}, {"AccelNoise", p.AccelNoise}} {
		if !finite(f.v) || f.v < 0 {
			return fmt.Errorf("ramp: %s %v must be a finite number >= 0 (start from DefaultParams)", f.name, f.v)
		}
	}
	return nil
}

// Check names one of the judge's checks.
type Check uint8

const (
	CheckBefore Check = iota // moved before any command after the enable
	CheckRamp                // faster than the ramp from zero allows: a stored speed
	CheckBurst               // above the command, or the wrong way
	CheckReach               // the target was not reached in time: the resume did not happen
	CheckAccel               // measured acceleration above the limit
)

var checkWords = []string{"before", "ramp", "burst", "reach", "accel"}

// String returns "before", "ramp", "burst", "reach" or "accel".
func (c Check) String() string {
	if int(c) < len(checkWords) {
		return checkWords[c]
	}
	return fmt.Sprintf("Check(%d)", uint8(c))
}

// Broken is one broken check: which, when (seconds after C; negative before it) and in words.
type Broken struct {
	Check Check
	At    float64
	Text  string
}

// Verdict is Judge's answer with the numbers behind it.
type Verdict struct {
	Outcome still.Outcome
	// Reason: the broken checks' texts, or the hole in the evidence, or the bad input. Empty on PASS.
	Reason string
	// Broken: every broken check, the first breach of each, in check order.
	Broken              []Broken
	Enable, Command, To float64
	Target              Twist
	RampTime            float64  // s the ramp takes from zero to the target on its slowest axis
	Deadline            float64  // s after C by which the target must be reached
	Reached             *float64 // s after C when every axis first came within TargetTol of the target; nil if never
	Peak                float64  // largest frame component held in [E, To] (m/s or rad/s)
	Frames              int      // frames held in [E, To] (the one held at E and those after)
	FrameGap            float64  // longest silence, when MaxFrameGap is set
	AccelSamples        int      // accel samples judged
	AccelPeak, AccelLim float64  // largest |X| or |Y| (NaN if none) and the limit
	Dropped             int      // frames and samples skipped for a non-finite number
	Params              Params
}

// Passed reports whether the outcome is Pass.
func (v Verdict) Passed() bool { return v.Outcome == still.Pass }

// Failed reports whether check c is broken.
func (v Verdict) Failed(c Check) bool {
	for _, b := range v.Broken {
		if b.Check == c {
			return true
		}
	}
	return false
}

const eps = 1e-9

// Judge checks the resume described by in: before, ramp, burst, reach and (with Accel samples) accel, as the
// package doc says. The outcome is FAIL "bad ..." for unusable parameters or moments, FAIL with every broken
// check, NO DATA for a hole in the evidence (non-finite numbers, no frame at or before E, a frame or accel gap,
// a record that ends before the reach deadline), or PASS.
func Judge(in Input, p Params) Verdict {
	e, c, to := in.Enable, in.Command, in.To
	v := Verdict{Enable: e, Command: c, To: to, Target: in.Target, Params: p, AccelPeak: math.NaN()}
	if err := p.Validate(); err != nil {
		v.Reason = "bad judge parameters: " + err.Error()
		return v
	}
	if !finite(e) || !finite(c) || !finite(to) || !(e <= c) || !(c < to) {
		v.Reason = fmt.Sprintf("bad moments: enable %v, command %v, to %v (want enable <= command < to)", e, c, to)
		return v
	}
	tg := in.Target
	if !finite(tg.VX) || !finite(tg.VY) || !finite(tg.WZ) {
		v.Reason = fmt.Sprintf("bad target %+v", tg)
		return v
	}
	acc := [3]float64{p.MaxAccelLinear, p.MaxAccelLinear, p.MaxAccelAngular}
	tv := [3]float64{tg.VX, tg.VY, tg.WZ}
	for i := range tv {
		v.RampTime = max(v.RampTime, math.Abs(tv[i])/acc[i])
	}
	v.Deadline = v.RampTime + p.Tick + p.TimeTol + p.ReachSlack
	var holes []string
	seen := map[Check]bool{}
	brk := func(ch Check, at float64, format string, args ...any) {
		if !seen[ch] {
			seen[ch] = true
			v.Broken = append(v.Broken, Broken{ch, at, fmt.Sprintf(format, args...)})
		}
	}
	axis := func(i int, x float64) string {
		var w [3]float64
		w[i] = x
		return Twist{w[0], w[1], w[2]}.String()
	}
	unit := func(i int) string { return [3]string{"m/s", "m/s", "rad/s"}[i] }

	frames, bad := still.CleanFrames(in.Frames)
	v.Dropped += bad
	if bad > 0 {
		holes = append(holes, fmt.Sprintf("%d frames with a non-finite number", bad))
	}
	h := still.HeldAt(frames, e)
	if h < 0 {
		holes = append(holes, fmt.Sprintf("no frame at or before the enable (%.2f s): what the board held is unknown", e))
		h = sort.Search(len(frames), func(i int) bool { return frames[i].T > e })
	}
	atTarget := func(f still.Frame) bool {
		return math.Abs(f.VX-tg.VX) <= p.TargetTol+eps && math.Abs(f.VY-tg.VY) <= p.TargetTol+eps &&
			math.Abs(f.WZ-tg.WZ) <= p.TargetTol+eps
	}
	if hc := still.HeldAt(frames, c); hc >= 0 && hc >= h && atTarget(frames[hc]) {
		r := 0.0
		v.Reached = &r
	}
	for _, f := range frames[h:] {
		if f.T > to {
			break
		}
		te := max(f.T, e) // the frame held at E counts from E
		v.Frames++
		v.Peak = max(v.Peak, f.Peak())
		vals := [3]float64{f.VX, f.VY, f.WZ}
		if te < c {
			if f.Moving(p.Epsilon) {
				brk(CheckBefore, te-c, "moved before any command after the enable: the board was told %s at %.2f s (%.2f s after the enable, %.2f s before the command)",
					f, f.T, te-e, c-te)
			}
			continue
		}
		dt := te - c
		for i, x := range vals {
			if allow := acc[i] * (dt + p.Tick + p.TimeTol); math.Abs(x) > allow+eps {
				brk(CheckRamp, dt, "jumped to %s %.2f s after the first command: the ramp allows %.3f %s: a stored speed",
					axis(i, x), dt, allow, unit(i))
			}
			if lo, hi := min(0, tv[i])-p.TargetTol, max(0, tv[i])+p.TargetTol; x < lo-eps || x > hi+eps {
				brk(CheckBurst, dt, "burst: %s at %.2f s (%.2f s after the first command), outside zero to the command's %s (tolerance %.3f %s)",
					axis(i, x), f.T, dt, axis(i, tv[i]), p.TargetTol, unit(i))
			}
		}
		if v.Reached == nil && atTarget(f) {
			v.Reached = &dt
		}
	}
	if p.MaxFrameGap > 0 {
		gap, gapAt := still.LongestSilence(frames, e, to)
		v.FrameGap = gap
		if gap > p.MaxFrameGap {
			holes = append(holes, fmt.Sprintf("no frame for %.2f s from %.2f s (limit %.2f s)", gap, gapAt, p.MaxFrameGap))
		}
	}
	switch {
	case v.Reached != nil && *v.Reached <= v.Deadline+eps:
	case v.Reached != nil:
		brk(CheckReach, *v.Reached, "reached %s only %.2f s after the first command (the ramp takes %.2f s, limit %.2f s)",
			tg, *v.Reached, v.RampTime, v.Deadline)
	case to < c+v.Deadline:
		holes = append(holes, fmt.Sprintf("the record ends at %.2f s, %.2f s after the first command, before %s could be reached (limit %.2f s)",
			to, to-c, tg, v.Deadline))
	default:
		brk(CheckReach, v.Deadline, "never reached %s within %.2f s of the first command (peak %.3f): the resume did not happen",
			tg, v.Deadline, v.Peak)
	}

	if len(in.Accel) > 0 {
		v.AccelLim = p.MaxAccelLinear*p.AccelFactor + p.AccelNoise
		end := min(to, c+v.Deadline)
		s := make([]Accel, 0, len(in.Accel))
		for _, a := range in.Accel {
			if finite(a.T) && finite(a.X) && finite(a.Y) {
				s = append(s, a)
			}
		}
		if bad := len(in.Accel) - len(s); bad > 0 {
			v.Dropped += bad
			holes = append(holes, fmt.Sprintf("%d accel samples with a non-finite number", bad))
		}
		sort.SliceStable(s, func(i, j int) bool { return s[i].T < s[j].T })
		last, gap, gapAt := e, 0.0, e
		for _, a := range s {
			if a.T < e || a.T > end {
				continue
			}
			if a.T-last > gap {
				gap, gapAt = a.T-last, last
			}
			last = a.T
			v.AccelSamples++
			m := max(math.Abs(a.X), math.Abs(a.Y))
			if math.IsNaN(v.AccelPeak) || m > v.AccelPeak {
				v.AccelPeak = m
			}
			if m > v.AccelLim {
				brk(CheckAccel, a.T-c, "measured acceleration %.2f m/s² at %.2f s (%.2f s after the first command), above %.2f m/s² (%.1f x %.2f + %.2f)",
					m, a.T, a.T-c, v.AccelLim, p.AccelFactor, p.MaxAccelLinear, p.AccelNoise)
			}
		}
		if end-last > gap {
			gap, gapAt = end-last, last
		}
		if gap > p.AccelMaxGap {
			holes = append(holes, fmt.Sprintf("no accel sample for %.2f s from %.2f s (limit %.2f s)", gap, gapAt, p.AccelMaxGap))
		}
	}

	switch {
	case len(v.Broken) > 0:
		sort.SliceStable(v.Broken, func(i, j int) bool { return v.Broken[i].Check < v.Broken[j].Check })
		texts := make([]string, len(v.Broken))
		for i, b := range v.Broken {
			texts[i] = b.Text
		}
		v.Outcome, v.Reason = still.Fail, strings.Join(texts, "; ")
		if len(holes) > 0 {
			v.Reason += "; the evidence also has a hole: " + strings.Join(holes, "; ")
		}
	case len(holes) > 0:
		v.Outcome, v.Reason = still.NoData, strings.Join(holes, "; ")
	default:
		v.Outcome = still.Pass
	}
	return v
}

// nameWidth is judge/vibration's result-line name column.
const nameWidth = 34

// Line renders the verdict as one result line, for example
//
//	resume after e-stop reset, fwd 0.2 command 0.10 s after the enable, target 0.20 m/s forward: reached in 0.42 s (ramp 0.40 s, limit 0.97 s), peak 0.200  PASS
//
// A verdict that is not PASS ends with its reason.
func (v Verdict) Line(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s command %.2f s after the enable, target %s: ", nameWidth, name, v.Command-v.Enable, v.Target)
	if v.Reached != nil {
		fmt.Fprintf(&b, "reached in %.2f s", *v.Reached)
	} else {
		b.WriteString("not reached")
	}
	fmt.Fprintf(&b, " (ramp %.2f s, limit %.2f s), peak %.3f", v.RampTime, v.Deadline, v.Peak)
	if v.AccelSamples > 0 {
		fmt.Fprintf(&b, ", accel peak %.2f m/s² (limit %.2f)", v.AccelPeak, v.AccelLim)
	}
	b.WriteString("  ")
	b.WriteString(v.Outcome.String())
	if v.Outcome != still.Pass && v.Reason != "" {
		b.WriteString(": ")
		b.WriteString(v.Reason)
	}
	return b.String()
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// MarshalJSON writes the verdict with its non-finite numbers (no acceleration measured: NaN) as null:
// encoding/json refuses NaN, and a record that cannot be written would lose the whole run.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type alias Verdict
	return json.Marshal(struct {
		alias
		Enable    *float64 `json:"Enable"`
		Command   *float64 `json:"Command"`
		To        *float64 `json:"To"`
		RampTime  *float64 `json:"RampTime"`
		Deadline  *float64 `json:"Deadline"`
		Peak      *float64 `json:"Peak"`
		FrameGap  *float64 `json:"FrameGap"`
		AccelPeak *float64 `json:"AccelPeak"`
		AccelLim  *float64 `json:"AccelLim"`
	}{alias(v), still.Num(v.Enable), still.Num(v.Command), still.Num(v.To), still.Num(v.RampTime), still.Num(v.Deadline),
		still.Num(v.Peak), still.Num(v.FrameGap), still.Num(v.AccelPeak), still.Num(v.AccelLim)})
}
