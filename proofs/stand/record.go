package stand

import (
	"math"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
)

// JudgeInput is one judge call of a run as the recording holds it (/proof/judge_input): with the samples it
// names on /proof/imu, everything Rejudge needs to call the same judge with the same numbers.
type JudgeInput struct {
	// Index is the result's place in the run's results (Report.Results).
	Index   int              `json:"index"`
	Path    Path             `json:"path"`
	Motion  string           `json:"motion"`
	Name    string           `json:"name"`
	Release bool             `json:"release,omitempty"`
	Speed   kinematics.Twist `json:"speed"`
	// Kind is the judge: "stop" (stand.Judge) or "release" (stand.ReleaseCheck).
	Kind vibration.Kind `json:"kind"`
	// From and To are the judge's time arguments: trigger and end (stop), from and to (release).
	From   float64          `json:"from"`
	To     float64          `json:"to"`
	Params vibration.Params `json:"params"`
	// TriggerS is the path's trigger (s on the run's timeline); TriggerHow how it was taken.
	TriggerS   float64 `json:"trigger_s"`
	TriggerHow string  `json:"trigger_how,omitempty"`
	QuietRule  string  `json:"quiet_rule,omitempty"`
	IMUSource  string  `json:"imu_source,omitempty"`
	// IMUFirst and IMUCount name the samples on /proof/imu (MCAP sequence numbers); Inexact counts samples
	// whose time did not survive the nanosecond stamp (0 for a live run).
	IMUFirst uint32 `json:"imu_first"`
	IMUCount uint32 `json:"imu_count"`
	Inexact  int    `json:"inexact,omitempty"`
	// The release line's rule (releaseVerdict): Checked (the check was made while commanding after the
	// scans came back), ScansBack, HoldS (the hold's end after the trigger), StopPassed (the line above
	// passed), ReleasedS (the line's stop_s when its check passed).
	Checked    bool     `json:"checked,omitempty"`
	ScansBack  bool     `json:"scans_back,omitempty"`
	HoldS      float64  `json:"hold_s,omitempty"`
	StopPassed bool     `json:"stop_passed,omitempty"`
	ReleasedS  *float64 `json:"released_s,omitempty"`
}

// event is one message on /proof/events.
func (p *pathRun) event(kind string, fields map[string]any) {
	rec := p.r.o.Record
	if rec == nil {
		return
	}
	m := map[string]any{"event": kind, "path": p.s.Spec.Name, "motion": p.s.Motion.Name}
	for k, v := range fields {
		m[k] = v
	}
	now := p.r.clk.Now()
	m["at_s"] = p.r.rel(now)
	rec.Event(now, m)
}

// input writes the samples and the judge input.
func (p *pathRun) input(in JudgeInput, samples []vibration.Sample) {
	rec := p.r.o.Record
	if rec == nil {
		return
	}
	ts := make([]float64, len(samples))
	gs := make([][3]float64, len(samples))
	for i, s := range samples {
		ts[i], gs[i] = s.T, [3]float64{s.GyroX, s.GyroY, s.GyroZ}
	}
	in.IMUFirst, in.IMUCount, in.Inexact = rec.IMU(ts, gs)
	in.Path, in.Motion, in.Speed = Path(p.s.Spec.Name), p.s.Motion.Name, p.s.Motion.Twist
	in.TriggerS, in.TriggerHow = p.r.rel(p.Trig), p.TrigHow
	if err := rec.Input(p.r.clk.Now(), in); err != nil {
		p.r.ev.Logf("recording: judge input: %v", err)
	}
}

// recordStop records the stop judge's call (its samples, times and limits) and the judged still-from.
func (p *pathRun) recordStop(samples []vibration.Sample, params vibration.Params, end float64, v vibration.Verdict) {
	if p.r.o.Record == nil {
		return
	}
	name := p.s.Name()
	p.input(JudgeInput{Index: len(p.r.rep.Results), Name: name, Kind: vibration.KindStop, From: v.Trigger, To: end,
		Params: params, QuietRule: v.QuietRule}, samples)
	p.event("judged", map[string]any{"still_from_s": num(v.StillFrom), "outcome": v.Outcome, "reason": v.Reason})
}

// recordRelease records the release line's check.
func (p *pathRun) recordRelease(rel Result, stopPassed bool) {
	if p.r.o.Record == nil {
		return
	}
	in := JudgeInput{Index: len(p.r.rep.Results) + 1, Name: p.s.Spec.Release, Release: true, Kind: vibration.KindRelease,
		From: p.releaseIn.from, To: p.releaseIn.to, Params: p.r.o.Params, Checked: p.releaseV != nil,
		ScansBack: !p.backAt.IsZero(), HoldS: p.HoldEnd.Sub(p.Trig).Seconds(), StopPassed: stopPassed}
	if !math.IsNaN(rel.StopS) {
		s := rel.StopS
		in.ReleasedS = &s
	}
	p.input(in, p.releaseIn.samples)
}

// ResultEvent is a result line as /proof/events holds it: what a re-judge compares itself with when the
// run ended before its JSON record was attached.
type ResultEvent struct {
	Event   string            `json:"event"` // "result"
	Index   int               `json:"index"`
	Path    Path              `json:"path"`
	Motion  string            `json:"motion"`
	Name    string            `json:"name"`
	Release bool              `json:"release,omitempty"`
	Outcome vibration.Outcome `json:"outcome"`
	Reason  string            `json:"reason,omitempty"`
	StopS   *float64          `json:"stop_s"`
	Line    string            `json:"line"`
}

// recordResult records one result line as an event.
func (r *runner) recordResult(index int, x Result) {
	if r.o.Record == nil {
		return
	}
	r.o.Record.Event(r.clk.Now(), ResultEvent{Event: "result", Index: index, Path: x.Path, Motion: x.Motion, Name: x.Name,
		Release: x.Release, Outcome: x.Outcome, Reason: x.Reason, StopS: num(x.StopS), Line: x.Line})
}
