package still

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rosorin/rosorin/judge/vibration"
)

// eps absorbs float rounding in window ends (sums of Window and Step multiples).
const eps = 1e-9

// Judge decides whether the robot stayed still over the hold [from, to]: the board told no motion and nothing
// measured moved. Inputs may be unsorted and hold non-finite numbers (skipped, counted in Dropped, and then
// never a PASS). The outcome, in order of precedence:
//
//   - FAIL "bad judge parameters: ..." or "bad time range: ...";
//   - NOT RUN "moving at the start of the hold: ..." when the frame held at from commands motion, or the first
//     vibration window (ending from+Window) is loud or a Speed sample within StartWindow is fast, unless the
//     board was told to move after from by then (that is a FAIL);
//   - FAIL naming the first motion: "the board was told 0.20 m/s forward at 1.35 s (0.47 s into the hold)",
//     "vibration 0.0061 rad/s over the window ending 1.40 s (0.52 s into the hold)", "speed 0.060 m/s at 1.40 s
//     (...)";
//   - NO DATA naming the hole: no frame at or before from, non-finite numbers, a vibration window with too few
//     samples, a hold shorter than one window, a gap in the speed samples or (MaxFrameGap) the frames;
//   - PASS.
func Judge(in Input, from, to float64, p Params) Verdict {
	v := Verdict{From: from, To: to, Params: p, VibrationPeak: math.NaN(), SpeedPeak: math.NaN()}
	if err := p.Validate(); err != nil {
		v.Reason = "bad judge parameters: " + err.Error()
		return v
	}
	if !finite(from) || !finite(to) || !(to > from) {
		v.Reason = fmt.Sprintf("bad time range: from %v, to %v (to must be a number after from)", from, to)
		return v
	}
	at := func(t float64) string { return fmt.Sprintf("%.2f s (%.2f s into the hold)", t, t-from) }
	var holes, motions []string
	var startMoving string

	// The board.
	frames, bad := CleanFrames(in.Frames)
	v.Dropped += bad
	if bad > 0 {
		holes = append(holes, fmt.Sprintf("%d frames with a non-finite number", bad))
	}
	h := HeldAt(frames, from)
	if h < 0 {
		holes = append(holes, fmt.Sprintf("no frame at or before the start of the hold (%.2f s): what the board held is unknown", from))
	} else {
		f := frames[h]
		v.Frames, v.BoardPeak = 1, f.Peak()
		if f.Moving(p.Epsilon) {
			v.MovingFrames, v.BoardFirst = 1, f
			startMoving = fmt.Sprintf("the board was told %s at %.2f s and held it into the hold", f, f.T)
		}
	}
	for _, f := range frames[h+1:] {
		if f.T > to {
			break
		}
		v.Frames++
		v.BoardPeak = max(v.BoardPeak, f.Peak())
		if f.Moving(p.Epsilon) {
			v.MovingFrames++
			if v.BoardMotion == nil && startMoving == "" {
				d := f.T - from
				v.BoardMotion, v.BoardFirst = &d, f
				motions = append(motions, fmt.Sprintf("the board was told %s at %s", f, at(f.T)))
			}
		}
	}
	if p.MaxFrameGap > 0 {
		gap, gapAt := LongestSilence(frames, from, to)
		v.FrameGap = gap
		if gap > p.MaxFrameGap {
			holes = append(holes, fmt.Sprintf("no frame for %.2f s from %.2f s (limit %.2f s)", gap, gapAt, p.MaxFrameGap))
		}
	}
	boardBy := func(t float64) bool { return v.BoardMotion != nil && from+*v.BoardMotion <= t+eps }

	// The gyro, on judge/vibration's windows.
	if len(in.Gyro) > 0 {
		vp := p.Vibration
		bad := 0
		for _, s := range in.Gyro {
			if !finite(s.T) || !finite(s.GyroX) || !finite(s.GyroY) {
				bad++
			}
		}
		v.Dropped += bad
		if bad > 0 {
			holes = append(holes, fmt.Sprintf("%d gyro samples with a non-finite number", bad))
		}
		ws := vibration.WindowsBetween(in.Gyro, from, to, vp)
		if len(ws) == 0 {
			holes = append(holes, fmt.Sprintf("no vibration window fits the hold of %.2f s (one window is %.2f s)", to-from, vp.Window))
		}
		for i, w := range ws {
			if w.NoData {
				if v.NoDataWindows == 0 {
					holes = append(holes, fmt.Sprintf("only %d gyro samples in the window ending %.2f s (need %d)", w.N, w.End, vp.MinSamples))
				}
				v.NoDataWindows++
				continue
			}
			v.Windows++
			if math.IsNaN(v.VibrationPeak) || w.Score > v.VibrationPeak {
				v.VibrationPeak = w.Score
			}
			if !(w.Score >= vp.Threshold) {
				continue
			}
			v.LoudWindows++
			if v.LoudWindows > 1 {
				continue
			}
			what := fmt.Sprintf("vibration %.4f rad/s over the window ending %s", w.Score, at(w.End))
			if i == 0 && startMoving == "" && !boardBy(w.End) {
				startMoving = what
			} else if startMoving == "" {
				d := w.End - from
				v.MeasuredMotion = &d
				motions = append(motions, what)
			}
		}
	}

	// Speed samples.
	if len(in.Speed) > 0 {
		s := make([]Speed, 0, len(in.Speed))
		for _, x := range in.Speed {
			if finite(x.T) && finite(x.V) {
				s = append(s, x)
			}
		}
		if bad := len(in.Speed) - len(s); bad > 0 {
			v.Dropped += bad
			holes = append(holes, fmt.Sprintf("%d speed samples with a non-finite number", bad))
		}
		sort.SliceStable(s, func(i, j int) bool { return s[i].T < s[j].T })
		last, gap, gapAt := from, 0.0, from
		for _, x := range s {
			if x.T < from || x.T > to {
				continue
			}
			if x.T-last > gap {
				gap, gapAt = x.T-last, last
			}
			last = x.T
			v.SpeedSamples++
			a := math.Abs(x.V)
			if math.IsNaN(v.SpeedPeak) || a > v.SpeedPeak {
				v.SpeedPeak = a
			}
			if !(a >= p.SpeedThreshold) {
				continue
			}
			v.FastSamples++
			if v.FastSamples > 1 {
				continue
			}
			what := fmt.Sprintf("speed %.3f %s at %s", a, p.SpeedUnit, at(x.T))
			if x.T <= from+p.StartWindow+eps && startMoving == "" && !boardBy(x.T) {
				startMoving = what
			} else if startMoving == "" && (v.MeasuredMotion == nil || x.T-from < *v.MeasuredMotion) {
				d := x.T - from
				v.MeasuredMotion = &d
				motions = append(motions, what)
			} else if startMoving == "" {
				motions = append(motions, what)
			}
		}
		if to-last > gap {
			gap, gapAt = to-last, last
		}
		if v.SpeedSamples == 0 {
			holes = append(holes, fmt.Sprintf("no speed samples in the hold (%d given)", len(in.Speed)))
		} else if gap > p.SpeedMaxGap {
			holes = append(holes, fmt.Sprintf("no speed sample for %.2f s from %.2f s (limit %.2f s)", gap, gapAt, p.SpeedMaxGap))
		}
	}

	switch {
	case startMoving != "":
		v.Outcome, v.Reason = NotRun, "moving at the start of the hold: "+startMoving
		v.BoardMotion, v.MeasuredMotion = nil, nil
	case len(motions) > 0:
		v.Outcome, v.Reason = Fail, strings.Join(motions, "; ")
		if len(holes) > 0 {
			v.Reason += "; the evidence also has a hole: " + strings.Join(holes, "; ")
		}
		v.FirstMotion = v.BoardMotion
		if v.MeasuredMotion != nil && (v.FirstMotion == nil || *v.MeasuredMotion < *v.FirstMotion) {
			v.FirstMotion = v.MeasuredMotion
		}
	case len(holes) > 0:
		v.Outcome, v.Reason = NoData, strings.Join(holes, "; ")
	default:
		v.Outcome = Pass
	}
	return v
}
