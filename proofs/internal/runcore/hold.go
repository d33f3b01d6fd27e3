package runcore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
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

// HoldSmall is the timeout path's small command after the zeros (Clearpath's burst was 0.10-0.15 m/s).
var HoldSmall = kinematics.Twist{VX: 0.05}

// ResumeSlack is how long the resume is commanded and judged beyond the ramp's own time (the target must be
// reached within it, with the ramp judge's slack).
const ResumeSlack = 1200 * time.Millisecond

// HoldReady refuses a hold path on a robot whose wheels are commanded before it began: a stays-still proof
// on a moving robot proves nothing (ErrNotRun).
func HoldReady(st target.State) error {
	if v := st.BodyVel; v != [3]float64{} {
		return fmt.Errorf("%w: the wheels are commanded %v before the path began: a stays-still proof on a moving robot proves nothing",
			ErrNotRun, v)
	}
	return nil
}

// StillWindow is the hold's still window: from StopAllowance after the trigger (the stop itself is surely
// over, whatever the event still had to do: a restart takes seconds, and a driver that moved the wheels
// meanwhile must be seen; for the timeout path from the first zero command, where a kept ramp bursts) to
// still after the later of its start and now (the event's end).
func (p *Path) StillWindow(kind stoppath.HoldKind, ev HoldEvent, still time.Duration) (from, to time.Time) {
	from = p.Trig.Add(StopAllowance)
	if kind == stoppath.HoldTimeout {
		from = ev.Done
	}
	to = from
	if now := p.R.Clock.Now(); now.After(to) {
		to = now
	}
	return from, to.Add(still)
}

// BoardFramesComplete is true when the frames are the board's own record (target.BoardFramer: no gap rule),
// false for the driver's sampled report.
func (p *Path) BoardFramesComplete() bool {
	_, ok := p.R.T.(target.BoardFramer)
	return ok
}

// StillFrames is Frames from from on, on the judge's timeline (the run's seconds), for judge/still and
// judge/ramp.
func (p *Path) StillFrames(from time.Time, states func(since time.Time) []target.State) (out []still.Frame, src string) {
	fs, src := p.Frames(from, states, kinematics.DefaultGeometry())
	out = make([]still.Frame, len(fs))
	for i, f := range fs {
		out[i] = still.Frame{T: p.R.Rel(f.At), VX: f.VX, VY: f.VY, WZ: f.WZ}
	}
	return out, src
}

// StillParams are judge/still's defaults with the frame gap rule when the frames are the driver's sampled
// report (every 0.2 s: a 0.5 s silence is a hole).
func (p *Path) StillParams() still.Params {
	sp := still.DefaultParams()
	if !p.BoardFramesComplete() {
		sp.MaxFrameGap = 0.5
	}
	return sp
}

// StartedMoving turns a still verdict's NOT RUN (moving when the window began) into the FAIL it is on a hold
// path: the path began on a still robot (HoldReady) and the stop has had StopAllowance, so motion at the
// window's start is the event's failure (not stopped, or moving again at once), not a reason to skip.
func StartedMoving(v still.Verdict) still.Verdict {
	if v.Outcome == still.NotRun {
		v.Outcome = still.Fail
		v.Reason = fmt.Sprintf("moving %.1f s after the trigger, when the still window began: %s", StopAllowance.Seconds(), v.Reason)
	}
	return v
}

// RampParams are judge/ramp's defaults with the driver's limits from its configuration (0: not reported)
// and the frame gap rule as StillParams'.
func (p *Path) RampParams(lim api.ConfigSummary) ramp.Params {
	rp := ramp.DefaultParams()
	if lim.MaxAccelLinear > 0 {
		rp.MaxAccelLinear = lim.MaxAccelLinear
	}
	if lim.MaxAccelAngular > 0 {
		rp.MaxAccelAngular = lim.MaxAccelAngular
	}
	if lim.ControlRateHz > 0 {
		rp.Tick = 1 / lim.ControlRateHz
	}
	if !p.BoardFramesComplete() {
		rp.MaxFrameGap = 0.5
	}
	return rp
}

// ResumeFor is how long after the act the resume to tw is commanded and judged: the ramp's time from zero
// under rp, plus ResumeSlack.
func ResumeFor(tw kinematics.Twist, rp ramp.Params) time.Duration {
	rampT := math.Max(math.Max(math.Abs(tw.VX), math.Abs(tw.VY))/rp.MaxAccelLinear, math.Abs(tw.WZ)/rp.MaxAccelAngular)
	return time.Duration((rampT + ResumeSlack.Seconds()) * float64(time.Second))
}

// ClampTwist is the command as the gate can reach it under the driver's speed limits (0: not reported).
func ClampTwist(t kinematics.Twist, c api.ConfigSummary) kinematics.Twist {
	clip := func(v, lim float64) float64 {
		if lim <= 0 {
			return v
		}
		return math.Max(-lim, math.Min(lim, v))
	}
	return kinematics.Twist{VX: clip(t.VX, c.MaxLinear), VY: clip(t.VY, c.MaxLinear), WZ: clip(t.WZ, c.MaxAngular)}
}

// RampTarget is tw as judge/ramp's Target.
func RampTarget(tw kinematics.Twist) ramp.Twist { return ramp.Twist{VX: tw.VX, VY: tw.VY, WZ: tw.WZ} }

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
