package floor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// The hold paths on the floor (Spec.Hold; docs/safety-case.md "No motion without a deliberate act"), the stand
// proof's (proofs/stand/hold.go) with the floor's evidence: drive the leg, fire the event with the publisher
// commanding the old motion throughout, complete it (runcore.Path.CompleteEvent), then judge a still window
// of HoldStill with judge/still: what the board was told, and what the robot did, measured: the LiDAR
// odometry's speed over its 0.3 s windows (m/s, still.DefaultParams' 0.04) and the gyro's |z| (rad/s, the
// odometry's turning threshold 0.08), and for the paths that replace the driver also the board's gyro
// vibration from below it. Then the deliberate act (reset when latched, enable; the timeout path: a small
// command after the zeros) and judge/ramp over the board's frames; the robot must also be measured moving
// again (odometry.JudgeRelease), and is disabled at once after. Two lines per leg, as on the stand.
//
// The ramp judge gets no measured acceleration (ramp.Input.Accel): the proofs' IMU recordings (imu.Sample)
// carry the gyro only, not the linear acceleration.
//
// The guard stays armed whenever the robot is meant to move (the leg, the resume); the live rules after the
// trigger (0.8 s, MOVED AGAIN) run through the still window, and a motion there fires every stop as on the
// other legs, and stops the proof.

// holdObs is a hold leg's observations.
type holdObs struct {
	ev       runcore.HoldEvent
	from, to time.Time // the still window
	mfrom    time.Time // where the measured motion (scans, the driver's gyro) is judged from
	twist    kinematics.Twist
	act      time.Time
	watch    *runcore.StateWatcher
	lim      target.State
	stillV   still.Verdict
	frameSrc string
}

// holdLeg is the step's runcore.Leg for a hold path.
func (p *legRun) holdLeg() runcore.Leg {
	r, s := p.r, p.s
	h := &holdObs{twist: s.Motion.Twist}
	onClose := p.OnClose
	p.OnClose = func() {
		onClose()
		if h.watch != nil {
			h.watch.Close()
		}
	}
	l := p.normalLeg()
	l.HoldPhase = "completing the " + string(s.Spec.Hold) + " event, the publisher still commanding"
	l.Ready = func(ctx context.Context, st target.State) error {
		if st.Plugged {
			r.stopProof = "ABORT: plugged in - no driving"
			return p.notRun("plugged in: the driver believes the charger is connected")
		}
		h.lim = st
		if err := runcore.HoldReady(st); err != nil {
			return p.notRun(strings.TrimPrefix(err.Error(), runcore.ErrNotRun.Error()+": "))
		}
		if s.Spec.Hold == stoppath.HoldUSB || s.Spec.Hold == stoppath.HoldBoardReset {
			if _, ok := r.t.(target.Interrupter); !ok {
				// Refused before driving: on the floor a trigger that cannot fire would leave the robot moving.
				return p.notRun("this target cannot interrupt the board on demand (the simulator can); on a robot, by hand")
			}
		}
		return nil
	}
	start := l.Start
	l.Start = func() {
		start()
		h.watch = runcore.Watch(context.Background(), r.t, r.clk, r.ev, 100*time.Millisecond)
	}
	l.Hold = func(ctx context.Context) error { return p.holdEvent(ctx, h) }
	l.Held = func(ctx context.Context) error { return p.stopIfAborted() }
	l.Judge = func(ctx context.Context) error {
		p.catchUp(ctx)
		p.judgeStill(h)
		return nil
	}
	l.Release = func(ctx context.Context) error { return p.resume(ctx, h) }
	return l
}

// holdSend sends tw unless a stop was fired (the publisher is closed then) or the guard aborted; refusals
// are no reason to stop commanding (the driver may be gone or latched: that is the point).
func (p *legRun) holdSend(tw *kinematics.Twist) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		p.r.pump()
		if p.aborted != "" || len(p.fired) > 0 {
			return nil
		}
		if err := p.sendTwist(ctx, *tw); err != nil && ctx.Err() != nil {
			return err
		}
		return nil
	}
}

// holdEvent completes the event and commands through the still window.
func (p *legRun) holdEvent(ctx context.Context, h *holdObs) error {
	r := p.r
	kind := p.s.Spec.Hold
	send := p.holdSend(&h.twist)
	if kind == stoppath.HoldTimeout {
		send = func(ctx context.Context) error { r.pump(); return nil } // silence: the trigger was the last command
	}
	ev, err := p.CompleteEvent(ctx, kind, h.watch.Since, send)
	if err != nil {
		return err
	}
	h.ev = ev
	r.ev.Logf("HOLD event over at %.3f s: %s", r.rel(ev.Done), ev.What)
	if kind == stoppath.HoldTimeout {
		h.twist = kinematics.Twist{} // zero commands through the still window
		send = p.holdSend(&h.twist)
	}
	h.from, h.to = p.StillWindow(kind, ev, r.o.HoldStill)
	h.mfrom = h.from
	if p.KillsDriver {
		// The scans and the driver's gyro come through the driver: none while it is gone. The measured motion
		// is judged from one odometry window after the new driver answered; the board's frames and its gyro
		// from below the driver cover the whole window.
		if m := ev.Done.Add(time.Duration((r.o.Params.Window + 0.2) * float64(time.Second))); m.After(h.mfrom) {
			h.mfrom = m
		}
		if d := h.to.Sub(h.mfrom); d < r.o.HoldStill {
			h.to = h.to.Add(r.o.HoldStill - d)
		}
	}
	p.HoldEnd = h.to
	return r.core.Drive(ctx, r.o.CmdPeriod, h.to, send)
}

// speeds are the odometry's planar speeds over its windows ending at each estimate in [from, to].
func (p *legRun) speeds(from, to float64) []still.Speed {
	r, prm := p.r, p.r.o.Params
	odo := r.odo.samples(from-2*prm.Window, p.dx, p.dy)
	var out []still.Speed
	for _, o := range odo {
		if o.T < from || o.T > to {
			continue
		}
		if w := odometry.SpeedAt(odo, o.T, prm); w.Measured && w.Observable {
			out = append(out, still.Speed{T: o.T, V: w.Speed})
		}
	}
	return out
}

// gyroZ is |gyro z| of the driver's IMU, the mean over the odometry's gyro window at each sample in [from, to].
func (p *legRun) gyroZ(from, to float64) []still.Speed {
	prm := p.r.o.Params
	g := p.gyro()
	var out []still.Speed
	for _, s := range g {
		if s.T < from || s.T > to {
			continue
		}
		if z, ok := odometry.GyroAt(g, s.T, prm.GyroWindow, prm); ok {
			out = append(out, still.Speed{T: s.T, V: math.Abs(z)})
		}
	}
	return out
}

// judgeStill judges the still window: the board's frames (with the board's gyro vibration from below the
// driver when the event replaced it) over the whole window, the odometry's speed and the gyro's |z| from
// mfrom. The first verdict that is not a pass decides the line; the others are notes.
func (p *legRun) judgeStill(h *holdObs) {
	r, prm := p.r, p.r.o.Params
	from, to, mfrom := r.rel(h.from), r.rel(h.to), r.rel(h.mfrom)
	frames, src := p.StillFrames(p.Trig, h.watch.Since)
	h.frameSrc = src
	sp := p.StillParams()
	board := still.Input{Frames: frames}
	if p.KillsDriver && p.Below != nil {
		board.Gyro = p.vibration()
	}
	name := p.res.Name
	vs := []still.Verdict{runcore.StartedMoving(still.Judge(board, from, to, sp))}
	odo := still.Input{Frames: frames, Speed: p.speeds(mfrom, to)}
	vs = append(vs, runcore.StartedMoving(still.Judge(odo, mfrom, to, sp)))
	gp := sp
	gp.SpeedThreshold, gp.SpeedUnit = prm.Turning, "rad/s"
	gz := still.Input{Frames: frames, Speed: p.gyroZ(mfrom, to)}
	if p.KillsDriver {
		gz.Speed = nil // the old driver's stream ended with it; the board's gyro from below covers the window
	}
	if len(gz.Speed) > 0 || !p.KillsDriver {
		vs = append(vs, runcore.StartedMoving(still.Judge(gz, mfrom, to, gp)))
	}
	what := []string{"board", "LiDAR odometry speed", "gyro |z|"}
	v := vs[0]
	for _, x := range vs {
		if x.Outcome == still.Fail {
			v = x
			break
		}
	}
	if v.Outcome == still.Pass {
		for _, x := range vs {
			if x.Outcome != still.Pass {
				v = x
				break
			}
		}
	}
	if p.failedLive != "" {
		// The live rule fired every stop in the hold: the robot moved, measured. It may have done so before the
		// still window began (a reset that resumed by itself at once, cut short by the fired stops), so the
		// board's frames are judged from the event's end then, to name what the board was told.
		ef := math.Min(from, r.rel(h.ev.Done))
		bv := runcore.StartedMoving(still.Judge(still.Input{Frames: frames}, ef, to, sp))
		vs = append(vs, bv)
		what = append(what, fmt.Sprintf("board from the event's end (%.2f s after the trigger)", h.ev.Done.Sub(p.Trig).Seconds()))
		switch {
		case bv.Outcome == still.Fail:
			v = bv
		case v.Outcome != still.Fail:
			v.Outcome, v.Reason = still.Fail, p.failedLive+" (the live rule, in the hold)"
		}
	}
	if v.Outcome == still.Pass {
		// The line is the board's over the whole window with the measured speed's numbers (its own window may
		// start later: the notes say where).
		m := vs[1]
		v.SpeedSamples, v.SpeedPeak, v.FastSamples = m.SpeedSamples, m.SpeedPeak, m.FastSamples
		v.Params.SpeedThreshold, v.Params.SpeedUnit = m.Params.SpeedThreshold, m.Params.SpeedUnit
	}
	h.stillV = v
	p.res.Still = &v
	p.res.Outcome = stillOutcome(v.Outcome)
	p.res.Reason = v.Reason
	p.res.Line = v.Line(name)
	p.res.Scans = vs[1].SpeedSamples
	p.res.StillFrom = "board frames, LiDAR odometry speed, gyro |z|"
	if p.KillsDriver {
		p.res.StillFrom = "board frames and the board's gyro from below the driver; LiDAR odometry speed once the new driver answered"
	}
	for i, x := range vs {
		p.res.Notes = append(p.res.Notes, x.Line(what[i]))
	}
	p.res.Notes = append(p.res.Notes, fmt.Sprintf("%s: %s at %.2f s after the trigger; still window %.2f-%.2f s after it (measured motion from %.2f s); frames: %s",
		p.s.Spec.Name, h.ev.What, h.ev.Done.Sub(p.Trig).Seconds(), h.from.Sub(p.Trig).Seconds(), h.to.Sub(p.Trig).Seconds(),
		h.mfrom.Sub(p.Trig).Seconds(), h.frameSrc))
	if v.Outcome == still.Fail && r.stopProof == "" {
		r.stopProof = "STOPPING THE PROOF: a hold failed (" + v.Reason + ")"
	}
	r.covered, r.coveredAt = 0, 0 // the resume moves on: no backward leg retraces this one
}

// resume makes the deliberate act and judges the ramp after it; the robot is disabled as soon as the
// resume's time is over (the floor ahead is the next leg's).
func (p *legRun) resume(ctx context.Context, h *holdObs) error {
	r := p.r
	switch {
	case p.aborted != "":
		p.rel.Outcome, p.rel.Reason = odometry.Aborted, p.aborted
		p.rel.Line = fmt.Sprintf("%s ABORTED - %s; every stop fired (%v)", p.rel.Name, p.aborted, p.fired)
		return nil
	case len(p.fired) > 0:
		p.rel.Outcome, p.rel.Reason = odometry.Fail, fmt.Sprintf("not judged: every stop was fired in the hold (%s)", p.failedLive)
		p.rel.Line = fmt.Sprintf("%s FAIL - %s", p.rel.Name, p.rel.Reason)
		return nil
	}
	fail := func(why string) error {
		p.rel.Outcome, p.rel.Reason = odometry.Fail, why
		p.rel.Line = fmt.Sprintf("%s FAIL - %s", p.rel.Name, why)
		return nil
	}
	p.Phase = "the deliberate act and the resume"
	h.twist = p.s.Motion.Twist
	if p.s.Spec.Hold == stoppath.HoldTimeout {
		h.twist = runcore.HoldSmall
		h.act = r.clk.Now()
		r.ev.Logf("DELIBERATE ACT: a small command %v after the zeros", runcore.HoldSmall)
	} else {
		var err error
		if h.act, err = p.Resume(ctx); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fail(err.Error())
		}
	}
	p.rel.TriggerS = r.rel(h.act)
	p.releasing, p.moving = true, true // the live rules off, the guard on
	lim := h.lim.Config
	rp := p.RampParams(lim)
	end := h.act.Add(runcore.ResumeFor(h.twist, rp))
	var first time.Time
	err := r.core.Drive(ctx, r.o.CmdPeriod, end, func(ctx context.Context) error {
		r.pump()
		if p.aborted != "" {
			return runcore.ErrDone
		}
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
	if err != nil && !errors.Is(err, runcore.ErrDone) {
		return err
	}
	p.HoldEnd = r.clk.Now()
	if err := r.t.Enable(ctx, false); err != nil {
		r.ev.Logf("disable after the resume: %v", err)
	}
	p.moving = false
	if p.aborted != "" {
		p.rel.Outcome, p.rel.Reason = odometry.Aborted, p.aborted
		p.rel.Line = fmt.Sprintf("%s ABORTED - %s; every stop fired (%v)", p.rel.Name, p.aborted, p.fired)
		r.stopProof = "ABORTED - the guard stopped everything; the proof ends here"
		return nil
	}
	if first.IsZero() {
		return fail("no command was accepted after the act")
	}
	p.catchUp(ctx)
	tw := runcore.ClampTwist(h.twist, lim)
	frames, _ := p.StillFrames(h.act.Add(-time.Second), h.watch.Since)
	in := ramp.Input{Frames: frames, Enable: r.rel(h.act), Command: r.rel(first), Target: runcore.RampTarget(tw), To: r.rel(p.HoldEnd)}
	v := ramp.Judge(in, rp)
	p.rel.Ramp = &v
	p.rel.Outcome, p.rel.Reason = stillOutcome(v.Outcome), v.Reason
	p.rel.Line = v.Line(p.rel.Name)
	// The robot must also be measured moving again (the ramp judge's "reached" is the board's side); the
	// small command of the timeout path (0.05 m/s) is too close to the 0.04 m/s threshold to tell.
	if tw != runcore.HoldSmall {
		prm := r.o.Params
		from := r.rel(h.act)
		rv := odometry.JudgeRelease(r.odo.samples(from-2*prm.Window, p.dx, p.dy), from, r.rel(p.HoldEnd), prm)
		p.rel.ReleaseCheck = &rv
		p.rel.Notes = append(p.rel.Notes, "LiDAR after the act: "+strings.Replace(rv.Line("moving again"), "after letting go", "after the act", 1))
		if v.Passed() && rv.Outcome != odometry.Pass {
			p.rel.Outcome, p.rel.Reason = odometry.Fail, "the board was told to move but the LiDAR never measured the robot moving: "+rv.Reason
			p.rel.Line = fmt.Sprintf("%s FAIL - %s", p.rel.Name, p.rel.Reason)
		}
	}
	if !h.stillV.Passed() && p.rel.Outcome == odometry.Pass {
		p.rel.Reason = "the hold before it failed: this line only shows the ramp after the act"
	}
	return nil
}

// stillOutcome maps the hold judges' outcomes onto the floor proof's: NO DATA is NOT JUDGED (the evidence
// has a hole: nothing failed, nothing proven), NOT RUN a FAIL (runcore.StartedMoving turned the judge's
// into one already).
func stillOutcome(o still.Outcome) odometry.Outcome {
	switch o {
	case still.Pass:
		return odometry.Pass
	case still.NoData:
		return odometry.NotJudged
	}
	return odometry.Fail
}
