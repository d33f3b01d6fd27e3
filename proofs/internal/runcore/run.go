package runcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/target"
)

// RecordParts points at the parts of a proof's record that the core fills in.
type RecordParts struct {
	Head    *Head
	States  *States
	Ending  *Ending
	Aborted *string // the record's "aborted": why the run stopped before its end
}

// Run is one proof run's common state, used by the proof's goroutine only.
type Run struct {
	T target.Target
	// Engine is the run's clock and its loops (Drive, Poll, Wait); the floor proof sets its TakeIn (the scans).
	Engine
	Ev  *evidence.Log
	Out io.Writer
	// T0 is the start of the run's timeline: the evidence log's start, so the seconds in the log and in the
	// result lines are the same seconds.
	T0 time.Time
	// Fault is the target's negative control (nil when none).
	Fault target.Faulter
	Rec   RecordParts
	// ErrAborted is what an abort's error wraps (each proof's own ErrAborted).
	ErrAborted error
	// DriverBack bounds WaitDriver: after a kill or a service restart the new driver has this long.
	DriverBack time.Duration
	// ServiceDown is set while a path has stopped the service and nobody started it again.
	ServiceDown bool
}

// New sets up a run against t: the timeline, the fault, and the record's head (tool, target, start, the
// driver binary, the fault) and evidence path. A nil out discards the lines.
func New(t target.Target, clk clock.Clock, ev *evidence.Log, out io.Writer, tool string, rec RecordParts) *Run {
	if out == nil {
		out = io.Discard
	}
	t0 := clk.Now()
	if s, ok := ev.Start(); ok {
		t0 = s
	}
	r := &Run{T: t, Engine: Engine{Clock: clk}, Ev: ev, Out: out, T0: t0, Rec: rec}
	*rec.Head = Head{Tool: tool, Target: t.Describe(), Start: t0.UTC()}
	rec.Head.DriverBin = DriverBin(t)
	if f, ok := t.(target.Faulter); ok && f.FaultName() != "" {
		r.Fault, rec.Head.Fault = f, f.FaultName()
	}
	rec.Ending.Evidence = ev.Path()
	return r
}

// DriverBin is the rosorin-base binary a simulated robot runs (target.DriverBinary), for a record's head; nil
// for a running driver.
func DriverBin(t any) *basebin.Bin {
	d, ok := t.(target.DriverBinary)
	if !ok {
		return nil
	}
	b := d.DriverBinary()
	return &b
}

// Printf prints one line for the person and copies it to the evidence log.
func (r *Run) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(r.Out, line)
	r.Ev.Logf("| %s", line)
}

// Result prints a result line and writes its notes and its JSON record x to the evidence log.
func (r *Run) Result(line string, notes []string, x any) {
	r.Printf("%s", line)
	for _, n := range notes {
		r.Ev.Logf("note: %s", n)
	}
	if b, err := json.Marshal(x); err == nil {
		r.Ev.Logf("result: %s", b)
	}
}

// Rel converts a time on the proof's clock into seconds since the start of the run: the judges' timeline.
func (r *Run) Rel(t time.Time) float64 { return t.Sub(r.T0).Seconds() }

// Abort ends the run before anything was sent: it prints msg, records it and a teardown that had nothing to
// undo, and returns an error wrapping ErrAborted.
func (r *Run) Abort(msg string) error {
	r.Printf("%s", msg)
	*r.Rec.Aborted = msg
	r.Rec.Ending.Teardown, r.Rec.Ending.TeardownOK, r.Rec.Head.End = "nothing sent", true, r.Clock.Now().UTC()
	return fmt.Errorf("%w: %s", r.ErrAborted, msg)
}

// Guards are the words of the seed's guards, each proof's own (what to do next differs on the stand and on
// the floor).
type Guards struct {
	// FaultNote follows the fault's name on the "fault:" line.
	FaultNote string
	// Plugged is the ABORT line for a driver that believes the charger plugged in; "" lets the run drive.
	Plugged string
	// Publishers and Estop are the formats of the ABORT lines for another publisher (%d) and a latched
	// e-stop (%s).
	Publishers, Estop string
	// NoStateWrap names target.ErrNoState inside the no-state ABORT's parentheses (the stand proof's line).
	NoStateWrap bool
}

// Open runs the guards of the seed before anything is sent: a driver state within within, then the charger,
// other publishers and a latched e-stop. It records the start state and the driver's configuration. An error
// means the run was aborted with nothing sent; the record says why.
func (r *Run) Open(ctx context.Context, within time.Duration, g Guards) (target.State, error) {
	r.Printf("target: %s", r.T.Describe())
	if r.Fault != nil {
		r.Printf("fault: %s (%s)", r.Fault.FaultName(), g.FaultNote)
	}
	st, err := r.PollState(ctx, within, func(target.State) error { return nil })
	if err != nil {
		if g.NoStateWrap {
			err = fmt.Errorf("%w: %v", target.ErrNoState, err)
		}
		return target.State{}, r.Abort(fmt.Sprintf("ABORT: no driver state received within %v - nothing sent (%v)", within, err))
	}
	r.Ev.Logf("state: %s", st.Raw)
	r.Rec.States.StartState = st.Raw
	r.Printf("driver state at start: %s", st.Short())
	switch {
	case st.Plugged && g.Plugged != "":
		return st, r.Abort(g.Plugged)
	case st.Publishers > 0:
		return st, r.Abort(fmt.Sprintf(g.Publishers, st.Publishers))
	case st.Estop != "":
		return st, r.Abort(fmt.Sprintf(g.Estop, st.Estop))
	}
	if cfg, err := r.T.Config(ctx); err == nil {
		r.Rec.Head.Config = cfg
		r.Ev.Logf("driver config: %s", cfg)
	} else {
		r.Ev.Logf("driver config: %v", err)
	}
	return st, nil
}

// DisableLeftEnabled disables wheels someone left enabled, before anything else is sent.
func (r *Run) DisableLeftEnabled(ctx context.Context, st target.State) {
	if !st.Enabled {
		return
	}
	r.Printf("the wheels are enabled at start: disabling them before anything else")
	if err := r.T.Enable(ctx, false); err != nil {
		r.Printf("disable at start failed: %v", err)
	}
}

// PollState reads the driver's state every 200 ms (each read bounded to 2 s) until accept takes one, for up
// to within; it returns the last refusal or read error when time is up, ctx's error when ctx ends.
func (r *Run) PollState(ctx context.Context, within time.Duration, accept func(target.State) error) (target.State, error) {
	deadline := r.Clock.Now().Add(within)
	var got target.State
	var last error
	err := r.Poll(ctx, r.T, 200*time.Millisecond, 2*time.Second, time.Time{}, func(st target.State, err error) error {
		if err == nil {
			if err = accept(st); err == nil {
				got = st
				return ErrDone
			}
		}
		if !r.Clock.Now().Before(deadline) {
			last = err
			return ErrDone
		}
		return nil
	})
	switch {
	case err != nil:
		return target.State{}, err
	case last != nil:
		return target.State{}, last
	}
	return got, nil
}

// WaitDriver waits up to DriverBack for a driver that answers, is not calibrating its gyro (it publishes no
// IMU then), and whose pid differs from notPid (0: any).
func (r *Run) WaitDriver(ctx context.Context, notPid int) (target.State, error) {
	return r.PollState(ctx, r.DriverBack, func(st target.State) error {
		switch {
		case notPid != 0 && (st.Pids.Driver == notPid || st.Pids.Driver == 0):
			return fmt.Errorf("driver pid still %d", st.Pids.Driver)
		case st.Calibrating:
			return errors.New("driver still calibrating its gyro")
		}
		return nil
	})
}
