package stand

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// trace is a hold path's timeline for the report's plot: the board's frames from the spin-up on, the still
// window and the act, in seconds after the trigger.
func (p *pathRun) trace(h *holdState, first time.Time) *HoldTrace {
	rel := func(t time.Time) float64 { return t.Sub(p.Trig).Seconds() }
	tr := &HoldTrace{From: rel(h.from), To: rel(h.to), Act: rel(h.act), Command: rel(first)}
	fs, src := p.Frames(p.Trig.Add(-p.r.o.HoldSpin), p.r.watch.Since, kinematics.DefaultGeometry())
	tr.Source = src
	for _, f := range fs {
		tr.T = append(tr.T, rel(f.At))
		tr.Speed = append(tr.Speed, math.Max(math.Max(math.Abs(f.VX), math.Abs(f.VY)), math.Abs(f.WZ)))
	}
	return tr
}
