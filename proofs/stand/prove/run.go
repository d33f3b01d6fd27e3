package prove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// imuTiming is the record's word on how samples are timed: the triggers and the samples on one clock.
const imuTiming = "on receipt, by the proof's monotonic clock (the triggers' clock); driver stamps only measure the lag"

// ErrAborted is returned when a guard stopped the run before anything was sent.
var ErrAborted = errors.New("proof aborted")

// runner is one proof run. It is used by one goroutine (the proof's); the goroutines it starts (state
// watcher, recordings, a trigger that blocks) hand their results back over channels or through the
// target types' own locks.
type runner struct {
	t     target.Target
	o     Options
	clk   target.Clock
	ev    *target.Evidence
	out   io.Writer
	t0    time.Time
	watch *target.StateWatcher
	fault target.Faulter
	rep   *Report

	scanTimeout time.Duration
	contactSaid bool      // the contact reflex was put in log mode (contact.go)
	serviceDown bool      // the service was stopped by a path and not started again yet
	lagMS       []float64 // driver stamp to receipt, every driver IMU sample of every path (ms)
}

func (r *runner) printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(r.out, line)
	r.ev.Logf("| %s", line)
}

// rel converts a time on the proof's clock into seconds since the start of the run: the judge's timeline.
func (r *runner) rel(t time.Time) float64 { return t.Sub(r.t0).Seconds() }

// Prove runs steps against t and returns the report; the error is non-nil only when the run was aborted by a
// guard (nothing sent) or its options are invalid. Whatever happens after the guards (failures, timeouts,
// ctx cancelled by Ctrl-C), the teardown disables the wheels before Prove returns, under its own timeout.
// Prove prints the progress, the result lines, the table, RESULT and the end state to o.Out.
func Prove(ctx context.Context, t target.Target, steps []Step, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := newRunner(t, o, "stopproof prove")
	r.rep.SpinS, r.rep.HoldS, r.rep.Planned = o.Spin.Seconds(), o.Hold.Seconds(), stoppath.Lines(steps)
	r.rep.table = o.Paths
	for _, s := range steps {
		if !contains(r.rep.Paths, s.Spec.Name) {
			r.rep.Paths = append(r.rep.Paths, s.Spec.Name)
		}
	}
	r.ev.Logf("stopproof prove: target %s; steps %d; spin %v, hold %v; params %+v", t.Describe(), len(steps), o.Spin, o.Hold, o.Params)
	st, err := r.open(ctx)
	if err != nil {
		return r.rep, err
	}
	defer func() {
		r.teardown()
		r.summary()
	}()
	r.checkLimits(steps, st.Config)
	for i, s := range steps {
		if ctx.Err() != nil {
			break
		}
		res := r.step(ctx, i, len(steps), s)
		for k, x := range res {
			r.recordResult(len(r.rep.Results)+k, x)
			if x.SourceLine != "" {
				r.printf("%s", x.SourceLine)
			}
			r.printf("%s", x.Line)
			for _, n := range x.Notes {
				r.ev.Logf("note: %s", n)
			}
			if b, err := json.Marshal(x); err == nil {
				r.ev.Logf("result: %s", b)
			}
		}
		r.rep.Results = append(r.rep.Results, res...)
		r.ev.Flush()
	}
	if ctx.Err() != nil {
		r.rep.Aborted = "interrupted: " + ctx.Err().Error()
	}
	return r.rep, nil
}

// checkLimits warns when the driver's speed limits clip a motion: "fwd 0.35" proven at 0.2 m/s would be a
// proof of something else (the code default max_linear is 0.2; the robot runs 0.35 from its config).
func (r *runner) checkLimits(steps []Step, cfg api.ConfigSummary) {
	lin, ang := cfg.MaxLinear, cfg.MaxAngular
	okL, okA := lin > 0, ang > 0 // zero: a driver that does not report its limits
	seen := map[string]bool{}
	for _, s := range steps {
		tw := s.Motion.Twist
		clipped := (okL && (tw.VX > lin+1e-9 || tw.VY > lin+1e-9)) || (okA && tw.WZ > ang+1e-9)
		if clipped && !seen[s.Motion.Name] {
			seen[s.Motion.Name] = true
			r.printf("WARNING: the driver limits speeds to max_linear %.2f m/s, max_angular %.2f rad/s: %q runs slower than its name says",
				lin, ang, s.Motion.Name)
		}
	}
}

func newRunner(t target.Target, o Options, tool string) *runner {
	if o.Out == nil {
		o.Out = io.Discard
	}
	t0 := o.Clock.Now()
	if s, ok := o.Evidence.Start(); ok {
		t0 = s // one timeline for the evidence log and the judge
	}
	r := &runner{t: t, o: o, clk: o.Clock, ev: o.Evidence, out: o.Out, t0: t0, scanTimeout: o.ScanTimeout}
	r.rep = &Report{Tool: tool, Target: t.Describe(), Start: r.t0.UTC(), Params: o.Params, Evidence: o.Evidence.Path(),
		DriverBin: driverBin(t)}
	if f, ok := t.(target.Faulter); ok && f.FaultName() != "" {
		r.fault = f
		r.rep.Fault = f.FaultName()
	}
	return r
}

// open runs the guards of the seed: a driver state within StateTimeout (else ABORT, nothing sent), the
// charger unplugged (unless AllowPlugged), no other velocity-command publisher, no e-stop latched. Then it
// reads the driver's configuration, starts the state watcher and disables wheels someone left enabled. An
// error means the run was aborted with nothing sent; the report says why.
func (r *runner) open(ctx context.Context) (target.State, error) {
	r.printf("target: %s", r.t.Describe())
	if r.fault != nil {
		r.printf("fault: %s (a negative control: every path must FAIL)", r.fault.FaultName())
	}
	st, err := r.firstState(ctx)
	if err != nil {
		return st, r.abort(fmt.Sprintf("ABORT: no driver state received within %v - nothing sent (%v)", r.o.StateTimeout, err))
	}
	r.rep.StartState = st.Raw
	r.printf("driver state at start: %s", st.Short())
	switch {
	case st.Plugged && !r.o.AllowPlugged:
		return st, r.abort("ABORT: plugged in - no driving: the driver believes the charger is connected; unplug it, or pass --allow-plugged on the stand")
	case st.Publishers > 0:
		return st, r.abort(fmt.Sprintf("ABORT: %d other velocity-command publisher(s) connected - nothing sent: stop them first (navigation, teleop, a forgotten drive loop); the proof's own publisher would trip the two-publisher e-stop",
			st.Publishers))
	case st.Estop != "":
		return st, r.abort(fmt.Sprintf("ABORT: e-stop latched (%s) - nothing sent: find out why, then clear it (rosorin-base reset) and run again", st.Estop))
	}
	if v := st.Config.ScanTimeoutS; v > 0 {
		r.scanTimeout = time.Duration(v * float64(time.Second))
	}
	if cfg, err := r.t.Config(ctx); err == nil {
		r.rep.Config = cfg
		r.ev.Logf("driver config: %s", cfg)
	} else {
		r.ev.Logf("driver config: %v", err)
	}
	r.watch = target.WatchState(ctx, r.t, r.clk, r.ev, r.o.StatePeriod)
	if st.Enabled {
		r.printf("the wheels are enabled at start: disabling them before anything else")
		if err := r.t.Enable(ctx, false); err != nil {
			r.printf("disable at start failed: %v", err)
		}
	}
	return st, nil
}

// driverBin names the driver binary when the target started it (the simulator), nil otherwise.
func driverBin(t target.Target) *target.BaseBin {
	if d, ok := t.(target.DriverBinary); ok {
		b := d.DriverBinary()
		return &b
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (r *runner) abort(msg string) error {
	r.printf("%s", msg)
	r.rep.Aborted = msg
	r.rep.Teardown = "nothing sent"
	r.rep.TeardownOK = true
	r.rep.End = r.clk.Now().UTC()
	return fmt.Errorf("%w: %s", ErrAborted, msg)
}

// firstState waits up to StateTimeout for a state record.
func (r *runner) firstState(ctx context.Context) (target.State, error) {
	st, err := r.pollState(ctx, r.o.StateTimeout, func(target.State) error { return nil })
	if err != nil {
		return target.State{}, fmt.Errorf("%w: %v", target.ErrNoState, err)
	}
	r.ev.Logf("state: %s", st.Raw)
	return st, nil
}

// pollState reads the driver's state every 200 ms (each read bounded to 2 s) until accept takes one, for up
// to within; it returns the last refusal or read error when time is up, ctx's error when ctx ends.
func (r *runner) pollState(ctx context.Context, within time.Duration, accept func(target.State) error) (target.State, error) {
	deadline := r.clk.Now().Add(within)
	for {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := r.t.State(qctx)
		cancel()
		if err == nil {
			if err = accept(st); err == nil {
				return st, nil
			}
		}
		if !r.clk.Now().Before(deadline) {
			return target.State{}, err
		}
		if serr := r.clk.Sleep(ctx, 200*time.Millisecond); serr != nil {
			return target.State{}, serr
		}
	}
}

// teardown clears the fault, starts the service if a path left it stopped, disables the wheels (retrying
// until the teardown timeout, then the e-stop as the last resort) and reads the end state. It runs on its own
// context: after Ctrl-C the run's context is done.
func (r *runner) teardown() {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.TeardownTimeout)
	defer cancel()
	if r.watch != nil {
		defer r.watch.Close()
	}
	r.ev.Logf("teardown: start")
	r.contactRestore(ctx)
	if r.fault != nil {
		if err := r.fault.Clear(ctx); err != nil {
			r.ev.Logf("teardown: clearing the fault: %v", err)
		}
	}
	if r.serviceDown {
		r.ev.Logf("teardown: starting the service a path left stopped")
		if err := r.t.StartService(ctx); err != nil {
			r.printf("teardown: starting the service failed: %v", err)
		} else {
			r.serviceDown = false
		}
	}
	var err error
	for {
		qctx, qcancel := context.WithTimeout(ctx, 3*time.Second)
		err = r.t.Enable(qctx, false)
		qcancel()
		if err == nil || ctx.Err() != nil {
			break
		}
		r.ev.Logf("teardown: disable: %v", err)
		if r.clk.Sleep(ctx, 500*time.Millisecond) != nil {
			break
		}
	}
	if err == nil {
		r.rep.Teardown, r.rep.TeardownOK = "wheels disabled", true
	} else {
		r.rep.Teardown = fmt.Sprintf("COULD NOT DISABLE THE WHEELS: %v", err)
		ectx, ecancel := context.WithTimeout(context.Background(), 3*time.Second)
		if eerr := r.t.Estop(ectx); eerr == nil {
			r.rep.Teardown += "; the e-stop was latched instead"
		} else {
			r.rep.Teardown += fmt.Sprintf("; the e-stop failed too (%v): use the power switch", eerr)
		}
		ecancel()
	}
	r.ev.Logf("teardown: %s", r.rep.Teardown)
	// The end state: the driver counts a publisher for a moment after its stream closes, so give our own
	// publisher up to 2 s to drop out of the record before reading it.
	var st target.State
	var serr error
	for end := r.clk.Now().Add(2 * time.Second); ; {
		sctx, scancel := context.WithTimeout(context.Background(), 3*time.Second)
		st, serr = r.t.State(sctx)
		scancel()
		if serr != nil || st.Publishers == 0 || !r.clk.Now().Before(end) {
			break
		}
		r.clk.Sleep(ctx, 100*time.Millisecond)
	}
	if serr == nil {
		r.rep.EndState, r.rep.EndLine = st.Raw, st.Short()
	} else {
		r.rep.EndLine = fmt.Sprintf("no driver state (%v)", serr)
	}
	r.rep.End = r.clk.Now().UTC()
}

// summary prints the table of stop times, RESULT and the end state.
func (r *runner) summary() {
	r.rep.Passed = 0
	for _, x := range r.rep.Results {
		if x.Outcome == stand.Pass {
			r.rep.Passed++
		}
	}
	r.rep.IMUTiming = imuTiming
	if lag := target.LagFromMS(r.lagMS); lag.N > 0 {
		r.rep.IMULag = &lag
		r.printf("IMU timing: every sample timed on receipt by the proof's clock; %s", lag)
		if n := lag.Note(); n != "" {
			r.printf("note: %s", n)
		}
	}
	fmt.Fprintln(r.out)
	var tb strings.Builder
	if err := r.rep.WriteTable(&tb); err != nil {
		r.printf("table: %v", err)
	}
	fmt.Fprint(r.out, tb.String())
	r.ev.Logf("table:\n%s", tb.String())
	if r.rep.Aborted != "" {
		r.printf("%s", r.rep.Aborted)
	}
	r.printf("%s", r.rep.ResultLine())
	r.endLines()
}

// endLines prints a failed teardown loudly, then the end state.
func (r *runner) endLines() {
	if !r.rep.TeardownOK {
		r.printf("TEARDOWN: %s", r.rep.Teardown)
	}
	r.printf("end state: %s", r.rep.EndLine)
	r.ev.Flush()
}
