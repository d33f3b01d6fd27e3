package stand

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/target"
)

// pathRun is one step: spin up, trigger, keep commanding, judge. Its fields are used by the proof's
// goroutine only; runcore.Path holds the recordings, the publisher and the trigger (it is the path's
// stoppath.Firing) and runs the step's skeleton with the hooks below.
type pathRun struct {
	runcore.Path
	r      *runner
	s      Step
	before target.State
	res    []Result // what was judged

	sends    int
	sendErrs int
	lastErr  string

	// scan-loss observations
	staleAt, backAt, heldUntil, releasedAt time.Time
	releaseV                               *vibration.Verdict
	releaseIn                              releaseInput // what releaseV (or the release at the hold's end) read
	notes                                  []string

	hold *holdState // a hold path's observations (hold.go)
}

// step runs s under the path's hard timeout, then cleans up under a timeout of its own, whatever happened.
func (r *runner) step(ctx context.Context, i, n int, s Step) []Result {
	p := &pathRun{r: r, s: s}
	p.Path = runcore.NewPath(r.core, s, r.o.CmdPeriod)
	p.Send = p.send
	err, timedOut := p.Step(ctx, i, n, r.o.PathTimeout, p.leg())
	res := p.res
	switch {
	case errors.Is(err, runcore.ErrNotRun):
		res = p.complete(res, vibration.NotRun, strings.TrimPrefix(err.Error(), runcore.ErrNotRun.Error()+": "))
	case timedOut:
		res = p.timeout(res)
	case ctx.Err() != nil && err != nil:
		res = p.failed(res, "interrupted ("+ctx.Err().Error()+") while "+p.Phase)
	case err != nil:
		res = p.failed(res, err.Error())
	}
	return res
}

// leg is the stand proof's part of the step (runcore.Leg): spin the wheels up for Spin, hold the command
// for Hold after the trigger (the scan gate's rule follows the scan loss and its end instead), judge from the
// IMU, and judge the take-over's release after the stop.
func (p *pathRun) leg() runcore.Leg {
	r, s := p.r, p.s
	if s.Spec.Hold != "" {
		return p.holdLeg() // hold.go
	}
	l := runcore.Leg{Noun: "path", Going: "spinning up", GoingPhase: "spinning up", Until: r.o.Spin,
		HoldPhase: "holding the drive command after the trigger", Verbose: true,
		Ready: func(ctx context.Context, st target.State) error {
			p.before = st
			return p.contactMode(ctx, st) // contact.go: log mode for the drive paths
		},
		Start: func() { p.event("spin-up", nil) },
		Triggered: func() {
			p.event("trigger", map[string]any{"t": r.rel(p.Trig), "how": p.TrigHow})
		},
		Hold: func(ctx context.Context) error {
			if s.Spec.Rule.ScanGate {
				return p.holdScanLoss(ctx) // gaterule.go
			}
			return p.HoldFor(ctx, r.o.Hold, p.Drive)
		},
		Judge: func(ctx context.Context) error {
			p.catchUp(ctx)
			p.res = p.judge()
			if s.Spec.Rule.ScanGate && len(p.res) == 2 && p.res[0].Outcome == vibration.Pass {
				p.releaseRamp(ctx, &p.res[1], p.heldUntil) // releaseramp.go
			}
			return nil
		},
	}
	if s.Spec.Release != "" && !s.Spec.Rule.ScanGate {
		l.Release = func(ctx context.Context) error {
			p.Phase = "letting go of the take-over"
			if n := p.sourceNote("manual", p.Trig, "after the trigger"); n != "" {
				p.res[0].Notes = append(p.res[0].Notes, n)
			}
			rel, err := p.letGo(ctx, p.res[0].Verdict) // takeover.go
			if err != nil {
				return err
			}
			p.res = append(p.res, rel)
			return nil
		}
	}
	return l
}

// send publishes the motion once (the path's Send, for the run's drive loop: runcore.Path.Drive), counting
// and logging refusals once per change.
func (p *pathRun) send(ctx context.Context) error { return p.sendTwist(ctx, p.s.Motion.Twist) }

// sendTwist publishes tw once (send's body; the hold paths send other commands after the act).
func (p *pathRun) sendTwist(ctx context.Context, tw kinematics.Twist) error {
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	err := p.Pub.Send(qctx, tw)
	cancel()
	now := p.r.clk.Now()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p.sendErrs++
		if err.Error() != p.lastErr {
			p.r.ev.Logf("cmd %+.2f %+.2f %+.2f: %v", tw.VX, tw.VY, tw.WZ, err)
			p.lastErr = err.Error()
		}
		return err
	}
	p.lastErr = ""
	p.sends++
	p.LastSend = now
	p.r.ev.Logf("cmd %+.2f %+.2f %+.2f", tw.VX, tw.VY, tw.WZ)
	return nil
}

// samples converts recorded IMU samples to the judge's timeline. bias (deg/s), when given, is subtracted:
// the board's raw gyro carries the bias the driver removes from its own stream.
func (p *pathRun) samples(rec []imu.Sample, bias *[3]float64) []vibration.Sample {
	out := make([]vibration.Sample, 0, len(rec))
	for _, s := range rec {
		g := s.Gyro
		if bias != nil {
			for k := range g {
				g[k] -= bias[k] * math.Pi / 180
			}
		}
		out = append(out, vibration.Sample{T: p.r.rel(s.At), GyroX: g[0], GyroY: g[1], GyroZ: g[2]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// judgeInput picks the samples for the stop judge and names their source. For the paths that kill the
// driver the board's own IMU from below the driver is used: all of it when it also covers the spin-up (the
// supervisor's raw stream does), else the driver's stream up to the trigger and the board's after it,
// with the driver's bias estimate taken off the board's raw gyro so the two join without a step.
func (p *pathRun) judgeInput() ([]vibration.Sample, string, string) {
	r := p.r
	drv := p.Drv.Samples()
	if !p.s.Spec.KillsDriver {
		return p.samples(drv, nil), imu.SourceDriver.String(), ""
	}
	below := p.Below.Samples()
	spinFrom := p.Trig.Add(-time.Duration(r.o.Params.SpinWindow * float64(time.Second)))
	coveredBefore := 0
	var after []imu.Sample
	for _, s := range below {
		switch {
		case s.At.After(spinFrom) && !s.At.After(p.Trig):
			coveredBefore++
		case s.At.After(p.Trig):
			after = append(after, s)
		}
	}
	line := p.sourceLine(after)
	if coveredBefore >= r.o.Params.MinSamples*int(r.o.Params.SpinWindow/r.o.Params.Window) {
		return p.samples(below, nil), sourceNames(below), line
	}
	var pre []imu.Sample
	for _, s := range drv {
		if !s.At.After(p.Trig) {
			pre = append(pre, s)
		}
	}
	bias := p.before.GyroBiasDPS // the newest estimate of the driver that was killed
	for _, st := range r.watch.Since(p.before.At) {
		if !st.At.After(p.Trig) && st.Pids.Driver == p.StartPid {
			bias = st.GyroBiasDPS
		}
	}
	out := append(p.samples(pre, nil), p.samples(after, &bias)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	src := imu.SourceDriver.String()
	if len(after) > 0 {
		src += "+" + sourceNames(after)
	}
	return out, src, line
}

// sourceLine is the seed's "kill: board IMU read directly from 0.04 to 3.54 s after the command", naming
// each source the samples after the trigger came from.
func (p *pathRun) sourceLine(after []imu.Sample) string {
	type span struct {
		src         imu.Source
		where       string
		first, last float64
	}
	var spans []span
	for _, s := range after {
		t := s.At.Sub(p.Trig).Seconds()
		if n := len(spans); n > 0 && spans[n-1].src == s.Source && spans[n-1].where == s.Where {
			spans[n-1].last = t
			continue
		}
		spans = append(spans, span{s.Source, s.Where, t, t})
	}
	head := p.s.Spec.Name + ": board IMU"
	if len(spans) == 0 {
		return head + " from below the driver: NONE after the command (no raw stream, and the port was never free)"
	}
	parts := make([]string, len(spans))
	for i, sp := range spans {
		how := "read directly from " + sp.where
		if sp.src == imu.SourceRaw {
			how = "read via the supervisor's raw stream"
		}
		parts[i] = fmt.Sprintf("%s from %.2f to %.2f s", how, sp.first, sp.last)
	}
	return head + " " + strings.Join(parts, ", then ") + " after the command"
}

func sourceNames(ss []imu.Sample) string {
	var names []string
	for _, s := range ss {
		n := s.Source.String()
		if len(names) == 0 || names[len(names)-1] != n {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// catchUp waits (up to a second) until the recordings hold samples up to the end of the hold: samples still
// in flight would read as a hole at the end, which the judge rightly refuses to count as quiet.
func (p *pathRun) catchUp(ctx context.Context) {
	recs := []imu.Recording{p.Drv}
	if p.s.Spec.KillsDriver {
		recs = []imu.Recording{p.Below}
	}
	deadline := p.r.clk.Now().Add(time.Second)
	for _, rec := range recs {
		for rec != nil && rec.Err() == nil && p.r.clk.Now().Before(deadline) {
			ss := rec.Samples()
			if n := len(ss); n > 0 && !ss[n-1].At.Before(p.HoldEnd.Add(-20*time.Millisecond)) {
				break
			}
			if p.r.clk.Sleep(ctx, 20*time.Millisecond) != nil {
				return
			}
		}
	}
}

// driverChanges notes a driver that died or restarted during a path that was not meant to kill it: its
// IMU stream ends there, and the line would otherwise only say that the data stopped.
func (p *pathRun) driverChanges() {
	if p.s.Spec.KillsDriver || p.Trig.IsZero() {
		return
	}
	for _, st := range p.r.watch.Since(p.before.At) {
		if st.Pids.Driver != 0 && st.Pids.Driver != p.StartPid {
			p.notes = append(p.notes, fmt.Sprintf("the driver was replaced during the path: pid %d, then pid %d (%.2f s after the trigger); its IMU stream ended with it",
				p.StartPid, st.Pids.Driver, st.At.Sub(p.Trig).Seconds()))
			p.r.printf("note: driver pid %d was replaced by pid %d during this path (%.2f s after the trigger): something killed or restarted it",
				p.StartPid, st.Pids.Driver, st.At.Sub(p.Trig).Seconds())
			return
		}
	}
}

// judge turns the recording into the path's results.
func (p *pathRun) judge() []Result {
	r := p.r
	p.driverChanges()
	samples, src, line := p.judgeInput()
	params, end := r.o.Params, p.HoldEnd
	gated := p.s.Spec.Rule.ScanGate
	if gated {
		params, end = p.gateBounds(params, end)
	}
	v := vibration.Judge(samples, r.rel(p.Trig), r.rel(end), params)
	if gated {
		v.QuietRule = p.scanLossRule(params.NeedQuiet)
	}
	p.recordStop(samples, params, r.rel(end), v)
	drv := p.Drv.Samples()
	lag := imu.LagOf(drv)
	r.lagMS = append(r.lagMS, imu.LagsMS(drv)...)
	if n := lag.Note(); n != "" {
		p.notes = append(p.notes, n)
	}
	r.ev.Logf("imu: %d samples judged (%s), driver stream %d samples%s; timed on receipt, %s; commands sent %d, refused %d",
		v.Samples, src, len(drv), p.belowCount(), lag, p.sends, p.sendErrs)
	res := p.result(v, false)
	res.IMUSource, res.SourceLine, res.Notes = src, line, p.notes
	if lag.N > 0 {
		res.IMULag = &lag
	}
	out := []Result{res}
	if gated {
		out = append(out, p.releaseAfter(v))
	}
	return out
}

func (p *pathRun) belowCount() string {
	if p.Below == nil {
		return ""
	}
	return fmt.Sprintf(", board IMU from below %d samples", len(p.Below.Samples()))
}

func (p *pathRun) result(v vibration.Verdict, release bool) Result {
	name := p.s.Name()
	if release {
		name = p.s.Spec.Release
	}
	res := Result{Path: Path(p.s.Spec.Name), Motion: p.s.Motion.Name, Name: name, Release: release, Speed: p.s.Motion.Twist,
		TriggerS: math.NaN(), TriggerHow: p.TrigHow, Outcome: v.Outcome, Reason: v.Reason, StopS: v.StillFrom,
		Measurements: measurements(v), Samples: v.Samples, IMUSource: imu.SourceDriver.String(), Verdict: v}
	if !p.Trig.IsZero() {
		res.TriggerS, res.TriggerAt = p.r.rel(p.Trig), p.Trig.UTC()
	}
	res.Line = v.Line(name)
	return res
}

// timeout completes the step's results after its hard timeout: what was judged stays, the rest is TIMEOUT
// with what the path was doing.
func (p *pathRun) timeout(res []Result) []Result {
	reason := fmt.Sprintf("no result within the path's %v hard timeout (stuck while %s)", p.r.o.PathTimeout, p.Phase)
	return p.complete(res, vibration.Timeout, reason)
}

func (p *pathRun) failed(res []Result, reason string) []Result {
	return p.complete(res, vibration.Fail, reason)
}

// complete fills in the results a step did not produce, with outcome and reason.
func (p *pathRun) complete(res []Result, o vibration.Outcome, reason string) []Result {
	want := p.s.Spec.Lines()
	for len(res) < want {
		release := len(res) == 1
		trig, end := math.NaN(), math.NaN()
		if !p.Trig.IsZero() {
			trig, end = p.r.rel(p.Trig), p.r.rel(p.r.clk.Now())
		}
		v := vibration.TimedOut(trig, end, p.r.o.Params, reason)
		v.Outcome = o
		if release {
			v.Kind = vibration.KindRelease
		}
		x := p.result(v, release)
		x.Line = fmt.Sprintf("%-34s %s: %s", x.Name, o, reason)
		res = append(res, x)
	}
	return res
}
