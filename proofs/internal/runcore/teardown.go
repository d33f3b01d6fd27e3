package runcore

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rosorin/rosorin/proofs/target"
)

// Teardown ends every run that got past the guards, after failures, timeouts and Ctrl-C, on a context of
// its own bounded by timeout (after Ctrl-C the run's context is done): first (when not nil, the stand
// proof's contact reflex), clear the fault, start the service if a path left it stopped and wait for its
// driver, disable the wheels (retrying until the timeout, then the e-stop as the last resort), and read the
// end state.
func (r *Run) Teardown(timeout time.Duration, first func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r.Ev.Logf("teardown: start")
	if first != nil {
		first(ctx)
	}
	if r.Fault != nil {
		if err := r.Fault.Clear(ctx); err != nil {
			r.Ev.Logf("teardown: clearing the fault: %v", err)
		}
	}
	if r.ServiceDown {
		r.Ev.Logf("teardown: starting the service a path left stopped")
		if err := r.T.StartService(ctx); err != nil {
			r.Printf("teardown: starting the service failed: %v", err)
		} else {
			r.ServiceDown = false
			if _, err := r.WaitDriver(ctx, 0); err != nil {
				r.Ev.Logf("teardown: driver not back: %v", err)
			}
		}
	}
	end := r.Rec.Ending
	err := r.disable(ctx)
	if err == nil {
		end.Teardown, end.TeardownOK = "wheels disabled", true
	} else {
		end.Teardown = fmt.Sprintf("COULD NOT DISABLE THE WHEELS: %v", err)
		ectx, ecancel := context.WithTimeout(context.Background(), 3*time.Second)
		if eerr := r.T.Estop(ectx); eerr == nil {
			end.Teardown += "; the e-stop was latched instead"
		} else {
			end.Teardown += fmt.Sprintf("; the e-stop failed too (%v): use the power switch", eerr)
		}
		ecancel()
	}
	r.Ev.Logf("teardown: %s", end.Teardown)
	r.endState(ctx)
	r.Rec.Head.End = r.Clock.Now().UTC()
}

// disable asks for the wheels disabled every 500 ms (each request bounded to 3 s) until it works or ctx ends.
func (r *Run) disable(ctx context.Context) error {
	for {
		qctx, qcancel := context.WithTimeout(ctx, 3*time.Second)
		err := r.T.Enable(qctx, false)
		qcancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		r.Ev.Logf("teardown: disable: %v", err)
		if r.Clock.Sleep(ctx, 500*time.Millisecond) != nil {
			return err
		}
	}
}

// endState reads the end state. The driver counts a publisher for a moment after its stream closes, so our
// own publisher gets up to 2 s to drop out of the record before it is read.
func (r *Run) endState(ctx context.Context) {
	var st target.State
	var err error
	end := r.Clock.Now().Add(2 * time.Second)
	// Each read on a context of its own: after a teardown that used up its time the end state is read all the same.
	bg := Engine{Clock: r.Clock}
	bg.Poll(context.WithoutCancel(ctx), r.T, 100*time.Millisecond, 3*time.Second, time.Time{}, func(s target.State, e error) error {
		st, err = s, e
		if err != nil || st.Publishers == 0 || !r.Clock.Now().Before(end) {
			return ErrDone
		}
		return nil
	})
	if err == nil {
		r.Rec.States.EndState, r.Rec.States.EndLine = st.Raw, st.Short()
	} else {
		r.Rec.States.EndLine = fmt.Sprintf("no driver state (%v)", err)
	}
}

// Summary prints the summary's end after what the proof printed before it: a blank line and the table (to
// the evidence log too), why the run stopped early, the result line and the proof's own lines, then
// EndLines.
func (r *Run) Summary(writeTable func(io.Writer) error, resultLine string, more ...string) {
	fmt.Fprintln(r.Out)
	var tb strings.Builder
	if err := writeTable(&tb); err != nil {
		r.Printf("table: %v", err)
	}
	fmt.Fprint(r.Out, tb.String())
	r.Ev.Logf("table:\n%s", tb.String())
	if *r.Rec.Aborted != "" {
		r.Printf("%s", *r.Rec.Aborted)
	}
	r.Printf("%s", resultLine)
	for _, l := range more {
		r.Printf("%s", l)
	}
	r.EndLines()
}

// EndLines prints a failed teardown loudly, then the end state, and flushes the evidence log.
func (r *Run) EndLines() {
	if !r.Rec.Ending.TeardownOK {
		r.Printf("TEARDOWN: %s", r.Rec.Ending.Teardown)
	}
	r.Printf("end state: %s", r.Rec.States.EndLine)
	r.Ev.Flush()
}
