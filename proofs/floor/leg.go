package floor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/target"
)

// legRun is one leg: checks, drive, trigger, hold with the live rules, judge, clean-up. Used by the proof's
// goroutine only; runcore.Path holds the recordings, the publisher and the trigger (it is the leg's
// stoppath.Firing) and runs the leg's skeleton with the hooks below.
type legRun struct {
	runcore.Path
	r *runner
	s Step

	dx, dy   float64 // unit direction of travel in the base frame (linear legs)
	dir      float64 // its bearing (rad)
	turn     bool
	start    float64 // s: the leg's start on the run's timeline
	startPos est
	vibEnd   time.Time // the end of the reading from below the driver (the hold's end before a service restart)

	// live observations, made in onScan
	moving     bool    // the guard is armed: commanded, or not yet measured still after the trigger
	stillAt    float64 // first still window after the trigger (NaN: not yet)
	guardNear  float64
	aborted    string
	fired      []string
	failedLive string
	res        Result

	releasing bool   // after letting go of a take-over: the rules after the trigger are off, the guard on
	rel       Result // the release line (a path with Release)
}

// step runs one leg under its hard timeout and cleans up under a timeout of its own. It returns the leg's
// line, and the release line after it for a path that has one.
func (r *runner) step(ctx context.Context, i, n int, s Step) []Result {
	p := &legRun{r: r, s: s, stillAt: math.NaN(), guardNear: math.Inf(1)}
	tw := s.Motion.Twist
	p.turn = tw.VX == 0 && tw.VY == 0
	if !p.turn {
		l := math.Hypot(tw.VX, tw.VY)
		p.dx, p.dy, p.dir = tw.VX/l, tw.VY/l, math.Atan2(tw.VY, tw.VX)
	}
	p.Path = runcore.NewPath(r.core, s, r.o.CmdPeriod)
	p.Send = p.send
	p.OnClose = func() {
		r.odo.onScan = nil
		if p.Drv != nil {
			r.odo.setGyro(nil)
		}
	}
	p.res = Result{Path: s.Spec.Name, Motion: s.Motion.Name, Name: s.Spec.Label + " " + s.Motion.Name, Speed: s.Motion.Twist,
		TriggerS: math.NaN(), GuardNearest: math.Inf(1)}
	p.rel = Result{Path: s.Spec.Name, Motion: s.Motion.Name, Name: s.Spec.Release + " " + s.Motion.Name, Release: true,
		Speed: s.Motion.Twist, TriggerS: math.NaN(), GuardNearest: math.Inf(1)}
	err, timedOut := p.Step(ctx, i, n, r.o.PathTimeout, p.leg())
	res := p.res
	res.GuardNearest, res.StopsFired = p.guardNear, p.fired
	switch {
	case errors.Is(err, runcore.ErrNotRun):
		res.Outcome, res.Reason = odometry.NotRun, strings.TrimPrefix(err.Error(), runcore.ErrNotRun.Error()+": ")
		res.Line = fmt.Sprintf("%s NOT RUN - %s", res.Name, res.Reason)
	case timedOut:
		res.Outcome, res.Reason = odometry.Timeout, fmt.Sprintf("no result within the leg's %v hard timeout (stuck while %s)", r.o.PathTimeout, p.Phase)
		res.Line = fmt.Sprintf("%s TIMEOUT - %s", res.Name, res.Reason)
	case err != nil:
		res.Outcome, res.Reason = odometry.Fail, err.Error()
		if ctx.Err() != nil {
			res.Reason = "interrupted (" + ctx.Err().Error() + ") while " + p.Phase
		}
		res.Line = fmt.Sprintf("%s FAIL - %s", res.Name, res.Reason)
	}
	if p.failedLive != "" && r.stopProof == "" {
		r.stopProof = "STOPPING THE PROOF: a stop failed (" + p.failedLive + ")"
	}
	if res.Outcome == odometry.Fail && r.stopProof == "" && res.Stop != nil &&
		(strings.HasPrefix(res.Reason, "STILL MOVING") || strings.HasPrefix(res.Reason, "MOVED AGAIN")) {
		r.stopProof = "STOPPING THE PROOF: a stop failed (" + res.Reason + ")"
	}
	if s.Spec.Release == "" {
		return []Result{res}
	}
	return []Result{res, p.releaseLine(res)}
}

// notRun ends the leg before anything moved.
func (p *legRun) notRun(why string) error {
	p.res.Outcome, p.res.Reason = odometry.NotRun, why
	p.res.Line = fmt.Sprintf("%s NOT RUN - %s", p.res.Name, why)
	return runcore.ErrEnded
}

// leg is the floor proof's part of the step (runcore.Leg): the charger and the floor checked before any
// publisher exists, the leg driven for Leg with the live rules on every scan (an abort by the guard ends it),
// the hold (at least 4 s after a kill), the service started again before the judge after a service stop, the
// judge from the LiDAR odometry (the board's gyro from below the driver after a kill), and the take-over's
// release.
func (p *legRun) leg() runcore.Leg {
	if p.s.Spec.Hold != "" {
		return p.holdLeg() // hold.go
	}
	return p.normalLeg()
}

// normalLeg is the leg of a stop path (the hold paths start from it).
func (p *legRun) normalLeg() runcore.Leg {
	r, s := p.r, p.s
	l := runcore.Leg{Noun: "leg", Going: "driving", GoingPhase: "driving the leg", Until: r.o.Leg, HoldPhase: "holding after the trigger",
		Ready: func(ctx context.Context, st target.State) error {
			if st.Plugged {
				r.stopProof = "ABORT: plugged in - no driving"
				return p.notRun("plugged in: the driver believes the charger is connected")
			}
			return nil
		},
		Check: p.check,
		Start: func() {
			r.odo.setGyro(p.Drv) // no scan is taken in between: the odometry de-skews every scan of the leg with its gyro
			p.start, p.moving = r.now(), true
			r.odo.onScan = p.onScan
		},
		Drive:     p.drive,
		Driven:    p.stopIfAborted,
		Triggered: func() { p.res.TriggerS = r.rel(p.Trig) },
		Hold: func(ctx context.Context) error {
			hold := r.o.Hold
			if s.Spec.KillsDriver {
				hold = max(hold, 4*time.Second) // the scans come back with the next driver; the vibration judge wants 2 s of quiet
			}
			return p.HoldFor(ctx, hold, p.drive)
		},
		Held: p.held,
		Judge: func(ctx context.Context) error {
			p.catchUp(ctx)
			r.ev.Logf("odometry: %d scans, %d estimates, %d errors so far (last: %s); %d de-skewed with the gyro, %d gyro samples refused",
				r.odo.scans, len(r.odo.ests), r.odo.errs, r.odo.lastErr, r.odo.gyroScans, r.odo.gyroRefused)
			p.judge(p.vibEnd)
			return nil
		},
	}
	if s.Spec.Release != "" && s.Spec.Hold == "" {
		l.Release = p.letGo // takeover.go
	}
	return l
}

// check runs the floor's checks before any publisher exists (the seed creates its publisher only after
// them): measured odometry, then room for the leg.
func (p *legRun) check(ctx context.Context) error {
	r, s := p.r, p.s
	tw := s.Motion.Twist
	p.Phase = "checking the odometry and the corridor"
	e, ok := r.waitOdo(ctx, r.o.OdoWait)
	if !ok {
		return p.notRun(fmt.Sprintf("no measured odometry (scans %d, errors %d, last: %s)", r.odo.scans, r.odo.errs, r.odo.lastErr))
	}
	p.startPos = e
	prm := r.o.Params
	switch {
	case p.turn:
		if d, hit := odometry.Guard(r.odo.beams, 0, true, prm); hit {
			return p.notRun(fmt.Sprintf("something within %.2f m of the robot for a turn: nearest %.2f m", prm.HalfWidth, d))
		}
	case !e.E.Observable(p.dx, p.dy):
		return p.notRun(fmt.Sprintf("the odometry cannot see motion along %s here (degenerate, weakest bearing %.0f deg): it could never tell the robot still - refusing to judge it, so not driving it",
			s.Motion.Name, wholeDeg(e.E.WeakBearingDeg())))
	case tw.VX < 0:
		have := r.covered
		p.res.Covered = &have
		if !(have > 0) || r.coveredAt+1e-9 < math.Abs(tw.VX) {
			return p.notRun("backward leg over floor no forward leg covered: the rear is blind, and a backward leg runs only right after a forward leg at least as fast")
		}
	default:
		c := odometry.CheckCorridor(r.odo.beams, p.dir, prm)
		p.res.Corridor = &c
		if !c.OK {
			return p.notRun(c.Reason)
		}
	}
	return nil
}

// held ends a leg the guard aborted, and after a service stop starts the service again before the judge.
func (p *legRun) held(ctx context.Context) error {
	r := p.r
	if err := p.stopIfAborted(); err != nil {
		return err
	}
	p.vibEnd = p.HoldEnd
	if !p.StopsService || !r.core.ServiceDown {
		return nil
	}
	// No scans until the service runs again: start it (the board's port is the service's, so the reading
	// from below ends first) and judge the odometry once scans are back.
	p.Phase = "starting the service again"
	if p.Below != nil {
		p.Below.Close()
	}
	if err := r.t.StartService(ctx); err != nil {
		return fmt.Errorf("starting the service again: %v", err)
	}
	r.core.ServiceDown = false
	if _, err := r.core.WaitDriver(ctx, p.StartPid); err != nil {
		return fmt.Errorf("no driver after starting the service again: %v", err)
	}
	if _, ok := r.waitOdo(ctx, r.o.OdoWait); !ok {
		return fmt.Errorf("no scans after starting the service again")
	}
	if err := r.core.Wait(ctx, 1500*time.Millisecond); err != nil { // windows of their own after the gap
		return err
	}
	p.HoldEnd = r.clk.Now()
	return nil
}

// stopIfAborted ends the leg when the guard aborted it.
func (p *legRun) stopIfAborted() error {
	if p.aborted != "" {
		return p.abortResult()
	}
	return nil
}

// errQuiet ends the drive loop once a stop fired: nothing more is sent.
var errQuiet = errors.New("a stop fired: nothing more is sent")

// drive publishes the motion every CmdPeriod until until on the run's drive loop (after a stop fired,
// nothing more is sent: it waits out until, taking in scans).
func (p *legRun) drive(ctx context.Context, until time.Time, tolerate bool) error {
	r := p.r
	err := r.core.Drive(ctx, r.o.CmdPeriod, until, func(ctx context.Context) error {
		r.pump()
		if p.aborted != "" || len(p.fired) > 0 {
			return errQuiet
		}
		if err := p.send(ctx); err != nil && !tolerate {
			return err
		}
		return nil
	})
	if errors.Is(err, errQuiet) {
		return r.core.Wait(ctx, until.Sub(r.clk.Now()))
	}
	return err
}

func (p *legRun) send(ctx context.Context) error { return p.sendTwist(ctx, p.s.Motion.Twist) }

// sendTwist publishes tw once (send's body; the hold legs send zero and the timeout path's small command).
func (p *legRun) sendTwist(ctx context.Context, tw kinematics.Twist) error {
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	err := p.Pub.Send(qctx, tw)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	p.LastSend = p.r.clk.Now()
	return nil
}

// onScan is the live part of the seed's rules, run on every scan of the leg: the guard while the robot
// moves, and after the trigger the 0.8 s rule and MOVED AGAIN, each of which fires every stop at once.
func (p *legRun) onScan(t float64, beams []odometry.Beam) {
	r, prm := p.r, p.r.o.Params
	if p.moving && p.aborted == "" {
		d, hit := odometry.Guard(beams, p.dir, p.turn, prm)
		p.guardNear = math.Min(p.guardNear, d)
		if hit {
			reach := prm.Guard
			if p.turn {
				reach = prm.HalfWidth
			}
			p.aborted = fmt.Sprintf("something within %.2f m in the direction of travel (%.2f m): the guard fired", reach, d)
			p.fireAll("the guard")
			return
		}
	}
	if p.Trig.IsZero() || len(p.fired) > 0 || p.releasing {
		return
	}
	after := t - r.rel(p.Trig)
	level, measured := p.level(t)
	if !measured || after <= 0 {
		return
	}
	thr := prm.Moving
	if p.turn {
		thr = prm.Turning
	}
	switch {
	case math.IsNaN(p.stillAt) && level < thr:
		p.stillAt, p.moving = t, false
	case math.IsNaN(p.stillAt) && after >= prm.FailAfter:
		p.failedLive = fmt.Sprintf("STILL MOVING %.1f s after the stop - all stops fired", prm.FailAfter)
		r.printf("%s: %s", p.res.Name, p.failedLive)
		p.fireAll(p.failedLive)
	case !math.IsNaN(p.stillAt) && level >= thr && t >= p.stillAt+prm.Window:
		p.failedLive = "MOVED AGAIN after stopping - all stops fired"
		r.printf("%s: %s", p.res.Name, p.failedLive)
		p.moving = true
		p.fireAll(p.failedLive)
	}
}

// level is the motion measured now: the speed over the window ending at t, or for a turn the gyro z.
func (p *legRun) level(t float64) (float64, bool) {
	prm := p.r.o.Params
	if p.turn {
		z, ok := odometry.GyroAt(p.gyro(), p.r.now(), prm.GyroWindow, prm)
		return math.Abs(z), ok
	}
	w := odometry.SpeedAt(p.r.odo.samples(t-2*prm.Window, p.dx, p.dy), t, prm)
	return w.Speed, w.Measured && w.Observable
}

// fireAll fires every other stop at once: silence (the publisher closed), the e-stop request and enable
// false. A driver kill or a service stop is not fired: it would take the driver away, and the restarted
// driver starts latched anyway.
func (p *legRun) fireAll(why string) {
	r := p.r
	r.ev.Logf("FIRING EVERY STOP: %s", why)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if p.Pub != nil {
		p.Pub.Close()
		p.fired = append(p.fired, "silence")
	}
	if err := r.t.Estop(ctx); err == nil {
		p.fired = append(p.fired, "estop")
	} else {
		r.ev.Logf("fire e-stop: %v", err)
	}
	if err := r.t.Enable(ctx, false); err == nil {
		p.fired = append(p.fired, "enable false")
	} else {
		r.ev.Logf("fire enable false: %v", err)
	}
}

func (p *legRun) abortResult() error {
	p.res.Outcome, p.res.Reason = odometry.Aborted, p.aborted
	p.res.Line = fmt.Sprintf("%s ABORTED - %s; every stop fired (%v)", p.res.Name, p.aborted, p.fired)
	p.r.stopProof = "ABORTED - the guard stopped everything; the proof ends here"
	return runcore.ErrEnded
}

// gyro is the leg's gyro z from the driver's IMU stream on the judge's timeline.
func (p *legRun) gyro() []odometry.Gyro {
	if p.Drv == nil {
		return nil
	}
	ss := p.Drv.Samples()
	out := make([]odometry.Gyro, len(ss))
	for i, s := range ss {
		out[i] = odometry.Gyro{T: p.r.rel(s.At), Z: s.Gyro[2]}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// catchUp waits (up to a second) for an estimate from the end of the hold: scans still in flight would
// read as a hole at the end.
func (p *legRun) catchUp(ctx context.Context) {
	r := p.r
	end := r.rel(p.HoldEnd) - 0.15
	deadline := r.clk.Now().Add(time.Second)
	for r.clk.Now().Before(deadline) {
		r.pump()
		if e, ok := r.odo.latest(); ok && e.T >= end {
			return
		}
		if r.clk.Sleep(ctx, 20*time.Millisecond) != nil {
			return
		}
	}
}

// judge turns the leg's measurements into its result; vibEnd ends the reading from below the driver.
func (p *legRun) judge(vibEnd time.Time) {
	r, prm := p.r, p.r.o.Params
	trig, end := r.rel(p.Trig), r.rel(p.HoldEnd)
	var v odometry.Stop
	switch {
	case p.turn:
		v = odometry.JudgeTurn(p.gyro(), trig, end, prm)
		p.res.StillFrom = "gyro z"
	default:
		odo := r.odo.samples(p.start-1, p.dx, p.dy)
		v = odometry.JudgeStop(odo, trig, end, prm)
		if math.IsNaN(v.Before) {
			var ts []string
			for _, o := range odo {
				if o.T > trig-1 && o.T < trig+0.5 {
					ts = append(ts, fmt.Sprintf("%.3f", o.T-trig))
				}
			}
			r.ev.Logf("odometry around the trigger (s after it): %s", strings.Join(ts, " "))
		}
		p.res.StillFrom = "LiDAR odometry"
		resp := odometry.MeasureResponse(p.told(), odo, trig, end, v, prm)
		p.res.Response = &resp
		if p.s.Spec.KillsDriver {
			wv := vibration.Judge(p.vibration(), trig, r.rel(vibEnd), vibration.DefaultParams())
			r.ev.Logf("board gyro vibration from below the driver: %s", wv.Line(p.res.Name))
			v = odometry.AcrossGap(v, wv.StillFrom, wv.Outcome == vibration.Pass, prm)
			p.res.StillFrom = "board gyro vibration from below the driver (the scans stop with the driver); travel: LiDAR odometry across the restart"
			p.res.Notes = append(p.res.Notes, "wheels: "+wv.Line("board gyro"))
		}
		if e, ok := r.odo.latest(); ok {
			d := math.Hypot(e.E.Pose.X-p.startPos.E.Pose.X, e.E.Pose.Y-p.startPos.E.Pose.Y)
			tw := p.s.Motion.Twist
			if tw.VX < 0 && d > r.covered+0.005 {
				p.res.Notes = append(p.res.Notes, fmt.Sprintf("backed %.1f cm beyond the floor the forward leg covered (%.1f cm): the stop's travel differs from the forward leg's",
					100*(d-r.covered), 100*r.covered))
			}
			r.covered, r.coveredAt = 0, 0
			if tw.VX > 0 && tw.VY == 0 {
				r.covered, r.coveredAt = d, tw.VX
			}
		}
	}
	if p.turn {
		r.covered, r.coveredAt = 0, 0
	}
	if p.failedLive != "" && v.Outcome == odometry.Pass {
		v.Outcome, v.Reason = odometry.Fail, p.failedLive // the live rule fired on data the judge saw differently: a failure all the same
	}
	p.res.Stop, p.res.Outcome, p.res.Reason = &v, v.Outcome, v.Reason
	p.res.Scans = v.Samples
	p.res.Line = v.Line(p.res.Name)
	if p.s.Spec.KillsDriver && !p.turn {
		p.res.Line += " (still: the wheels, from the board's gyro below the driver; travel: LiDAR across the restart)"
	}
	if len(p.fired) > 0 {
		p.res.Line += fmt.Sprintf(" (stops fired: %v)", p.fired)
	}
}

// told is what the board was told along the leg's direction from 2 s before the trigger, for the response's
// first part: the simulator's record of every motor frame (target.BoardFramer); none on a target without it
// (the driver's state records come every 0.2 s: too coarse for a response of a few tens of milliseconds).
func (p *legRun) told() []odometry.Told {
	frames, _ := p.StillFrames(p.Trig.Add(-2*time.Second), func(time.Time) []target.State { return nil })
	out := make([]odometry.Told, len(frames))
	for i, f := range frames {
		out[i] = odometry.Told{T: f.T, V: f.VX*p.dx + f.VY*p.dy}
	}
	return out
}

// vibration is the board's gyro from below the driver for the stand judge (bias does not matter: it
// judges the spread).
func (p *legRun) vibration() []vibration.Sample {
	if p.Below == nil {
		return nil
	}
	ss := p.Below.Samples()
	out := make([]vibration.Sample, 0, len(ss))
	for _, s := range ss {
		out = append(out, vibration.Sample{T: p.r.rel(s.At), GyroX: s.Gyro[0], GyroY: s.Gyro[1], GyroZ: s.Gyro[2]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}
