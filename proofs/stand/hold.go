package stand

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// The hold paths (Spec.Hold, docs/safety-case.md "No motion without a deliberate act"): spin the wheels up,
// fire the event with the publisher commanding the old motion throughout, complete the event (the reset, the
// new driver, the board back), then judge a still window of HoldStill with judge/still (the board's frames
// and the IMU's vibration); then the deliberate act (reset when latched, enable; for the timeout path a
// small command after zeros) and judge the resume with judge/ramp (the board's frames from zero through the
// ramp; the wheels must also be seen turning again). Two lines per run: "held" and "resumed".

// HoldSmall is the timeout path's small command after the zeros (runcore.HoldSmall).
var HoldSmall = runcore.HoldSmall

// holdState is a hold path's observations.
type holdState struct {
	ev       runcore.HoldEvent
	rec      imu.Recording // the IMU from after the event (a restarted driver's stream is a new one)
	from, to time.Time     // the still window
	frameSrc string
	act      time.Time // the deliberate act (enable; for the timeout path the small command's first send)
	cmd      time.Time // the first command after it
	twist    kinematics.Twist
	stillV   still.Verdict
}

// holdLeg is the stand proof's leg for a hold path.
func (p *pathRun) holdLeg() runcore.Leg {
	r, s := p.r, p.s
	h := &holdState{twist: s.Motion.Twist}
	p.hold = h
	return runcore.Leg{Noun: "path", Going: "spinning up", GoingPhase: "spinning up", Until: r.o.HoldSpin,
		HoldPhase: "completing the " + string(s.Spec.Hold) + " event, the publisher still commanding", Verbose: true,
		Ready: func(ctx context.Context, st target.State) error {
			p.before = st
			if err := runcore.HoldReady(st); err != nil {
				return err
			}
			return p.contactMode(ctx, st)
		},
		Start:     func() { p.event("spin-up", nil) },
		Triggered: func() { p.event("trigger", map[string]any{"t": r.rel(p.Trig), "how": p.TrigHow}) },
		Hold:      func(ctx context.Context) error { return p.holdEvent(ctx, h) },
		Judge: func(ctx context.Context) error {
			p.res = []Result{p.judgeStill(h)}
			return nil
		},
		Release: func(ctx context.Context) error {
			res, err := p.resume(ctx, h)
			if err != nil {
				return err
			}
			p.res = append(p.res, res)
			return nil
		},
	}
}

// holdSend is what the publisher sends during the hold: the old motion (the timeout path: zero).
func (p *pathRun) holdSend(h *holdState) func(ctx context.Context) error {
	return func(ctx context.Context) error { return p.sendTwist(ctx, h.twist) }
}

// holdEvent completes the event, opens a fresh IMU recording and commands through the still window.
func (p *pathRun) holdEvent(ctx context.Context, h *holdState) error {
	r := p.r
	kind := p.s.Spec.Hold
	states := r.watch.Since
	send := p.holdSend(h)
	if kind == stoppath.HoldTimeout {
		send = func(ctx context.Context) error { return nil } // silence: the trigger was the last command
	}
	ev, err := p.CompleteEvent(ctx, kind, states, send)
	if err != nil {
		return err
	}
	h.ev = ev
	r.ev.Logf("HOLD event over at %.3f s: %s", r.rel(ev.Done), ev.What)
	p.event("event done", map[string]any{"t": r.rel(ev.Done), "what": ev.What})
	if kind == stoppath.HoldTimeout {
		h.twist = kinematics.Twist{} // zero commands through the still window
		send = p.holdSend(h)
	}
	if p.KillsDriver {
		// A new driver: back to the proof's contact mode (it starts in its configured one; with the wheels in
		// the air an "act" reflex would stop a self-enabled driver and hide the motion from the IMU).
		if st, err := r.core.PollState(ctx, 3*time.Second, func(target.State) error { return nil }); err == nil {
			if err := p.contactMode(ctx, st); err != nil {
				r.ev.Logf("contact mode of the new driver: %v", err)
			}
		}
	}
	if h.rec, err = r.t.RecordIMU(ctx); err != nil {
		return fmt.Errorf("IMU stream after the event: %v", err)
	}
	// The still window starts once the stop itself is surely over (the timeout path: at the first zero
	// command) and ends HoldStill after the event was over (runcore.Path.StillWindow).
	h.from, h.to = p.StillWindow(kind, ev, r.o.HoldStill)
	p.HoldEnd = h.to
	return r.core.Drive(ctx, r.o.CmdPeriod, h.to, func(ctx context.Context) error {
		if err := send(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	})
}

// frames is what the board was told since from, on the judge's timeline.
func (p *pathRun) frames(from time.Time, h *holdState) []still.Frame {
	out, src := p.StillFrames(from, p.r.watch.Since)
	h.frameSrc = src
	return out
}

// judgeStill judges the still window.
func (p *pathRun) judgeStill(h *holdState) Result {
	r := p.r
	p.catchUpRec(h.rec, h.to)
	params := p.StillParams()
	params.Vibration = r.o.Params
	// The IMU through the whole window: the board's from below the driver when the event replaced the driver
	// (the old driver's stream ended with it), else the driver's.
	rec := p.Drv
	if p.KillsDriver && p.Below != nil {
		rec = p.Below
	}
	p.catchUpRec(rec, h.to)
	in := still.Input{Frames: p.frames(p.Trig, h), Gyro: p.samples(rec.Samples(), nil)}
	v := runcore.StartedMoving(still.Judge(in, r.rel(h.from), r.rel(h.to), params))
	h.stillV = v
	name := p.s.Name()
	res := p.holdResult(name, false, stillOutcome(v.Outcome), v.Reason)
	res.Line = v.Line(name)
	res.Samples = len(in.Gyro)
	res.Still = &v
	res.StopS = math.NaN()
	if v.FirstMotion != nil {
		res.StopS = *v.FirstMotion
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%s: %s at %.2f s after the trigger; still window %.2f-%.2f s after it; frames: %s",
		p.s.Spec.Name, h.ev.What, h.ev.Done.Sub(p.Trig).Seconds(), h.from.Sub(p.Trig).Seconds(), h.to.Sub(p.Trig).Seconds(), h.frameSrc))
	p.event("judged hold", map[string]any{"outcome": v.Outcome.String(), "reason": v.Reason})
	return res
}

// resume makes the deliberate act and judges the ramp after it.
func (p *pathRun) resume(ctx context.Context, h *holdState) (Result, error) {
	r := p.r
	var err error
	h.twist = p.s.Motion.Twist
	if p.s.Spec.Hold == stoppath.HoldTimeout {
		h.twist = HoldSmall
		h.act = r.clk.Now()
		r.ev.Logf("DELIBERATE ACT: a small command %v after the zeros", HoldSmall)
	} else if h.act, err = p.Resume(ctx); err != nil {
		return Result{}, err
	}
	p.event("act", map[string]any{"t": r.rel(h.act)})
	lim := p.before.Config
	rp := p.RampParams(lim)
	end := h.act.Add(runcore.ResumeFor(h.twist, rp))
	first := time.Time{}
	err = r.core.Drive(ctx, r.o.CmdPeriod, end, func(ctx context.Context) error {
		at := r.clk.Now()
		if err := p.sendTwist(ctx, h.twist); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return nil
		}
		if first.IsZero() {
			first = at
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	h.cmd = first
	p.HoldEnd = r.clk.Now()
	p.catchUpRec(h.rec, p.HoldEnd)
	name := p.s.Spec.Release
	if first.IsZero() {
		res := p.holdResult(name, true, vibration.Fail, "no command was accepted after the act")
		res.Line = fmt.Sprintf("%-34s FAIL: %s", name, res.Reason)
		return res, nil
	}
	tw := runcore.ClampTwist(h.twist, lim)
	in := ramp.Input{Frames: p.frames(h.act.Add(-time.Second), h), Enable: r.rel(h.act), Command: r.rel(first),
		Target: runcore.RampTarget(tw), To: r.rel(p.HoldEnd)}
	v := ramp.Judge(in, rp)
	res := p.holdResult(name, true, stillOutcome(v.Outcome), v.Reason)
	res.Ramp = &v
	res.Line = v.Line(name)
	if v.Reached != nil {
		res.StopS = *v.Reached
	}
	// The wheels must also be seen turning again (the judge's "reach" is the board's side).
	if tw.VX != 0 || tw.VY != 0 || tw.WZ != 0 {
		now := r.rel(p.HoldEnd)
		rv := vibration.ReleaseCheck(p.samples(h.rec.Samples(), nil), now-0.6, now, r.o.Params)
		res.Notes = append(res.Notes, fmt.Sprintf("IMU after the act: vibration %.4f rad/s over the last 0.6 s (%s)", rv.Spinning, rv.Outcome))
		if v.Passed() && !rv.Passed() && HoldSmall != tw {
			res.Outcome, res.Reason = vibration.Fail, "the board was told to move but the IMU never saw the wheels turn: "+rv.Reason
			res.Line = fmt.Sprintf("%-34s FAIL: %s", name, res.Reason)
		}
	}
	if !h.stillV.Passed() && res.Outcome == vibration.Pass {
		res.Reason = "the hold before it failed: this line only shows the ramp after the act"
	}
	p.event("judged resume", map[string]any{"outcome": res.Outcome.String(), "reason": res.Reason})
	if len(p.res) > 0 {
		p.res[0].Trace = p.trace(h, first)
	}
	return res, nil
}

// holdResult is a hold path's result line before its verdict's numbers.
func (p *pathRun) holdResult(name string, second bool, o vibration.Outcome, reason string) Result {
	res := Result{Path: Path(p.s.Spec.Name), Motion: p.s.Motion.Name, Name: name, Release: second, Speed: p.s.Motion.Twist,
		TriggerS: math.NaN(), TriggerHow: p.TrigHow, Outcome: o, Reason: reason, StopS: math.NaN(),
		IMUSource: imu.SourceDriver.String()}
	if !p.Trig.IsZero() {
		res.TriggerS, res.TriggerAt = p.r.rel(p.Trig), p.Trig.UTC()
	}
	return res
}

// stillOutcome maps the hold judges' outcomes onto the proof's: NOT RUN and NO DATA are not a pass, and the
// line says which.
func stillOutcome(o still.Outcome) vibration.Outcome {
	if o == still.Pass {
		return vibration.Pass
	}
	return vibration.Fail
}

// catchUpRec waits (up to a second) until rec holds samples up to end.
func (p *pathRun) catchUpRec(rec imu.Recording, end time.Time) {
	deadline := p.r.clk.Now().Add(time.Second)
	for rec != nil && rec.Err() == nil && p.r.clk.Now().Before(deadline) {
		ss := rec.Samples()
		if n := len(ss); n > 0 && !ss[n-1].At.Before(end.Add(-20*time.Millisecond)) {
			return
		}
		if p.r.clk.Sleep(context.Background(), 20*time.Millisecond) != nil {
			return
		}
	}
}
