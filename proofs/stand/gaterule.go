package stand

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// The scan gate's rule (Rule.ScanGate): the gate lets go by itself once scans are back, so the path keeps
// commanding through the loss and the return, judges the stop only while the driver still reported the scan
// stale, and judges the release as a second line.

// holdScanLoss keeps commanding through the scan loss and its end: it follows the driver's scan_age until
// it went stale and came back, then checks every quarter second whether the wheels turn again by themselves
// (no reset, no enable), up to ReleaseWait after the scans returned.
func (p *pathRun) holdScanLoss(ctx context.Context) error {
	r := p.r
	p.HoldEnd = p.Trig.Add(r.o.Hold)
	giveUp := p.Trig.Add(r.o.Hold + r.o.ReleaseWait)
	const probe = 1.0 // s: the release check looks at the last second of IMU
	nextCheck := time.Time{}
	return r.core.Drive(ctx, r.o.CmdPeriod, time.Time{}, func(ctx context.Context) error {
		if err := p.send(ctx); err != nil && ctx.Err() != nil {
			return err
		}
		now := r.clk.Now()
		p.scanTimeline()
		if !p.backAt.IsZero() {
			giveUp = p.backAt.Add(r.o.ReleaseWait)
			if now.Sub(p.backAt).Seconds() >= probe+0.2 && !now.Before(nextCheck) {
				nextCheck = now.Add(250 * time.Millisecond)
				in := p.samples(p.Drv.Samples(), nil)
				v := vibration.ReleaseCheck(in, r.rel(now)-probe, r.rel(now), r.o.Params)
				p.releaseV, p.releaseIn = &v, releaseInput{in, r.rel(now) - probe, r.rel(now)}
				if v.Passed() {
					p.releasedAt = now
					p.HoldEnd = now
					return runcore.ErrDone
				}
			}
		}
		if !now.Before(giveUp) {
			p.HoldEnd = now
			return runcore.ErrDone
		}
		return nil
	})
}

// scanTimeline reads the driver's scan_age after the trigger from the state history: when it went stale
// (beyond scan_timeout), the last state still stale, and the first state with scans back.
func (p *pathRun) scanTimeline() {
	if !p.backAt.IsZero() {
		return
	}
	lim := p.r.scanTimeout.Seconds()
	var staleAt, heldUntil time.Time
	for _, st := range p.r.watch.Since(p.Trig) {
		stale := math.IsNaN(st.ScanAge) || st.ScanAge >= lim
		switch {
		case stale:
			if staleAt.IsZero() {
				staleAt = st.At
			}
			heldUntil = st.At
		case !staleAt.IsZero():
			p.staleAt, p.heldUntil, p.backAt = staleAt, heldUntil, st.At
			return
		}
	}
	p.staleAt, p.heldUntil = staleAt, heldUntil
}

// gateBounds are the stop judge's limits under the scan gate's rule: ScanLossQuiet of quiet, and the judged
// stretch ending at the last state that still showed the scan stale.
func (p *pathRun) gateBounds(params vibration.Params, end time.Time) (vibration.Params, time.Time) {
	r := p.r
	params.NeedQuiet = r.o.ScanLossQuiet.Seconds()
	switch {
	case p.staleAt.IsZero():
		p.notes = append(p.notes, fmt.Sprintf("the driver's scan_age never exceeded scan_timeout %.2f s after the reader's kill", r.scanTimeout.Seconds()))
	case !p.heldUntil.IsZero():
		// Judge only while the gate held: once scans are back the wheels are meant to turn again.
		end = p.heldUntil
		p.notes = append(p.notes, fmt.Sprintf("scan_age stale from %.2f s to %.2f s after the kill; scans back at %s",
			p.staleAt.Sub(p.Trig).Seconds(), p.heldUntil.Sub(p.Trig).Seconds(), relOrNever(p.backAt, p.Trig)))
	}
	return params, end
}

// scanLossRule is the scan-loss stop's quiet rule as the line and the record state it: the limit, that it is
// not the 2 s rule, and why, with this run's own measure of when the scans came back.
func (p *pathRun) scanLossRule(need float64) string {
	back := "scans return ~2 s after the kill"
	if !p.backAt.IsZero() {
		back = fmt.Sprintf("scans back %.2f s after the kill", p.backAt.Sub(p.Trig).Seconds())
	}
	return fmt.Sprintf("need %.1f s quiet, not 2 s: %s", need, back)
}

func relOrNever(t, from time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return fmt.Sprintf("%.2f s", t.Sub(from).Seconds())
}

// releaseInput is what the release line's ReleaseCheck read: the samples and the interval.
type releaseInput struct {
	samples  []vibration.Sample
	from, to float64
}

// releaseAfter is the release line after the stop's verdict v: wheels that never stopped are not "released by
// themselves", so a release after a failed stop fails (the line would pass a broken stop).
func (p *pathRun) releaseAfter(v vibration.Verdict) Result {
	rel := p.releaseResult()
	rel = releaseAfterStop(rel, v.Passed(), p.s.Spec.Release)
	p.recordRelease(rel, v.Passed())
	return rel
}

// releaseAfterStop fails a passing release line when the stop above it failed.
func releaseAfterStop(rel Result, stopPassed bool, name string) Result {
	if !stopPassed && rel.Outcome == vibration.Pass {
		rel.Outcome = vibration.Fail
		rel.Reason = "not judged: the wheels were never shown to stop (the line above failed)"
		rel.Verdict.Outcome, rel.Verdict.Reason = rel.Outcome, rel.Reason
		rel.Line = rel.Verdict.Line(name)
	}
	return rel
}

// releaseVerdict is the release line's verdict from the release check v: checked says v is the check made
// while commanding after the scans were back (else it was made at the end of the hold, holdS after the
// trigger, and cannot pass), back whether the scans came back.
func releaseVerdict(v vibration.Verdict, checked, back bool, holdS float64) vibration.Verdict {
	switch {
	case checked:
		if !v.Passed() && !back {
			v.Reason = "scans never came back: " + v.Reason
		}
	default:
		v.Outcome = vibration.Fail
		if !back {
			v.Reason = fmt.Sprintf("scans never came back within %.1f s of the reader's kill (is the reader respawned? no new reader pid?)", holdS)
		} else {
			v.Reason = "the release was never checked: " + v.Reason
		}
	}
	return v
}

// releaseResult is the scan-loss path's second line: did the wheels turn again by themselves?
func (p *pathRun) releaseResult() Result {
	r := p.r
	checked := p.releaseV != nil
	var v vibration.Verdict
	if checked {
		v = *p.releaseV
	} else {
		now := p.HoldEnd
		in := p.samples(p.Drv.Samples(), nil)
		v = vibration.ReleaseCheck(in, r.rel(now)-1, r.rel(now), r.o.Params)
		p.releaseIn = releaseInput{in, r.rel(now) - 1, r.rel(now)}
	}
	v = releaseVerdict(v, checked, !p.backAt.IsZero(), p.HoldEnd.Sub(p.Trig).Seconds())
	res := p.result(v, true)
	res.StopS = math.NaN()
	if !p.releasedAt.IsZero() {
		res.StopS = p.releasedAt.Sub(p.Trig).Seconds()
		res.Notes = append(res.Notes, fmt.Sprintf("wheels turning again %.1f s after the reader's kill, %.1f s after the scans came back",
			res.StopS, p.releasedAt.Sub(p.backAt).Seconds()))
	}
	return res
}
