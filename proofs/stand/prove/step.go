package prove

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/target"
)

// pathRun is one step: spin up, trigger, keep commanding, judge. Its fields are used by the proof's
// goroutine only; a trigger that blocks (service stop, operator's button) runs in a goroutine of its own and
// reports over trigDone.
type pathRun struct {
	r     *runner
	s     Step
	phase string // what the path is doing, for a TIMEOUT's reason

	drv, below target.Recording
	pub        target.Publisher
	startPid   int // the driver's pid when the path began
	before     target.State

	trig     time.Time // the trigger, on the proof's clock (zero until known)
	trigHow  string
	holdEnd  time.Time
	lastSend time.Time
	sends    int
	sendErrs int
	lastErr  string
	trigDone chan trigResult // non-nil while a trigger goroutine runs
	silent   bool            // the trigger is silence: no command during the hold
	ctx      context.Context // the path's context, for the triggers' actions

	// scan-loss observations
	staleAt, backAt, heldUntil, releasedAt time.Time
	releaseV                               *stand.Verdict
	releaseIn                              releaseInput // what releaseV (or the release at the hold's end) read
	notes                                  []string
}

type trigResult struct {
	at  time.Time
	how string
	err error
}

// step runs s under the path's hard timeout, then cleans up under a timeout of its own, whatever happened.
func (r *runner) step(ctx context.Context, i, n int, s Step) []Result {
	p := &pathRun{r: r, s: s, phase: "starting"}
	r.ev.Logf("=== [%d/%d] %s", i+1, n, s.Title())
	pctx, cancel := context.WithTimeout(ctx, r.o.PathTimeout)
	res, err := p.run(pctx, i, n)
	timedOut := errors.Is(pctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	p.cleanup(ctx)
	switch {
	case timedOut:
		res = p.timeout(res)
	case ctx.Err() != nil && err != nil:
		res = p.failed(res, "interrupted ("+ctx.Err().Error()+") while "+p.phase)
	case err != nil:
		res = p.failed(res, err.Error())
	}
	return res
}

// run is the path proper. A non-nil error means the path could not be judged (the results are then
// completed by step); results that were judged are returned either way.
func (p *pathRun) run(ctx context.Context, i, n int) ([]Result, error) {
	r, s := p.r, p.s
	p.phase = "waiting for the driver"
	st, err := r.waitDriver(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("no driver to prove: %v", err)
	}
	p.before, p.startPid = st, st.Pids.Driver
	if err := p.contactMode(ctx, st); err != nil { // contact.go: log mode for the drive paths
		return nil, err
	}
	if st.Estop != "" {
		// Left by a path that could not reset (its own timeout): this path needs the wheels free.
		r.ev.Logf("e-stop latched before the path (%s): reset", st.Estop)
		if err := r.t.Reset(ctx); err != nil {
			return nil, fmt.Errorf("reset before the path: %v", err)
		}
	}

	p.phase = "starting the IMU recording"
	if p.drv, err = r.t.RecordIMU(ctx); err != nil {
		return nil, fmt.Errorf("IMU stream: %v", err)
	}
	if s.Spec.KillsDriver {
		if p.below, err = r.t.RecordBoardIMU(ctx); err != nil {
			return nil, fmt.Errorf("board IMU from below the driver: %v", err)
		}
	}
	p.phase = "opening the command publisher"
	if p.pub, err = r.t.Publisher(ctx); err != nil {
		return nil, fmt.Errorf("command publisher: %v", err)
	}
	p.phase = "enabling the wheels"
	r.ev.Logf("enable true")
	if err := r.t.Enable(ctx, true); err != nil {
		return nil, fmt.Errorf("enable refused: %v", err)
	}

	r.printf("[%d/%d] %s: spinning up ...", i+1, n, s.Title())
	p.event("spin-up", nil)
	p.phase = "spinning up"
	if err := p.drive(ctx, r.clk.Now().Add(r.o.Spin), false); err != nil {
		return nil, fmt.Errorf("command refused while spinning up: %v", err)
	}
	if r.fault != nil {
		if err := r.fault.AtTrigger(ctx); err != nil {
			return nil, fmt.Errorf("fault %s: %v", r.fault.FaultName(), err)
		}
		r.ev.Logf("fault %s applied", r.fault.FaultName())
	}

	p.phase = "triggering " + s.Spec.Name
	p.ctx = ctx
	if err := p.trigger(ctx); err != nil {
		return nil, err
	}
	p.event("trigger", map[string]any{"t": r.rel(p.trig), "how": p.trigHow})
	p.phase = "holding the drive command after the trigger"
	if s.Spec.Rule.ScanGate {
		err = p.holdScanLoss(ctx)
	} else {
		err = p.hold(ctx)
	}
	if err != nil {
		return nil, err
	}
	if p.trigDone != nil {
		p.phase = "waiting for the " + s.Spec.Name + " trigger to finish"
		select {
		case tr := <-p.trigDone:
			p.trigDone = nil
			if tr.err != nil {
				return nil, fmt.Errorf("%s trigger failed: %v", s.Spec.Name, tr.err)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.phase = "judging"
	p.catchUp(ctx)
	return p.judge(), nil
}

// drive publishes the motion every CmdPeriod until until. During the spin-up a refused command ends the path
// (tolerate false); after the trigger the driver may be gone or refusing, and the commands go on regardless:
// the point of every path is that the wheels stay stopped while commands keep coming.
func (p *pathRun) drive(ctx context.Context, until time.Time, tolerate bool) error {
	for {
		if err := p.send(ctx, tolerate); err != nil {
			return err
		}
		now := p.r.clk.Now()
		if !now.Before(until) {
			return nil
		}
		if err := p.r.clk.Sleep(ctx, min(p.r.o.CmdPeriod, until.Sub(now))); err != nil {
			return err
		}
	}
}

func (p *pathRun) send(ctx context.Context, tolerate bool) error {
	tw := p.s.Motion.Twist
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	err := p.pub.Send(qctx, tw)
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
		if !tolerate {
			return err
		}
		return nil
	}
	p.lastErr = ""
	p.sends++
	p.lastSend = now
	p.r.ev.Logf("cmd %+.2f %+.2f %+.2f", tw.VX, tw.VY, tw.WZ)
	return nil
}

// trigger fires the path's stop through its spec's trigger function (pathRun is its stoppath.Firing).
func (p *pathRun) trigger(ctx context.Context) error {
	if p.s.Spec.StopsService {
		p.r.serviceDown = true
	}
	return p.s.Spec.Trigger(ctx, p)
}

// Target is the robot (stoppath.Firing).
func (p *pathRun) Target() target.Target { return p.r.t }

// Act takes the trigger time just before the action, on the proof's clock (stoppath.Firing).
func (p *pathRun) Act(what string, do func() error) error {
	p.trig = p.r.clk.Now()
	p.r.ev.Logf("TRIGGER %s", what)
	if err := do(); err != nil {
		return fmt.Errorf("%s failed: %v", what, err)
	}
	return nil
}

// Silence makes the last command sent the trigger: the driver's timeout runs from there (stoppath.Firing).
func (p *pathRun) Silence() {
	p.silent = true
	p.trig = p.lastSend
	p.r.ev.Logf("TRIGGER silence (last command at %.3f s)", p.r.rel(p.trig))
}

// Beside takes the trigger time now and runs do beside the commands; run waits for it after the hold
// (stoppath.Firing).
func (p *pathRun) Beside(what string, do func(ctx context.Context) error) {
	p.trig = p.r.clk.Now()
	p.r.ev.Logf("TRIGGER %s", what)
	p.trigDone = make(chan trigResult, 1)
	go func(ctx context.Context, ch chan<- trigResult) {
		ch <- trigResult{err: do(ctx)}
	}(p.ctx, p.trigDone)
}

// Await keeps commanding until event returns: the trigger time is the event's, which only the target knows
// (stoppath.Firing).
func (p *pathRun) Await(what string, event func(ctx context.Context, prompt func(string)) (time.Time, string, error)) error {
	r, ctx := p.r, p.ctx
	ch := make(chan trigResult, 1)
	r.ev.Logf("TRIGGER %s requested", what)
	go func() {
		at, how, err := event(ctx, func(msg string) { r.printf("%s", msg) })
		ch <- trigResult{at, how, err}
	}()
	for {
		select {
		case tr := <-ch:
			if tr.err != nil {
				return fmt.Errorf("%s: %v", what, tr.err)
			}
			p.trig, p.trigHow = tr.at, tr.how
			r.ev.Logf("%s at %.3f s (%s)", what, r.rel(tr.at), tr.how)
			return nil
		default:
		}
		if err := p.send(ctx, true); err != nil {
			return err
		}
		if err := r.clk.Sleep(ctx, r.o.CmdPeriod); err != nil {
			return err
		}
	}
}

// hold keeps the command coming (silence for the deadman) until Hold after the trigger.
func (p *pathRun) hold(ctx context.Context) error {
	p.holdEnd = p.trig.Add(p.r.o.Hold)
	if p.silent {
		return p.r.clk.Sleep(ctx, p.holdEnd.Sub(p.r.clk.Now()))
	}
	return p.drive(ctx, p.holdEnd, true)
}

// samples converts recorded IMU samples to the judge's timeline. bias (deg/s), when given, is subtracted:
// the board's raw gyro carries the bias the driver removes from its own stream.
func (p *pathRun) samples(rec []target.IMUSample, bias *[3]float64) []stand.Sample {
	out := make([]stand.Sample, 0, len(rec))
	for _, s := range rec {
		g := s.Gyro
		if bias != nil {
			for k := range g {
				g[k] -= bias[k] * math.Pi / 180
			}
		}
		out = append(out, stand.Sample{T: p.r.rel(s.At), GyroX: g[0], GyroY: g[1], GyroZ: g[2]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// judgeInput picks the samples for the stop judge and names their source. For the paths that kill the
// driver the board's own IMU from below the driver is used: all of it when it also covers the spin-up (the
// supervisor's raw stream does), else the driver's stream up to the trigger and the board's after it,
// with the driver's bias estimate taken off the board's raw gyro so the two join without a step.
func (p *pathRun) judgeInput() ([]stand.Sample, string, string) {
	r := p.r
	drv := p.drv.Samples()
	if !p.s.Spec.KillsDriver {
		return p.samples(drv, nil), target.SourceDriver.String(), ""
	}
	below := p.below.Samples()
	spinFrom := p.trig.Add(-time.Duration(r.o.Params.SpinWindow * float64(time.Second)))
	coveredBefore := 0
	var after []target.IMUSample
	for _, s := range below {
		switch {
		case s.At.After(spinFrom) && !s.At.After(p.trig):
			coveredBefore++
		case s.At.After(p.trig):
			after = append(after, s)
		}
	}
	line := p.sourceLine(after)
	if coveredBefore >= r.o.Params.MinSamples*int(r.o.Params.SpinWindow/r.o.Params.Window) {
		return p.samples(below, nil), sourceNames(below), line
	}
	var pre []target.IMUSample
	for _, s := range drv {
		if !s.At.After(p.trig) {
			pre = append(pre, s)
		}
	}
	bias := p.before.GyroBiasDPS // the newest estimate of the driver that was killed
	for _, st := range r.watch.Since(p.before.At) {
		if !st.At.After(p.trig) && st.Pids.Driver == p.startPid {
			bias = st.GyroBiasDPS
		}
	}
	out := append(p.samples(pre, nil), p.samples(after, &bias)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	src := target.SourceDriver.String()
	if len(after) > 0 {
		src += "+" + sourceNames(after)
	}
	return out, src, line
}

// sourceLine is the seed's "kill: board IMU read directly from 0.04 to 3.54 s after the command", naming
// each source the samples after the trigger came from.
func (p *pathRun) sourceLine(after []target.IMUSample) string {
	type span struct {
		src         target.Source
		where       string
		first, last float64
	}
	var spans []span
	for _, s := range after {
		t := s.At.Sub(p.trig).Seconds()
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
		if sp.src == target.SourceRaw {
			how = "read via the supervisor's raw stream"
		}
		parts[i] = fmt.Sprintf("%s from %.2f to %.2f s", how, sp.first, sp.last)
	}
	return head + " " + strings.Join(parts, ", then ") + " after the command"
}

func sourceNames(ss []target.IMUSample) string {
	var names []string
	for _, s := range ss {
		n := s.Source.String()
		if len(names) == 0 || names[len(names)-1] != n {
			if !contains(names, n) {
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
	recs := []target.Recording{p.drv}
	if p.s.Spec.KillsDriver {
		recs = []target.Recording{p.below}
	}
	deadline := p.r.clk.Now().Add(time.Second)
	for _, rec := range recs {
		for rec != nil && rec.Err() == nil && p.r.clk.Now().Before(deadline) {
			ss := rec.Samples()
			if n := len(ss); n > 0 && !ss[n-1].At.Before(p.holdEnd.Add(-20*time.Millisecond)) {
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
	if p.s.Spec.KillsDriver || p.trig.IsZero() {
		return
	}
	for _, st := range p.r.watch.Since(p.before.At) {
		if st.Pids.Driver != 0 && st.Pids.Driver != p.startPid {
			p.notes = append(p.notes, fmt.Sprintf("the driver was replaced during the path: pid %d, then pid %d (%.2f s after the trigger); its IMU stream ended with it",
				p.startPid, st.Pids.Driver, st.At.Sub(p.trig).Seconds()))
			p.r.printf("note: driver pid %d was replaced by pid %d during this path (%.2f s after the trigger): something killed or restarted it",
				p.startPid, st.Pids.Driver, st.At.Sub(p.trig).Seconds())
			return
		}
	}
}

// judge turns the recording into the path's results.
func (p *pathRun) judge() []Result {
	r := p.r
	p.driverChanges()
	samples, src, line := p.judgeInput()
	params, end := r.o.Params, p.holdEnd
	gated := p.s.Spec.Rule.ScanGate
	if gated {
		params, end = p.gateBounds(params, end)
	}
	v := stand.Judge(samples, r.rel(p.trig), r.rel(end), params)
	if gated {
		v.QuietRule = p.scanLossRule(params.NeedQuiet)
	}
	p.recordStop(samples, params, r.rel(end), v)
	drv := p.drv.Samples()
	lag := target.LagOf(drv)
	r.lagMS = append(r.lagMS, target.LagsMS(drv)...)
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
	if p.below == nil {
		return ""
	}
	return fmt.Sprintf(", board IMU from below %d samples", len(p.below.Samples()))
}

func (p *pathRun) result(v stand.Verdict, release bool) Result {
	name := p.s.Name()
	if release {
		name = p.s.Spec.Release
	}
	res := Result{Path: Path(p.s.Spec.Name), Motion: p.s.Motion.Name, Name: name, Release: release, Speed: p.s.Motion.Twist,
		TriggerS: math.NaN(), TriggerHow: p.trigHow, Outcome: v.Outcome, Reason: v.Reason, StopS: v.StillFrom,
		Measurements: measurements(v), Samples: v.Samples, IMUSource: target.SourceDriver.String(), Verdict: v}
	if !p.trig.IsZero() {
		res.TriggerS, res.TriggerAt = p.r.rel(p.trig), p.trig.UTC()
	}
	res.Line = v.Line(name)
	return res
}

// timeout completes the step's results after its hard timeout: what was judged stays, the rest is TIMEOUT
// with what the path was doing.
func (p *pathRun) timeout(res []Result) []Result {
	reason := fmt.Sprintf("no result within the path's %v hard timeout (stuck while %s)", p.r.o.PathTimeout, p.phase)
	return p.complete(res, stand.Timeout, reason)
}

func (p *pathRun) failed(res []Result, reason string) []Result {
	return p.complete(res, stand.Fail, reason)
}

// complete fills in the results a step did not produce, with outcome and reason.
func (p *pathRun) complete(res []Result, o stand.Outcome, reason string) []Result {
	want := p.s.Spec.Lines()
	for len(res) < want {
		release := len(res) == 1
		trig, end := math.NaN(), math.NaN()
		if !p.trig.IsZero() {
			trig, end = p.r.rel(p.trig), p.r.rel(p.r.clk.Now())
		}
		v := stand.TimedOut(trig, end, p.r.o.Params, reason)
		v.Outcome = o
		if release {
			v.Kind = stand.KindRelease
		}
		x := p.result(v, release)
		x.Line = fmt.Sprintf("%-34s %s: %s", x.Name, o, reason)
		res = append(res, x)
	}
	return res
}

// cleanup ends the path whatever happened, on its own context: stop commanding, clear the fault, start the
// service again if the path stopped it, wait for a new driver after a kill, then reset and disable.
func (p *pathRun) cleanup(parent context.Context) {
	r := p.r
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), r.o.DriverBack+15*time.Second)
	defer cancel()
	if p.pub != nil {
		p.pub.Close()
	}
	if r.fault != nil {
		if err := r.fault.Clear(ctx); err != nil {
			r.ev.Logf("cleanup: clearing fault: %v", err)
		}
	}
	if p.trigDone != nil {
		select { // the trigger goroutine ends with its context, which ended with the path's
		case <-p.trigDone:
		case <-ctx.Done():
		}
	}
	if p.below != nil {
		p.below.Close() // before the service starts: it needs the port to itself
	}
	if p.drv != nil {
		p.drv.Close()
	}
	if p.s.Spec.StopsService && r.serviceDown {
		r.ev.Logf("cleanup: starting the service again")
		if err := r.t.StartService(ctx); err != nil {
			r.printf("%s: starting the service again failed: %v", p.s.Title(), err)
		} else {
			r.serviceDown = false
		}
	}
	if p.s.Spec.KillsDriver && !p.trig.IsZero() {
		st, err := r.waitDriver(ctx, p.startPid)
		if err != nil {
			r.printf("%s: the driver is not back after %v: %v", p.s.Title(), r.o.DriverBack, err)
		} else {
			r.ev.Logf("cleanup: driver back, pid %d (was %d)", st.Pids.Driver, p.startPid)
		}
	}
	if err := r.t.Reset(ctx); err != nil {
		r.ev.Logf("cleanup: reset: %v", err)
	}
	if err := r.t.Enable(ctx, false); err != nil {
		r.ev.Logf("cleanup: disable: %v", err)
	}
	r.clk.Sleep(ctx, 500*time.Millisecond) // the seed's n.spin(0.5): let the wheels settle before the next path
}

// waitDriver waits up to DriverBack for a driver that answers, is not calibrating its gyro (it publishes no
// IMU then), and whose pid differs from notPid (0: any).
func (r *runner) waitDriver(ctx context.Context, notPid int) (target.State, error) {
	return r.pollState(ctx, r.o.DriverBack, func(st target.State) error {
		switch {
		case notPid != 0 && (st.Pids.Driver == notPid || st.Pids.Driver == 0):
			return fmt.Errorf("driver pid still %d", st.Pids.Driver)
		case st.Calibrating:
			return errors.New("driver still calibrating its gyro")
		}
		return nil
	})
}
