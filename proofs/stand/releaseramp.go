package stand

import (
	"context"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// The releases that resume by design (the scan gate once scans are back, the take-over once the operator
// lets go: docs/safety-case.md, "No motion without a deliberate act") must resume through the ramp from zero,
// never at the old speed. releaseRamp judges the board's frames after the release with judge/ramp and fails a
// passing release line that did not.
//
// from is the last instant the block is known to have held (the last state that showed the scan stale; the
// last manual command): the release came after it, so taking it as the ramp's start allows the ramp more, never
// less, and a stored speed (0.35 m/s at once, where the ramp allows about 0.09 m/s one state period later) is
// still caught.
func (p *pathRun) releaseRamp(ctx context.Context, rel *Result, from time.Time) {
	r := p.r
	if from.IsZero() || rel.Outcome != vibration.Pass {
		return // no release to judge: the line already says why
	}
	lim := p.before.Config
	rp := p.RampParams(lim)
	tw := runcore.ClampTwist(p.s.Motion.Twist, lim)
	// The record must reach the ramp's deadline: keep commanding until then.
	end := from.Add(runcore.ResumeFor(tw, rp))
	if r.clk.Now().Before(end) {
		_ = p.Drive(ctx, end, true)
	}
	frames, src := p.StillFrames(from.Add(-time.Second), r.watch.Since)
	in := ramp.Input{Frames: frames, Enable: r.rel(from), Command: r.rel(from), Target: runcore.RampTarget(tw), To: r.rel(r.clk.Now())}
	v := ramp.Judge(in, rp)
	rel.Ramp = &v
	rel.Notes = append(rel.Notes, fmt.Sprintf("the resume at the board (%s): %s", src, v.Line("ramp")))
	if !v.Passed() {
		rel.Outcome = vibration.Fail
		rel.Reason = "turned again, but not through the ramp from zero: " + v.Reason
		rel.Verdict.Outcome, rel.Verdict.Reason = rel.Outcome, rel.Reason
		rel.Line = fmt.Sprintf("%-34s FAIL: %s", rel.Name, rel.Reason)
	}
}
