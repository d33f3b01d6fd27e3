package stand

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
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
	core  *runcore.Run // the shared part; t, clk, ev, out (and t0, fault) are its, under the names the code uses
	t     target.Target
	o     Options
	clk   clock.Clock
	ev    *evidence.Log
	out   io.Writer
	t0    time.Time
	watch *runcore.StateWatcher
	fault target.Faulter
	rep   *Report

	scanTimeout time.Duration
	contactSaid bool      // the contact reflex was put in log mode (contact.go)
	lagMS       []float64 // driver stamp to receipt, every driver IMU sample of every path (ms)
}

func (r *runner) printf(format string, args ...any) { r.core.Printf(format, args...) }

// rel converts a time on the proof's clock into seconds since the start of the run: the judge's timeline.
func (r *runner) rel(t time.Time) float64 { return r.core.Rel(t) }

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
	r.rep.Paths = stoppath.PathNames(steps)
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
			r.core.Result(x.Line, x.Notes, x)
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
	rep := &Report{}
	c := runcore.New(t, o.Clock, o.Evidence, o.Out, tool, runcore.RecordParts{Head: &rep.Head, States: &rep.States, Ending: &rep.Ending, Aborted: &rep.Aborted})
	c.ErrAborted, c.DriverBack = ErrAborted, o.DriverBack
	rep.Params = o.Params
	return &runner{core: c, t: t, o: o, clk: c.Clock, ev: c.Ev, out: c.Out, t0: c.T0, fault: c.Fault, rep: rep, scanTimeout: o.ScanTimeout}
}

// open runs the guards of the seed (runcore.Run.Open): a driver state within StateTimeout (else ABORT,
// nothing sent), the charger unplugged (unless AllowPlugged), no other velocity-command publisher, no e-stop
// latched. Then it reads the driver's configuration, starts the state watcher and disables wheels someone
// left enabled. An error means the run was aborted with nothing sent; the report says why.
func (r *runner) open(ctx context.Context) (target.State, error) {
	g := runcore.Guards{FaultNote: "a negative control: every path must FAIL", NoStateWrap: true,
		Plugged:    "ABORT: plugged in - no driving: the driver believes the charger is connected; unplug it, or pass --allow-plugged on the stand",
		Publishers: "ABORT: %d other velocity-command publisher(s) connected - nothing sent: stop them first (navigation, teleop, a forgotten drive loop); the proof's own publisher would trip the two-publisher e-stop",
		Estop:      "ABORT: e-stop latched (%s) - nothing sent: find out why, then clear it (rosorin-base reset) and run again"}
	if r.o.AllowPlugged {
		g.Plugged = ""
	}
	st, err := r.core.Open(ctx, r.o.StateTimeout, g)
	if err != nil {
		return st, err
	}
	if v := st.Config.ScanTimeoutS; v > 0 {
		r.scanTimeout = time.Duration(v * float64(time.Second))
	}
	r.watch = runcore.Watch(ctx, r.t, r.clk, r.ev, r.o.StatePeriod)
	r.core.DisableLeftEnabled(ctx, st)
	return st, nil
}

// teardown runs the proofs' teardown (runcore.Run.Teardown) with the contact reflex back to its configured
// mode first, and stops the state watcher.
func (r *runner) teardown() {
	if r.watch != nil {
		defer r.watch.Close()
	}
	r.core.Teardown(r.o.TeardownTimeout, r.contactRestore)
}

// summary prints the table of stop times, RESULT and the end state.
func (r *runner) summary() {
	r.rep.Passed = 0
	for _, x := range r.rep.Results {
		if x.Outcome == vibration.Pass {
			r.rep.Passed++
		}
	}
	r.rep.IMUTiming = imuTiming
	if lag := imu.LagFromMS(r.lagMS); lag.N > 0 {
		r.rep.IMULag = &lag
		r.printf("IMU timing: every sample timed on receipt by the proof's clock; %s", lag)
		if n := lag.Note(); n != "" {
			r.printf("note: %s", n)
		}
	}
	r.core.Summary(r.rep.WriteTable, r.rep.ResultLine())
}
