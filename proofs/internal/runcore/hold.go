package runcore

import (
	"context"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// The hold paths' event (stoppath.HoldKind) and the deliberate act after it, for every proof that runs them:
// the publisher keeps commanding the old motion throughout (a velocity source does not know about resets
// and restarts), and only the act may let the wheels turn again.

// StopAllowance is how long after the trigger the stop itself may take before the hold's still window
// begins: the slowest stop measured, the deadman's 0.75 s (docs/safety-case.md), with a margin.
const StopAllowance = 1500 * time.Millisecond

// HoldEvent is what completing the event measured.
type HoldEvent struct {
	// Done is when the event was over: the reset sent, a new driver answering, the board streaming again,
	// the first zero command after the deadman.
	Done time.Time
	// What names it for the lines ("reset sent", "new driver pid 123").
	What string
}

// CompleteEvent completes the hold path's event after its trigger, commanding through send meanwhile (the
// deadman's silence excepted), and returns when it is over. states reads the run's state history since a
// time (the state watcher's). zero sends the zero command of the timeout path.
func (p *Path) CompleteEvent(ctx context.Context, kind stoppath.HoldKind, states func(since time.Time) []target.State,
	send func(ctx context.Context) error) (HoldEvent, error) {
	r := p.R
	keepSending := func(until time.Time, done func() (HoldEvent, bool)) (HoldEvent, error) {
		var ev HoldEvent
		err := r.Drive(ctx, p.CmdPeriod, until, func(ctx context.Context) error {
			if err := send(ctx); err != nil && ctx.Err() != nil {
				return err
			}
			if done != nil {
				if e, ok := done(); ok {
					ev = e
					return ErrDone
				}
			}
			return nil
		})
		return ev, err
	}
	newDriver := func() (HoldEvent, bool) {
		for _, st := range states(p.Trig) {
			if st.Pids.Driver != 0 && st.Pids.Driver != p.StartPid && !st.Calibrating {
				return HoldEvent{Done: st.At, What: fmt.Sprintf("new driver pid %d answering (was %d)", st.Pids.Driver, p.StartPid)}, true
			}
		}
		return HoldEvent{}, false
	}
	giveUp := p.Trig.Add(r.DriverBack)
	switch kind {
	case stoppath.HoldReset:
		// The e-stop stops the wheels; the reset comes while the publisher still commands.
		if _, err := keepSending(p.Trig.Add(600*time.Millisecond), nil); err != nil {
			return HoldEvent{}, err
		}
		at := r.Clock.Now()
		r.Ev.Logf("RESET of the e-stop (no enable), the publisher still commanding")
		if err := r.T.Reset(ctx); err != nil {
			return HoldEvent{}, fmt.Errorf("reset: %v", err)
		}
		return HoldEvent{Done: at, What: "e-stop reset (no enable)"}, nil
	case stoppath.HoldRestart, stoppath.HoldUSB:
		ev, err := keepSending(giveUp, newDriver)
		if err == nil && ev.Done.IsZero() {
			err = fmt.Errorf("no new driver within %v of the trigger", r.DriverBack)
		}
		return ev, err
	case stoppath.HoldService:
		if _, err := keepSending(giveUp, func() (HoldEvent, bool) {
			select {
			case err := <-p.TrigDone:
				p.TrigDone = nil
				return HoldEvent{What: fmt.Sprint(err)}, true
			default:
				return HoldEvent{}, false
			}
		}); err != nil {
			return HoldEvent{}, err
		}
		if p.TrigDone != nil {
			return HoldEvent{}, fmt.Errorf("the service did not stop within %v", r.DriverBack)
		}
		r.Ev.Logf("starting the service again, the publisher still commanding")
		if err := r.T.StartService(ctx); err != nil {
			return HoldEvent{}, fmt.Errorf("starting the service again: %v", err)
		}
		r.ServiceDown = false
		ev, err := keepSending(r.Clock.Now().Add(r.DriverBack), newDriver)
		if err == nil && ev.Done.IsZero() {
			err = fmt.Errorf("no new driver within %v of the service's start", r.DriverBack)
		}
		return ev, err
	case stoppath.HoldBoardReset:
		// The driver latches after 0.5 s of silence; the board streams again after its boot.
		back := p.Trig.Add(stoppath.BoardBoot)
		ev, err := keepSending(giveUp, func() (HoldEvent, bool) {
			if r.Clock.Now().Before(back) {
				return HoldEvent{}, false
			}
			for _, st := range states(back) {
				if !st.BoardSilent {
					return HoldEvent{Done: st.At, What: "board streaming again"}, true
				}
			}
			return HoldEvent{}, false
		})
		if err == nil && ev.Done.IsZero() {
			err = fmt.Errorf("the board did not stream again within %v of its reset", r.DriverBack)
		}
		return ev, err
	case stoppath.HoldTimeout:
		// Silence past the deadman (the trigger was the last command) until the stop is surely over, then
		// zero commands: the still window starts with the first (a ramp that kept the old speed bursts there).
		if err := r.Wait(ctx, p.Trig.Add(StopAllowance).Sub(r.Clock.Now())); err != nil {
			return HoldEvent{}, err
		}
		return HoldEvent{Done: r.Clock.Now(), What: "zero commands after the deadman"}, nil
	}
	return HoldEvent{}, fmt.Errorf("unknown hold event %q", kind)
}

// Resume is the deliberate act after a hold: reset the e-stop when one is latched (the restarts start
// latched), then enable. It returns the instant of the enable.
func (p *Path) Resume(ctx context.Context) (time.Time, error) {
	r := p.R
	st, err := r.PollState(ctx, 3*time.Second, func(target.State) error { return nil })
	if err != nil {
		return time.Time{}, fmt.Errorf("no driver state before the enable: %v", err)
	}
	if st.Estop != "" {
		r.Ev.Logf("DELIBERATE ACT: reset of the latched e-stop (%s)", st.Estop)
		if err := r.T.Reset(ctx); err != nil {
			return time.Time{}, fmt.Errorf("reset before the enable: %v", err)
		}
	}
	at := r.Clock.Now()
	r.Ev.Logf("DELIBERATE ACT: enable true")
	if err := r.T.Enable(ctx, true); err != nil {
		return time.Time{}, fmt.Errorf("enable refused: %v", err)
	}
	return at, nil
}

// Frames is what the board was told from from on: the target's own record when it has one
// (target.BoardFramer, the simulator), else the driver's report of its last wheel frame in each state of
// states (every state period). src names which.
func (p *Path) Frames(from time.Time, states func(since time.Time) []target.State, g kinematics.Geometry) (out []TwistAt, src string) {
	if bf, ok := p.R.T.(target.BoardFramer); ok {
		for _, f := range bf.BoardFrames(from) {
			out = append(out, TwistAt{f.At, kinematics.BodyTwist(f.RPS, g)})
		}
		return out, "the motor frames at the board (the simulator's record)"
	}
	for _, st := range states(from) {
		out = append(out, TwistAt{st.At, kinematics.BodyTwist(st.WheelRPS, g)})
	}
	return out, "the driver's report of its last wheel frame (state records)"
}

// TwistAt is a body velocity the board was told, at its time.
type TwistAt struct {
	At time.Time
	kinematics.Twist
}

// ErrNotRun is stoppath.ErrNotRun.
var ErrNotRun = stoppath.ErrNotRun
