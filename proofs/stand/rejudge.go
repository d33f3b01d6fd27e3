package stand

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/proofrec"
)

// Rejudged is a recorded run judged again offline by the live run's judges.
type Rejudged struct {
	// Report is the run's record with every judged line replaced by its re-judged result; for a recording
	// cut before its record was attached, a report built from the recorded events.
	Report *Report
	// Recorded says whether the run's JSON record was in the recording (false: events only).
	Recorded bool
	// Judged lines were judged again; Copied lines are as recorded (TIMEOUT, or a failure before the judge).
	Judged, Copied int
	// Samples is how many IMU samples the judges read.
	Samples int
	// Span is the run's time the judged lines cover (s): the sum of each judge's interval plus its spin
	// window, for the speed ratio.
	Span float64
	// Differences lists every line whose re-judged verdict or time is not the live run's (empty: the same).
	Differences []string
	// Ended is how the file ended ("" complete; else why the read stopped).
	Ended string
}

// Rejudge judges the recorded run f again with stand.Judge and stand.ReleaseCheck, on the recorded samples
// and the recorded times and limits, and compares each line with what the live run said.
func Rejudge(f *proofrec.File) (*Rejudged, error) {
	out := &Rejudged{}
	if f.Walk.Cut != nil {
		out.Ended = fmt.Sprintf("cut after byte %d (%v): what follows is lost", f.Walk.Good, f.Walk.Cut)
	}
	var rep Report
	if f.Record != nil {
		if err := json.Unmarshal(f.Record, &rep); err != nil {
			return nil, fmt.Errorf("the recorded JSON record does not parse: %w", err)
		}
		out.Recorded = true
	}
	events := map[int]ResultEvent{}
	maxIndex := -1
	for _, m := range f.Events {
		var e ResultEvent
		if json.Unmarshal([]byte(m.Text), &e) != nil || e.Event != "result" {
			continue
		}
		if e.Index < 0 || e.Index > 1<<16 {
			return nil, fmt.Errorf("result event with index %d: not a proof recording", e.Index)
		}
		events[e.Index] = e
		maxIndex = max(maxIndex, e.Index)
	}
	inputs := make([]JudgeInput, 0, len(f.Inputs))
	for i, m := range f.Inputs {
		var in JudgeInput
		dec := json.NewDecoder(strings.NewReader(m.Text))
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("judge input %d does not parse: %w", i+1, err)
		}
		if in.Index < 0 || in.Index > 1<<16 {
			return nil, fmt.Errorf("judge input %d: index %d out of range", i+1, in.Index)
		}
		inputs = append(inputs, in)
		maxIndex = max(maxIndex, in.Index)
	}
	sort.SliceStable(inputs, func(i, j int) bool { return inputs[i].Index < inputs[j].Index })

	if !out.Recorded {
		rep = Report{Head: runcore.Head{Tool: "stopproof judge", Target: f.Meta["kind"]}}
		rep.Results = make([]Result, maxIndex+1)
		for i := range rep.Results {
			e, ok := events[i]
			if !ok {
				rep.Results[i] = Result{Outcome: vibration.Fail, Reason: "not in the recording", StopS: math.NaN(), TriggerS: math.NaN()}
				continue
			}
			rep.Results[i] = Result{Path: e.Path, Motion: e.Motion, Name: e.Name, Release: e.Release, Outcome: e.Outcome,
				Reason: e.Reason, StopS: unnum(e.StopS), TriggerS: math.NaN(), Line: e.Line}
		}
		for _, x := range rep.Results {
			if x.Path != "" && !slices.Contains(rep.Paths, string(x.Path)) {
				rep.Paths = append(rep.Paths, string(x.Path))
			}
		}
		rep.Planned = len(rep.Results)
	}
	live := append([]Result(nil), rep.Results...)
	judged := make([]bool, len(rep.Results))
	stopPassed := map[int]bool{}
	for _, in := range inputs {
		if in.Index >= len(rep.Results) {
			rep.Results = append(rep.Results, make([]Result, in.Index+1-len(rep.Results))...)
			live = append(live, make([]Result, in.Index+1-len(live))...)
			judged = append(judged, make([]bool, in.Index+1-len(judged))...)
		}
		if err := in.bounded(); err != nil {
			return nil, fmt.Errorf("judge input %d (%s): %w", in.Index, in.Name, err)
		}
		pts, err := f.Samples(in.IMUFirst, in.IMUCount)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		samples := make([]vibration.Sample, len(pts))
		for i, s := range pts {
			samples[i] = vibration.Sample{T: s.T, GyroX: s.Gyro[0], GyroY: s.Gyro[1], GyroZ: s.Gyro[2]}
		}
		out.Samples += len(samples)
		res := rejudgeOne(in, samples, stopPassed)
		if in.Kind == vibration.KindStop {
			stopPassed[in.Index] = res.Outcome == vibration.Pass
			out.Span += in.To - in.From + in.Params.SpinWindow
		} else {
			out.Span += in.To - in.From
		}
		old := live[in.Index]
		res.TriggerAt, res.IMULag, res.SourceLine, res.Notes = old.TriggerAt, old.IMULag, old.SourceLine, old.Notes
		if old.IMUSource != "" {
			res.IMUSource = old.IMUSource
		}
		if d := differs(old, res, out.Recorded, events[in.Index]); d != "" {
			out.Differences = append(out.Differences, fmt.Sprintf("%s: %s", res.Name, d))
		}
		rep.Results[in.Index] = res
		judged[in.Index] = true
		out.Judged++
	}
	for i, j := range judged {
		if !j {
			out.Copied++
			// Only a judge passes a line: a PASS without its judge input cannot be re-judged (a cut file).
			if x := rep.Results[i]; x.Outcome == vibration.Pass {
				out.Differences = append(out.Differences, fmt.Sprintf("%s: PASS in the record, but its judge input is not in the recording: not re-judged", x.Name))
			}
		}
	}
	rep.Passed = 0
	for _, x := range rep.Results {
		if x.Outcome == vibration.Pass {
			rep.Passed++
		}
	}
	out.Report = &rep
	return out, nil
}

// rejudgeOne calls the judge the input names and builds the line as the live run did.
func rejudgeOne(in JudgeInput, samples []vibration.Sample, stopPassed map[int]bool) Result {
	var v vibration.Verdict
	if in.Kind == vibration.KindRelease {
		v = vibration.ReleaseCheck(samples, in.From, in.To, in.Params)
		v = releaseVerdict(v, in.Checked, in.ScansBack, in.HoldS)
	} else {
		v = vibration.Judge(samples, in.From, in.To, in.Params)
		v.QuietRule = in.QuietRule
	}
	src := in.IMUSource
	if src == "" {
		src = imu.SourceDriver.String()
	}
	res := Result{Path: in.Path, Motion: in.Motion, Name: in.Name, Release: in.Release, Speed: in.Speed,
		TriggerS: in.TriggerS, TriggerHow: in.TriggerHow, Outcome: v.Outcome, Reason: v.Reason, StopS: v.StillFrom,
		Measurements: measurements(v), Samples: v.Samples, IMUSource: src, Verdict: v}
	res.Line = v.Line(in.Name)
	if in.Kind == vibration.KindRelease {
		res.StopS = math.NaN()
		if in.Checked && v.Passed() && in.ReleasedS != nil {
			res.StopS = *in.ReleasedS
		}
		passed, ok := stopPassed[in.Index-1]
		if !ok {
			passed = in.StopPassed
		}
		res = releaseAfterStop(res, passed, in.Name)
	}
	return res
}

// differs says how the re-judged line differs from the live one ("" when it does not): outcome, reason,
// time and printed line, and with the record the whole verdict (every window score).
func differs(live, re Result, recorded bool, ev ResultEvent) string {
	if !recorded {
		if ev.Event == "" {
			return "" // the live line never made it into the recording: nothing to compare with
		}
		live = Result{Outcome: ev.Outcome, Reason: ev.Reason, StopS: unnum(ev.StopS), Line: ev.Line}
	}
	var d []string
	if live.Outcome != re.Outcome {
		d = append(d, fmt.Sprintf("outcome %s live, %s now", live.Outcome, re.Outcome))
	}
	if !sameFloat(live.StopS, re.StopS) {
		d = append(d, fmt.Sprintf("stop time %v live, %v now", live.StopS, re.StopS))
	}
	if live.Reason != re.Reason {
		d = append(d, fmt.Sprintf("reason %q live, %q now", live.Reason, re.Reason))
	}
	if live.Line != re.Line {
		d = append(d, fmt.Sprintf("line %q live, %q now", live.Line, re.Line))
	}
	if recorded && len(d) == 0 {
		a, _ := json.Marshal(live.Verdict)
		b, _ := json.Marshal(re.Verdict)
		if !bytes.Equal(a, b) {
			d = append(d, "the verdict's window scores differ")
		}
	}
	return strings.Join(d, "; ")
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func unnum(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// WriteRejudged prints a re-judged run: its result lines, the table, RESULT and whether the re-judge
// agrees with the live run. The output depends only on the recording.
func WriteRejudged(w io.Writer, name string, f *proofrec.File, rj *Rejudged) error {
	var b strings.Builder
	rep := rj.Report
	fmt.Fprintf(&b, "== %s\n", name)
	how := "JSON record attached"
	if !rj.Recorded {
		how = "no JSON record (the run did not finish): lines from the recorded events"
	}
	fmt.Fprintf(&b, "recording: %s, %s; target %s", f.Meta["kind"], how, rep.Target)
	if rep.Fault != "" {
		fmt.Fprintf(&b, "; fault %s", rep.Fault)
	}
	b.WriteString("\n")
	if rj.Ended != "" {
		fmt.Fprintf(&b, "recording %s\n", rj.Ended)
	}
	for _, x := range rep.Results {
		if x.SourceLine != "" {
			fmt.Fprintln(&b, x.SourceLine)
		}
		fmt.Fprintln(&b, x.Line)
	}
	b.WriteString("\n")
	if err := rep.WriteTable(&b); err != nil {
		return err
	}
	fmt.Fprintln(&b, rep.ResultLine())
	switch {
	case len(rj.Differences) > 0:
		fmt.Fprintf(&b, "re-judge DIFFERS from the live run in %d of %d lines:\n", len(rj.Differences), rj.Judged)
		for _, d := range rj.Differences {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	default:
		fmt.Fprintf(&b, "re-judge: the same verdicts and times as the live run (%d lines judged again from %d IMU samples, %d as recorded)\n",
			rj.Judged, rj.Samples, rj.Copied)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxJudgeWork bounds the work one recorded judge input may ask for (windows x samples): a live line asks for
// about 10^5 (120 windows over 1000 samples); a hostile file must not keep the re-judge busy for hours.
const maxJudgeWork = 1e8

// bounded refuses an input no proof run writes: limits the judge refuses are fine (it says so itself), but a
// huge interval or window over many samples would cost minutes.
func (in JudgeInput) bounded() error {
	p := in.Params
	if p.Step <= 0 || p.Window <= 0 || math.IsNaN(in.To-in.From) {
		return nil // the judge refuses these itself, at once
	}
	windows := (math.Abs(in.To-in.From) + math.Abs(p.SpinWindow) + p.Window) / p.Step
	if work := windows * float64(in.IMUCount); !(work <= maxJudgeWork) {
		return fmt.Errorf("asks for %.3g windows over %d samples: no proof run records that (a damaged or foreign file)", windows, in.IMUCount)
	}
	return nil
}
