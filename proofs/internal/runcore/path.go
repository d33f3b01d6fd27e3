package runcore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// Path is what both proofs keep of one path (a floor leg) while it runs: what it is doing, its recordings and
// publisher, and its trigger. It is the stoppath.Firing the chapter 19 triggers act through. Used by the
// proof's goroutine only; a trigger that blocks (a service stop, the operator's button) runs beside it and
// reports over TrigDone.
type Path struct {
	R *Run
	// Title names the path in the lines ("kill fwd 0.2"); Name, Input, Trigger, KillsDriver and StopsService
	// are its spec's (NewPath).
	Title, Name, Input        string
	Trigger                   stoppath.Trigger
	KillsDriver, StopsService bool
	// Phase is what the path is doing, for a TIMEOUT's reason.
	Phase string

	Drv, Below imu.Recording
	Pub        target.Publisher
	StartPid   int // the driver's pid when the path began

	// Trig is the trigger on the proof's clock (zero until known); TrigHow how it was taken when it is not
	// the moment the proof acted (the gamepad, the contact reflex).
	Trig     time.Time
	TrigHow  string
	LastSend time.Time
	// HoldEnd is the end of the hold after the trigger (the judged stretch ends there unless the proof says
	// otherwise).
	HoldEnd  time.Time
	Silent   bool       // the trigger is silence: no command during the hold
	TrigDone chan error // non-nil while a trigger goroutine runs
	// Ctx is the path's context, for the triggers' actions; set before the trigger.
	Ctx context.Context
	// Send sends the path's command once while Await waits; only an error of ctx ends the wait. CmdPeriod is
	// the command rate.
	Send      func(ctx context.Context) error
	CmdPeriod time.Duration
	// OnClose runs in Cleanup just before the recordings close (the floor proof's odometry lets go of the
	// gyro).
	OnClose func()

	over *override // the take-over's publisher and its sender (nil when none)
}

// override is a take-over's second publisher, sending zero velocity every period from a goroutine of its
// own until stopped.
type override struct {
	input string
	pub   target.Publisher
	stop  chan struct{}
	done  chan struct{}

	mu          sync.Mutex
	last        time.Time // the last zero command sent
	sends, errs int
	lastErr     string
}

var _ stoppath.Firing = (*Path)(nil)

// Step runs the path, step i of n, through the skeleton with l (Run) under its hard timeout, then Cleanup
// under a context of its own, whatever happened. timedOut says the path's own timeout ended it (not the
// run's context).
func (p *Path) Step(ctx context.Context, i, n int, timeout time.Duration, l Leg) (err error, timedOut bool) {
	p.R.Ev.Logf("=== [%d/%d] %s", i+1, n, p.Title)
	pctx, cancel := context.WithTimeout(ctx, timeout)
	err = p.Run(pctx, i, n, l)
	timedOut = errors.Is(pctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	p.Cleanup(ctx)
	return err, timedOut
}

// Target is the robot (stoppath.Firing).
func (p *Path) Target() target.Target { return p.R.T }

// Clock is the run's clock (stoppath.Firing).
func (p *Path) Clock() clock.Clock { return p.R.Clock }

// Act takes the trigger time just before the action, on the proof's clock (stoppath.Firing).
func (p *Path) Act(what string, do func() error) error {
	p.Trig = p.R.Clock.Now()
	p.R.Ev.Logf("TRIGGER %s", what)
	if err := do(); err != nil {
		return fmt.Errorf("%s failed: %v", what, err)
	}
	return nil
}

// Silence makes the last command sent the trigger: the driver's timeout runs from there (stoppath.Firing).
func (p *Path) Silence() {
	p.Silent = true
	p.Trig = p.LastSend
	p.R.Ev.Logf("TRIGGER silence (last command at %.3f s)", p.R.Rel(p.Trig))
}

// Beside takes the trigger time now and runs do beside the commands; WaitTrigger waits for it after the hold
// (stoppath.Firing).
func (p *Path) Beside(what string, do func(ctx context.Context) error) {
	p.Trig = p.R.Clock.Now()
	p.R.Ev.Logf("TRIGGER %s", what)
	p.TrigDone = make(chan error, 1)
	go func(ctx context.Context, ch chan<- error) { ch <- do(ctx) }(p.Ctx, p.TrigDone)
}

// Await keeps commanding until event returns: the trigger time is the event's, which only the target knows
// (stoppath.Firing).
func (p *Path) Await(what string, event func(ctx context.Context, prompt func(string)) (time.Time, string, error)) error {
	r, ctx := p.R, p.Ctx
	type result struct {
		at  time.Time
		how string
		err error
	}
	ch := make(chan result, 1)
	r.Ev.Logf("TRIGGER %s requested", what)
	go func() {
		at, how, err := event(ctx, func(msg string) { r.Printf("%s", msg) })
		ch <- result{at, how, err}
	}()
	return r.Drive(ctx, p.CmdPeriod, time.Time{}, func(ctx context.Context) error {
		select {
		case x := <-ch:
			if x.err != nil {
				return fmt.Errorf("%s: %v", what, x.err)
			}
			p.Trig, p.TrigHow = x.at, x.how
			r.Ev.Logf("%s at %.3f s (%s)", what, r.Rel(x.at), x.how)
			return ErrDone
		default:
		}
		if err := p.Send(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	})
}

// Drive sends the path's command (Send) every CmdPeriod until until, on the run's drive loop (Engine.Drive).
// tolerate false (the drive to the trigger) ends it at a refused command; after the trigger the driver may
// be gone or refusing, and the commands go on regardless until ctx ends: the point of every path is that the
// wheels stay stopped while commands keep coming.
func (p *Path) Drive(ctx context.Context, until time.Time, tolerate bool) error {
	return p.R.Drive(ctx, p.CmdPeriod, until, func(ctx context.Context) error {
		if err := p.Send(ctx); err != nil && (!tolerate || ctx.Err() != nil || errors.Is(err, ErrDone)) {
			return err
		}
		return nil
	})
}

// TakeOver opens a publisher on input, takes the trigger time just before its first zero command and keeps
// sending zero every CmdPeriod beside the drive commands until LetGo (stoppath.Firing).
func (p *Path) TakeOver(what, input string) error {
	r, ctx := p.R, p.Ctx
	pub, err := r.T.Publisher(ctx, input)
	if err != nil {
		return fmt.Errorf("%s: %s publisher: %v", what, input, err)
	}
	p.Trig = r.Clock.Now()
	r.Ev.Logf("TRIGGER %s (on %s, every %v)", what, input, p.CmdPeriod)
	o := &override{input: input, pub: pub, stop: make(chan struct{}), done: make(chan struct{})}
	first := make(chan error, 1)
	go o.run(ctx, Engine{Clock: r.Clock}, p.CmdPeriod, first)
	if err := <-first; err != nil {
		<-o.done
		pub.Close()
		return fmt.Errorf("%s: first zero command on %s: %v", what, input, err)
	}
	p.over = o
	return nil
}

func (o *override) send(ctx context.Context, clk clock.Clock) error {
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	err := o.pub.Send(qctx, kinematics.Twist{})
	cancel()
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		o.errs++
		o.lastErr = err.Error()
		return err
	}
	o.sends++
	o.last = clk.Now()
	return nil
}

// run sends zero every period on the take-over's own engine (its goroutine's) until stopped; the first
// command's error goes to first, and a refused first command ends it.
func (o *override) run(ctx context.Context, e Engine, period time.Duration, first chan<- error) {
	defer close(o.done)
	n := 0
	e.Drive(ctx, period, time.Time{}, func(ctx context.Context) error {
		select {
		case <-o.stop:
			return ErrDone
		default:
		}
		err := o.send(ctx, e.Clock)
		if n++; n == 1 {
			first <- err
			if err != nil {
				return ErrDone
			}
		}
		return nil
	})
}

// LetGo ends a take-over: the operator lets go, the zero commands stop and their publisher closes. It
// returns the time of the last zero command (the driver's source_timeout runs from there), zero when no
// take-over ran; a second call does nothing.
func (p *Path) LetGo() time.Time {
	o := p.over
	if o == nil {
		return time.Time{}
	}
	p.over = nil
	close(o.stop)
	<-o.done
	o.pub.Close()
	o.mu.Lock()
	defer o.mu.Unlock()
	msg := ""
	if o.errs > 0 {
		msg = fmt.Sprintf(", %d refused (last: %s)", o.errs, o.lastErr)
	}
	p.R.Ev.Logf("LET GO of the %s take-over: %d zero commands sent%s, the last at %.3f s", o.input, o.sends, msg, p.R.Rel(o.last))
	return o.last
}

// WaitTrigger waits, after the hold, for a trigger that ran beside the commands; name is the path's.
func (p *Path) WaitTrigger(ctx context.Context, name string) error {
	if p.TrigDone == nil {
		return nil
	}
	p.Phase = "waiting for the " + name + " trigger to finish"
	select {
	case err := <-p.TrigDone:
		p.TrigDone = nil
		if err != nil {
			return fmt.Errorf("%s trigger failed: %v", name, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Cleanup ends the path whatever happened, on a context of its own (the path's may be done): stop
// commanding, clear the fault, close the recordings (the board's first: the service needs its port), start
// the service again if the path stopped it, wait for a new driver after a kill, reset, disable, and let the
// wheels settle 0.5 s (the seed's n.spin(0.5)) before the next path.
func (p *Path) Cleanup(parent context.Context) {
	r := p.R
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), r.DriverBack+15*time.Second)
	defer cancel()
	if p.Pub != nil {
		p.Pub.Close()
	}
	p.LetGo()
	if r.Fault != nil {
		if err := r.Fault.Clear(ctx); err != nil {
			r.Ev.Logf("cleanup: clearing fault: %v", err)
		}
	}
	if p.TrigDone != nil {
		select { // the trigger goroutine ends with its context, which ended with the path's
		case <-p.TrigDone:
		case <-ctx.Done():
		}
	}
	if p.OnClose != nil {
		p.OnClose()
	}
	if p.Below != nil {
		p.Below.Close()
	}
	if p.Drv != nil {
		p.Drv.Close()
	}
	if p.StopsService && r.ServiceDown {
		r.Ev.Logf("cleanup: starting the service again")
		if err := r.T.StartService(ctx); err != nil {
			r.Printf("%s: starting the service again failed: %v", p.Title, err)
		} else {
			r.ServiceDown = false
		}
	}
	if p.KillsDriver && !p.Trig.IsZero() {
		if st, err := r.WaitDriver(ctx, p.StartPid); err != nil {
			r.Printf("%s: the driver is not back after %v: %v", p.Title, r.DriverBack, err)
		} else {
			r.Ev.Logf("cleanup: driver back, pid %d (was %d)", st.Pids.Driver, p.StartPid)
		}
	}
	if err := r.T.Reset(ctx); err != nil {
		r.Ev.Logf("cleanup: reset: %v", err)
	}
	if err := r.T.Enable(ctx, false); err != nil {
		r.Ev.Logf("cleanup: disable: %v", err)
	}
	r.Wait(ctx, 500*time.Millisecond)
}
