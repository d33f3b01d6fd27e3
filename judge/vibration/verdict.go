package vibration

import (
	"fmt"
	"math"
	"strings"
)

// Outcome is a verdict's result. The zero value is Fail, so a verdict nobody filled in never passes.
type Outcome uint8

const (
	Fail    Outcome = iota // the proof ran and the stop was not shown (or could not be shown from the data)
	Pass                   // the stop was shown by the IMU
	Timeout                // the runner gave up on the path (its hard timeout); set by the runner, never by a judge
	NotRun                 // the runner could not run the path here (a hold path on a moving robot, a target without the role); never a pass
)

// String returns "FAIL", "PASS", "TIMEOUT" or "NOT RUN", the words the result line ends with.
func (o Outcome) String() string { return word(o, outcomeWords, "Outcome") }

// outcomeWords and kindWords are the words the record uses, in value order.
var (
	outcomeWords = []string{"FAIL", "PASS", "TIMEOUT", "NOT RUN"}
	kindWords    = []string{"stop", "release"}
)

// MarshalText writes the outcome as its word, so JSON records read "PASS" rather than 1.
func (o Outcome) MarshalText() ([]byte, error) { return marshalWord(o, outcomeWords, "outcome") }

// UnmarshalText reads "PASS", "FAIL" or "TIMEOUT".
func (o *Outcome) UnmarshalText(b []byte) error { return unmarshalWord(o, b, outcomeWords, "outcome") }

// word is words[v], or "Type(v)" for a value without a word.
func word[T ~uint8](v T, words []string, typ string) string {
	if int(v) < len(words) {
		return words[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// marshalWord writes v as words[v].
func marshalWord[T ~uint8](v T, words []string, what string) ([]byte, error) {
	if int(v) >= len(words) {
		return nil, fmt.Errorf("stand: unknown %s %d", what, uint8(v))
	}
	return []byte(words[v]), nil
}

// unmarshalWord reads one of words into v.
func unmarshalWord[T ~uint8](v *T, b []byte, words []string, what string) error {
	for i, w := range words {
		if string(b) == w {
			*v = T(i)
			return nil
		}
	}
	return fmt.Errorf("stand: unknown %s %q (want %s)", what, b, strings.Join(words, ", "))
}

// Kind says which question a verdict answers.
type Kind uint8

const (
	KindStop    Kind = iota // Judge: did the wheels stop after the trigger, and stay stopped?
	KindRelease             // ReleaseCheck: did the wheels turn again by themselves?
)

// String returns "stop" or "release".
func (k Kind) String() string { return word(k, kindWords, "Kind") }

// MarshalText writes the kind as its word.
func (k Kind) MarshalText() ([]byte, error) { return marshalWord(k, kindWords, "kind") }

// UnmarshalText reads "stop" or "release".
func (k *Kind) UnmarshalText(b []byte) error { return unmarshalWord(k, b, kindWords, "kind") }

// Verdict is a judge's answer with every number behind it. Times named "...From" and "...For" are seconds
// relative to Trigger; Trigger and End are on the samples' timeline. Numbers that could not be measured are
// NaN (null in JSON).
type Verdict struct {
	Kind    Kind
	Outcome Outcome
	// Reason says why the verdict is not PASS, in words for the result line ("NEVER settled in 5.0 s",
	// "not spinning before the stop (...)", ...). Empty on PASS.
	Reason string
	// Spinning: for KindStop, the median window score in the SpinWindow before the trigger; for KindRelease,
	// the median window score over [Trigger, End], no-data windows counting as no vibration.
	Spinning float64
	// StillFrom: seconds after the trigger from which every window is quiet and has data, up to End; the end
	// of the first window after the last loud (or no-data) one. NaN if never. KindStop only.
	StillFrom float64
	// WorstAfter: the loudest window score from StillFrom on (KindStop; NaN if never settled), or the loudest
	// window with data in the interval (KindRelease).
	WorstAfter float64
	// QuietFor: seconds from StillFrom to the end of the last window; 0 if never settled.
	QuietFor float64
	// QuietRule says why the quiet limit (Params.NeedQuiet) is not the default 2 s rule, for a person: the
	// result line prints it beside the quiet time, so a shorter limit is never mistaken for the 2 s rule.
	// Set by the caller that chose the limit; "" for the default.
	QuietRule string
	// HoleRestart (KindStop): the last window after the trigger that is not evidence of stillness had no data
	// (a hole in the IMU stream), not vibration: the still clock restarted for want of evidence, and nothing
	// was measured moving there. LoudUntil: seconds after the trigger at which the last loud window (with
	// data) ends; 0 if none after the trigger. Neither is in the JSON form (recordings made before them
	// re-judge to the same verdict); the reason says them in words.
	HoleRestart bool
	LoudUntil   float64
	// Trigger and End delimit the judged interval (for KindRelease: from and to).
	Trigger, End float64
	// Samples: usable samples in the judged range (KindStop: SpinWindow before the trigger to End).
	Samples int
	// Dropped: samples skipped anywhere in the input because their time or gyro x/y was not finite.
	Dropped int
	// Gap: the longest stretch without a sample inside [Trigger, End], counting from Trigger to the first
	// sample and from the last sample to End. GapFrom: where it starts, seconds after Trigger.
	Gap, GapFrom float64
	// Params are the limits the verdict was judged with, so a record shows them beside the measurements.
	Params Params
	// Windows: every window scored, in time order. For KindStop the windows ending at or before Trigger
	// measured the spinning level, the rest (all after the trigger) judged the stop.
	Windows []WindowScore
}

// Passed reports whether the outcome is Pass.
func (v Verdict) Passed() bool { return v.Outcome == Pass }

// TimedOut is the verdict for a path the runner gave up on before it could be judged: Outcome Timeout,
// nothing measured. A runner that has samples should rather Judge them and then set Outcome to Timeout, so
// the record keeps what was seen.
func TimedOut(trigger, end float64, p Params, reason string) Verdict {
	v := newVerdict(KindStop, trigger, end, p)
	v.Outcome, v.Reason = Timeout, reason
	return v
}

func newVerdict(k Kind, trigger, end float64, p Params) Verdict {
	nan := math.NaN()
	return Verdict{Kind: k, Outcome: Fail, Spinning: nan, StillFrom: nan, WorstAfter: nan, Trigger: trigger,
		End: end, Gap: nan, GapFrom: nan, Params: p}
}

// nameWidth is the seed's f'{name:34s}'.
const nameWidth = 34

// Line renders the verdict as the seed's result line, for example
//
//	estop topic, fwd 0.2               spinning 0.0056 -> still from 0.40 s on; worst after 0.0033 over 4.6 s  PASS
//	deadman (silence), fwd 0.35        spinning 0.0072 -> NEVER settled in 5.0 s  FAIL
//	LiDAR back: wheels released by themselves vibration 0.0066 (spinning > 0.0035)  PASS
//
// A verdict that is not PASS ends with its reason unless the line already says it ("FAIL: still only 2.50 s
// after the trigger (limit 2.0 s)"). Unmeasured numbers print as "nan", as the seed's did.
func (v Verdict) Line(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s ", nameWidth, name)
	said := false // the reason is already in the line
	if v.Kind == KindRelease {
		if v.Outcome == Pass {
			fmt.Fprintf(&b, "vibration %s (spinning > %s)", f4(v.Spinning), f4(v.Params.Threshold))
		} else if v.Spinning > v.Params.Threshold { // failed for another reason, which follows
			fmt.Fprintf(&b, "vibration %s (above %s)", f4(v.Spinning), f4(v.Params.Threshold))
		} else {
			fmt.Fprintf(&b, "vibration %s (not above %s)", f4(v.Spinning), f4(v.Params.Threshold))
		}
	} else {
		fmt.Fprintf(&b, "spinning %s -> ", f4(v.Spinning))
		switch {
		case isFinite(v.StillFrom):
			fmt.Fprintf(&b, "still from %.2f s on; worst after %s over %.1f s", v.StillFrom, f4(v.WorstAfter), v.QuietFor)
			if v.QuietRule != "" {
				fmt.Fprintf(&b, " (%s)", v.QuietRule)
			}
		case strings.HasPrefix(v.Reason, "NEVER settled"):
			b.WriteString(v.Reason)
			said = true
		default:
			b.WriteString("not judged")
		}
	}
	b.WriteString("  ")
	b.WriteString(v.Outcome.String())
	if v.Outcome != Pass && !said && v.Reason != "" {
		b.WriteString(": ")
		b.WriteString(v.Reason)
	}
	return b.String()
}

// f4 prints a score the seed's way: four decimals, "nan" for no number.
func f4(x float64) string {
	if math.IsNaN(x) {
		return "nan"
	}
	return fmt.Sprintf("%.4f", x)
}
