package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// ErrAborted is returned when a guard stopped the run before anything was sent.
var ErrAborted = errors.New("floor proof aborted")

// runner is one floor proof run, used by one goroutine (the proof's). The scan feed and the recordings run
// in goroutines of their own and hand their data over through channels and the recordings' locks; the
// odometry, the judges and the decisions are this goroutine's.
type runner struct {
	t     target.Target
	sf    target.ScanFollower
	o     Options
	clk   target.Clock
	ev    *target.Evidence
	out   io.Writer
	t0    time.Time
	fault target.Faulter
	rep   *Report
	feed  *feed
	odo   *odometer

	serviceDown bool
	covered     float64 // m the last leg covered, when it was a forward leg (0 otherwise)
	coveredAt   float64 // m/s: that forward leg's speed
	stopProof   string  // set when the proof must stop itself: why
	contact     ContactCount
}

func (r *runner) printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(r.out, line)
	r.ev.Logf("| %s", line)
}

// rel converts a time on the proof's clock into seconds since the start of the run: the judges' timeline.
func (r *runner) rel(t time.Time) float64 { return t.Sub(r.t0).Seconds() }

func (r *runner) now() float64 { return r.rel(r.clk.Now()) }

// pump runs every scan that has arrived through the odometry (and the live rules hooked on it).
func (r *runner) pump() {
	for {
		select {
		case s := <-r.feed.ch:
			r.odo.add(r.rel(s.At), s.Scan)
		default:
			return
		}
	}
}

// sleep waits d while taking in scans.
func (r *runner) sleep(ctx context.Context, d time.Duration) error {
	end := r.clk.Now().Add(d)
	for {
		r.pump()
		left := end.Sub(r.clk.Now())
		if left <= 0 {
			return nil
		}
		if err := r.clk.Sleep(ctx, min(left, 20*time.Millisecond)); err != nil {
			return err
		}
	}
}

// Prove runs the floor proof's steps against t and returns the report; the error is non-nil only when a
// guard aborted the run before anything was sent, or the options are invalid. Whatever happens after the
// guards, the teardown disables the wheels before Prove returns.
func Prove(ctx context.Context, t target.Target, steps []Step, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	t0 := o.Clock.Now()
	if s, ok := o.Evidence.Start(); ok {
		t0 = s
	}
	r := &runner{t: t, o: o, clk: o.Clock, ev: o.Evidence, out: o.Out, t0: t0}
	r.rep = &Report{Tool: "stopproof floor prove", Target: t.Describe(), Start: t0.UTC(), Params: o.Params, LegS: o.Leg.Seconds(),
		HoldS: o.Hold.Seconds(), Planned: len(steps), Evidence: o.Evidence.Path(), motions: o.Paths.Motions()}
	for _, s := range o.Paths {
		r.rep.rows = append(r.rep.rows, row{s.Name, s.RowLabel()})
	}
	for _, s := range steps {
		if !contains(r.rep.Paths, s.Spec.Name) {
			r.rep.Paths = append(r.rep.Paths, s.Spec.Name)
		}
	}
	if d, ok := t.(target.DriverBinary); ok {
		b := d.DriverBinary()
		r.rep.DriverBin = &b
	}
	if f, ok := t.(target.Faulter); ok && f.FaultName() != "" {
		r.fault, r.rep.Fault = f, f.FaultName()
	}
	r.ev.Logf("stopproof floor prove: target %s; steps %d; leg %v, hold %v; params %+v", t.Describe(), len(steps), o.Leg, o.Hold, o.Params)
	sf, ok := t.(target.ScanFollower)
	if !ok {
		return r.rep, r.abort("ABORT: the target does not stream LiDAR scans - without measured odometry there is no floor proof; nothing sent")
	}
	r.sf = sf
	var err error
	if r.odo, err = newOdometer(); err != nil {
		return nil, err
	}
	r.odo.logf = r.ev.Logf
	r.feed = startFeed(ctx, sf, r.clk)
	defer r.feed.close()
	if err := r.open(ctx); err != nil {
		return r.rep, err
	}
	defer func() {
		r.teardown()
		r.summary()
	}()
	for i, s := range steps {
		if ctx.Err() != nil || r.stopProof != "" {
			break
		}
		res := r.step(ctx, i, len(steps), s)
		r.printf("%s", res.Line)
		for _, n := range res.Notes {
			r.ev.Logf("note: %s", n)
		}
		if b, err := json.Marshal(res); err == nil {
			r.ev.Logf("result: %s", b)
		}
		r.rep.Results = append(r.rep.Results, res)
		r.noteContact(ctx, res.Name) // contact.go
		r.ev.Flush()
	}
	switch {
	case r.stopProof != "":
		r.rep.StoppedProof = strings.HasPrefix(r.stopProof, "STOPPING")
		r.rep.Aborted = r.stopProof
	case ctx.Err() != nil:
		r.rep.Aborted = "interrupted: " + ctx.Err().Error()
	}
	return r.rep, nil
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
	r.rep.Aborted, r.rep.Teardown, r.rep.TeardownOK, r.rep.End = msg, "nothing sent", true, r.clk.Now().UTC()
	return fmt.Errorf("%w: %s", ErrAborted, msg)
}

// open runs the seed's guards before anything is sent: a driver state, the charger unplugged, no other
// velocity publisher, no e-stop latched, and measured odometry (scans arriving and matching). Wheels left
// enabled are disabled first.
func (r *runner) open(ctx context.Context) error {
	r.printf("target: %s", r.t.Describe())
	if r.fault != nil {
		r.printf("fault: %s (a negative control)", r.fault.FaultName())
	}
	st, err := r.pollState(ctx, r.o.StateTimeout, func(target.State) error { return nil })
	if err != nil {
		return r.abort(fmt.Sprintf("ABORT: no driver state received within %v - nothing sent (%v)", r.o.StateTimeout, err))
	}
	r.rep.StartState = st.Raw
	r.printf("driver state at start: %s", st.Short())
	switch {
	case st.Plugged:
		return r.abort("ABORT: plugged in - no driving: the driver believes the charger is connected; unplug it (the floor proof never drives plugged in)")
	case st.Publishers > 0:
		return r.abort(fmt.Sprintf("ABORT: %d other velocity-command publisher(s) connected - nothing sent: stop them first (navigation, teleop)", st.Publishers))
	case st.Estop != "":
		return r.abort(fmt.Sprintf("ABORT: e-stop latched (%s) - nothing sent: find out why, then clear it and run again", st.Estop))
	}
	if cfg, err := r.t.Config(ctx); err == nil {
		r.rep.Config = cfg
	}
	if st.Enabled {
		r.printf("the wheels are enabled at start: disabling them before anything else")
		if err := r.t.Enable(ctx, false); err != nil {
			r.printf("disable at start failed: %v", err)
		}
	}
	if _, ok := r.waitOdo(ctx, r.o.OdoWait); !ok {
		return r.abort(fmt.Sprintf("ABORT: no measured odometry within %v (scans %d, odometry errors %d, last: %s) - nothing sent",
			r.o.OdoWait, r.odo.scans, r.odo.errs, r.odo.lastErr))
	}
	return nil
}

// waitOdo waits up to d for an estimate younger than 0.5 s.
func (r *runner) waitOdo(ctx context.Context, d time.Duration) (est, bool) {
	end := r.clk.Now().Add(d)
	for {
		r.pump()
		if e, ok := r.odo.latest(); ok && r.now()-e.T < 0.5 && e.E.Used > 0 { // a match, not the origin alone
			return e, true
		}
		if !r.clk.Now().Before(end) || r.clk.Sleep(ctx, 50*time.Millisecond) != nil {
			return est{}, false
		}
	}
}

// pollState reads the driver's state every 200 ms until accept takes one, for up to within.
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
		if serr := r.sleep(ctx, 200*time.Millisecond); serr != nil {
			return target.State{}, serr
		}
	}
}

// waitDriver waits for a driver that answers, is not calibrating, and whose pid is not notPid (0: any).
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

// teardown clears the fault, starts a service a leg left stopped, disables the wheels (the e-stop as the
// last resort) and reads the end state, on a context of its own.
func (r *runner) teardown() {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.TeardownTimeout)
	defer cancel()
	r.ev.Logf("teardown: start")
	if r.fault != nil {
		if err := r.fault.Clear(ctx); err != nil {
			r.ev.Logf("teardown: clearing the fault: %v", err)
		}
	}
	if r.serviceDown {
		if err := r.t.StartService(ctx); err != nil {
			r.printf("teardown: starting the service failed: %v", err)
		} else {
			r.serviceDown = false
			if _, err := r.waitDriver(ctx, 0); err != nil {
				r.ev.Logf("teardown: driver not back: %v", err)
			}
		}
	}
	var err error
	for {
		qctx, qcancel := context.WithTimeout(ctx, 3*time.Second)
		err = r.t.Enable(qctx, false)
		qcancel()
		if err == nil || ctx.Err() != nil || r.clk.Sleep(ctx, 500*time.Millisecond) != nil {
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

// summary prints the table, RESULT and the end state.
func (r *runner) summary() {
	r.rep.Passed, r.rep.Failed = 0, 0
	for _, x := range r.rep.Results {
		switch x.Outcome {
		case floor.Pass:
			r.rep.Passed++
		case floor.Fail, floor.Timeout:
			r.rep.Failed++
		}
	}
	r.feed.mu.Lock()
	r.rep.ScansDropped = r.feed.dropped
	r.feed.mu.Unlock()
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
	r.printf("%s", r.contactLine()) // contact.go
	if !r.rep.TeardownOK {
		r.printf("TEARDOWN: %s", r.rep.Teardown)
	}
	r.printf("end state: %s", r.rep.EndLine)
	r.ev.Flush()
}

var _ stoppath.Firing = (*legRun)(nil)
