package floor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// ErrAborted is returned when a guard stopped the run before anything was sent.
var ErrAborted = errors.New("floor proof aborted")

// runner is one floor proof run, used by one goroutine (the proof's). The scan feed and the recordings run
// in goroutines of their own and hand their data over through channels and the recordings' locks; the
// odometry, the judges and the decisions are this goroutine's.
type runner struct {
	core *runcore.Run // the shared part; t, clk, ev and out are its, under the names the code uses
	t    target.Target
	sf   target.ScanFollower
	o    Options
	clk  clock.Clock
	ev   *evidence.Log
	out  io.Writer
	rep  *Report
	feed *feed
	odo  *odometer

	covered   float64 // m the last leg covered, when it was a forward leg (0 otherwise)
	coveredAt float64 // m/s: that forward leg's speed
	stopProof string  // set when the proof must stop itself: why
	contact   ContactCount
}

func (r *runner) printf(format string, args ...any) { r.core.Printf(format, args...) }

// rel converts a time on the proof's clock into seconds since the start of the run: the judges' timeline.
func (r *runner) rel(t time.Time) float64 { return r.core.Rel(t) }

func (r *runner) now() float64 { return r.rel(r.clk.Now()) }

// pump runs every scan that has arrived through the odometry (and the live rules hooked on it). It is the
// run's engine's TakeIn: every wait of the proof's goroutine takes in scans.
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

// Prove runs the floor proof's steps against t and returns the report; the error is non-nil only when a
// guard aborted the run before anything was sent, or the options are invalid. Whatever happens after the
// guards, the teardown disables the wheels before Prove returns.
func Prove(ctx context.Context, t target.Target, steps []Step, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	rep := &Report{Params: o.Params, LegS: o.Leg.Seconds(), HoldS: o.Hold.Seconds(), Planned: stoppath.Lines(steps), motions: o.Paths.Motions()}
	c := runcore.New(t, o.Clock, o.Evidence, o.Out, "stopproof floor prove", runcore.RecordParts{Head: &rep.Head, States: &rep.States, Ending: &rep.Ending, Aborted: &rep.Aborted})
	r := &runner{core: c, t: t, o: o, clk: c.Clock, ev: c.Ev, out: c.Out, rep: rep}
	c.ErrAborted, c.DriverBack, c.TakeIn = ErrAborted, o.DriverBack, r.pump // the engine takes in scans while it waits
	for _, s := range o.Paths {
		r.rep.rows = append(r.rep.rows, row{name: s.Name, label: s.RowLabel()})
		if s.Release != "" {
			r.rep.rows = append(r.rep.rows, row{name: s.Name, label: s.ReleaseRow, release: true})
		}
	}
	r.rep.Paths = stoppath.PathNames(steps)
	r.ev.Logf("stopproof floor prove: target %s; steps %d; leg %v, hold %v; params %+v", t.Describe(), len(steps), o.Leg, o.Hold, o.Params)
	sf, ok := t.(target.ScanFollower)
	if !ok {
		return r.rep, r.core.Abort("ABORT: the target does not stream LiDAR scans - without measured odometry there is no floor proof; nothing sent")
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
		for _, x := range res {
			r.core.Result(x.Line, x.Notes, x)
		}
		r.rep.Results = append(r.rep.Results, res...)
		r.noteContact(ctx, res[0].Name) // contact.go
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

// open runs the seed's guards before anything is sent (runcore.Run.Open: a driver state, the charger
// unplugged, no other velocity publisher, no e-stop latched), disables wheels left enabled, and wants
// measured odometry (scans arriving and matching).
func (r *runner) open(ctx context.Context) error {
	st, err := r.core.Open(ctx, r.o.StateTimeout, runcore.Guards{FaultNote: "a negative control",
		Plugged:    "ABORT: plugged in - no driving: the driver believes the charger is connected; unplug it (the floor proof never drives plugged in)",
		Publishers: "ABORT: %d other velocity-command publisher(s) connected - nothing sent: stop them first (navigation, teleop)",
		Estop:      "ABORT: e-stop latched (%s) - nothing sent: find out why, then clear it and run again"})
	if err != nil {
		return err
	}
	r.core.DisableLeftEnabled(ctx, st)
	if _, ok := r.waitOdo(ctx, r.o.OdoWait); !ok {
		return r.core.Abort(fmt.Sprintf("ABORT: no measured odometry within %v (scans %d, odometry errors %d, last: %s) - nothing sent",
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

// teardown clears the fault, starts a service a leg left stopped, disables the wheels (the e-stop as the
// last resort) and reads the end state, on a context of its own (runcore.Run.Teardown).
func (r *runner) teardown() { r.core.Teardown(r.o.TeardownTimeout, nil) }

// summary prints the table, RESULT and the end state.
func (r *runner) summary() {
	r.rep.Passed, r.rep.Failed = 0, 0
	for _, x := range r.rep.Results {
		switch x.Outcome {
		case odometry.Pass:
			r.rep.Passed++
		case odometry.Fail, odometry.Timeout:
			r.rep.Failed++
		}
	}
	r.feed.mu.Lock()
	r.rep.ScansDropped = r.feed.dropped
	r.feed.mu.Unlock()
	r.core.Summary(r.rep.WriteTable, r.rep.ResultLine(), r.contactLine()) // contact.go
}

var _ stoppath.Firing = (*legRun)(nil) // through runcore.Path
