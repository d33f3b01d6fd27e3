package floor

import (
	"context"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// The take-over's release on the floor (a path with a Release line): after the stop's judge the operator lets
// go (the manual publisher stops and closes) while the leg keeps commanding on its drive input; the robot must
// be measured moving again (floor.JudgeRelease: the stop judge's speed measure and threshold) within
// ReleaseWait of the last manual command. The guard is armed again meanwhile, and the wheels are disabled as
// soon as the motion is seen (or the wait is over), so the release costs a few centimetres of floor.

// letGo lets go of the take-over and judges the release; a stop that was not shown is not followed by a
// release (releaseLine says so).
func (p *legRun) letGo(ctx context.Context) error {
	r, prm := p.r, p.r.o.Params
	last := p.LetGo()
	if p.res.Outcome != odometry.Pass || len(p.fired) > 0 || p.turn {
		return nil
	}
	if last.IsZero() {
		last = r.clk.Now()
	}
	from := r.rel(last)
	p.rel.TriggerS = from
	r.ev.Logf("LET GO at %.3f s: %s must drive again", from, p.s.Spec.Input)
	p.releasing, p.moving = true, true
	p.Phase = "driving after letting go of the take-over"
	giveUp := last.Add(r.o.ReleaseWait)
	var v odometry.Release
	err := r.core.Drive(ctx, r.o.CmdPeriod, time.Time{}, func(ctx context.Context) error {
		r.pump()
		if p.aborted != "" {
			return runcore.ErrDone
		}
		if err := p.send(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		now := r.clk.Now()
		v = odometry.JudgeRelease(r.odo.samples(from-2*prm.Window, p.dx, p.dy), from, r.rel(now), prm)
		if v.Outcome == odometry.Pass || !now.Before(giveUp) {
			return runcore.ErrDone
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Stop at once: the release is shown (or not), and the floor ahead is the next leg's.
	if err := r.t.Enable(ctx, false); err != nil {
		r.ev.Logf("disable after the release: %v", err)
	}
	p.moving = false
	if p.aborted != "" {
		p.rel.Outcome, p.rel.Reason = odometry.Aborted, p.aborted
		p.rel.Line = fmt.Sprintf("%s ABORTED - %s; every stop fired (%v)", p.rel.Name, p.aborted, p.fired)
		r.stopProof = "ABORTED - the guard stopped everything; the proof ends here"
		return nil
	}
	if e, ok := r.odo.latest(); ok {
		r.ev.Logf("release: estimate at %.3f s, %d scans so far", e.T, r.odo.scans)
	}
	p.rel.ReleaseCheck, p.rel.Outcome, p.rel.Reason, p.rel.Scans = &v, v.Outcome, v.Reason, v.Samples
	p.rel.StillFrom = "LiDAR odometry"
	p.rel.Line = v.Line(p.rel.Name)
	return nil
}

// releaseLine is the release line after the leg's line res: the judged release, or why there is none.
func (p *legRun) releaseLine(res Result) Result {
	rel := p.rel
	rel.GuardNearest, rel.StopsFired = p.guardNear, p.fired
	if rel.Line != "" {
		return rel
	}
	switch {
	case p.turn:
		rel.Outcome, rel.Reason = odometry.NotRun, "no release check for a turn (it judges linear motion)"
	case res.Outcome == odometry.Pass:
		rel.Outcome, rel.Reason = odometry.Fail, "the release was never checked (stuck while "+p.Phase+")"
	case res.Outcome == odometry.Fail:
		rel.Outcome, rel.Reason = odometry.Fail, "not judged: the robot was never shown to stop (the line above failed)"
	default:
		rel.Outcome, rel.Reason = res.Outcome, "not judged: the line above is "+res.Outcome.String()
	}
	rel.Line = fmt.Sprintf("%s %s - %s", rel.Name, rel.Outcome, rel.Reason)
	return rel
}
