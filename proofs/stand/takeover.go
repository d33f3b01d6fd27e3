package stand

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// The take-over's release (a path with a Release line and no scan-gate rule): after the stop's judge the
// operator lets go (the manual publisher stops and closes) while the path keeps commanding on its drive input,
// and the wheels must turn again by themselves under the live autonomous source. It is checked as the scan
// gate's release is: stand.ReleaseCheck over the last second, every quarter second, here from 1.2 s after the
// last manual command up to ReleaseWait after it. The release line's time is from the last manual command.

// letGo lets go of the take-over and judges the release; stop is the stop line's verdict (a release after a
// stop that failed fails).
func (p *pathRun) letGo(ctx context.Context, stop vibration.Verdict) (Result, error) {
	r := p.r
	last := p.LetGo()
	if last.IsZero() {
		last = r.clk.Now()
	}
	// The cause of the stop is gone from here: the record's "scans back" of the scan gate's rule.
	p.backAt = last
	p.event("let go", map[string]any{"last_manual_s": r.rel(last)})
	const probe = 1.0 // s: the release check looks at the last second of IMU
	giveUp := last.Add(r.o.ReleaseWait)
	var nextCheck time.Time
	err := r.core.Drive(ctx, r.o.CmdPeriod, time.Time{}, func(ctx context.Context) error {
		if err := p.send(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		now := r.clk.Now()
		if now.Sub(last).Seconds() >= probe+0.2 && !now.Before(nextCheck) {
			nextCheck = now.Add(250 * time.Millisecond)
			in := p.samples(p.Drv.Samples(), nil)
			v := vibration.ReleaseCheck(in, r.rel(now)-probe, r.rel(now), r.o.Params)
			p.releaseV, p.releaseIn = &v, releaseInput{in, r.rel(now) - probe, r.rel(now)}
			if v.Passed() {
				p.releasedAt = now
				return runcore.ErrDone
			}
		}
		if !now.Before(giveUp) {
			return runcore.ErrDone
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	p.HoldEnd = r.clk.Now()
	var v vibration.Verdict
	checked := p.releaseV != nil
	if checked {
		v = *p.releaseV
	} else {
		now := p.HoldEnd
		in := p.samples(p.Drv.Samples(), nil)
		v = vibration.ReleaseCheck(in, r.rel(now)-probe, r.rel(now), r.o.Params)
		p.releaseIn = releaseInput{in, r.rel(now) - probe, r.rel(now)}
	}
	v = releaseVerdict(v, checked, true, p.HoldEnd.Sub(p.Trig).Seconds())
	if !v.Passed() && checked {
		v.Reason = fmt.Sprintf("within %.1f s of letting go: %s", r.o.ReleaseWait.Seconds(), v.Reason)
	}
	rel := p.result(v, true)
	rel.StopS = math.NaN()
	if !p.releasedAt.IsZero() {
		rel.StopS = p.releasedAt.Sub(last).Seconds()
		rel.Notes = append(rel.Notes, fmt.Sprintf("wheels turning again %.1f s after the last manual command", rel.StopS))
	}
	if n := p.sourceNote(p.s.Spec.Input, last, "after the last manual command"); n != "" {
		rel.Notes = append(rel.Notes, n)
	}
	if stop.Passed() {
		p.releaseRamp(ctx, &rel, last) // releaseramp.go: a release after a stop that failed is not judged
	}
	rel = releaseAfterStop(rel, stop.Passed(), p.s.Spec.Release)
	p.recordRelease(rel, stop.Passed())
	return rel, nil
}

// sourceNote says when the driver's state record first named input as the source after from (its states are
// read every StatePeriod, so the time is that coarse), or "" when the driver does not report a source.
func (p *pathRun) sourceNote(input string, from time.Time, what string) string {
	reported := false
	for _, st := range p.r.watch.Since(from) {
		if st.Source == "" {
			continue
		}
		reported = true
		if st.Source == input {
			return fmt.Sprintf("the driver's source was %s %.2f s %s (states every %v)", input, st.At.Sub(from).Seconds(), what, p.r.o.StatePeriod)
		}
	}
	if !reported {
		return ""
	}
	return fmt.Sprintf("the driver's source was never %s %s", input, what)
}
