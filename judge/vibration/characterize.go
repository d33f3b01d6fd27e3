package vibration

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Phase is one stretch of a characterize run: the wheels held in one state, e.g. "enabled still" or
// "forward 0.2". Leave the spin-up and spin-down out of [From, To]: a phase measures a steady state.
type Phase struct {
	Name     string
	From, To float64 // on the samples' timeline
	Spinning bool    // the wheels are commanded to turn in this phase
}

// PhaseLevel is the vibration of one phase, from the same sliding windows the judge uses.
type PhaseLevel struct {
	Name     string
	Spinning bool
	From, To float64
	Median   float64 // median window score (rad/s); NaN without data
	P05, P95 float64 // 5th and 95th percentile window score (nearest rank)
	Max      float64 // loudest window
	Windows  int     // windows with data
	NoData   int     // windows with fewer than MinSamples samples
}

// Line renders the level for `stopproof characterize`, one line per phase.
func (l PhaseLevel) Line() string {
	state := "still"
	if l.Spinning {
		state = "spinning"
	}
	return fmt.Sprintf("%-*s %-8s median %s  p05 %s  p95 %s  max %s  (%d windows, %d without data)",
		nameWidth, l.Name, state, f4(l.Median), f4(l.P05), f4(l.P95), f4(l.Max), l.Windows, l.NoData)
}

// PhaseLevels measures each phase with DefaultParams' windows (0.2 s every 0.05 s).
func PhaseLevels(samples []Sample, phases []Phase) []PhaseLevel {
	return PhaseLevelsWith(samples, phases, DefaultParams())
}

// PhaseLevelsWith measures each phase with p's Window, Step and MinSamples: a threshold only means something
// for the window length it was measured with. Invalid parameters give levels without numbers (NaN).
func PhaseLevelsWith(samples []Sample, phases []Phase, p Params) []PhaseLevel {
	s, _ := clean(samples)
	ok := p.Validate() == nil
	out := make([]PhaseLevel, 0, len(phases))
	for _, ph := range phases {
		l := PhaseLevel{Name: ph.Name, Spinning: ph.Spinning, From: ph.From, To: ph.To, Median: math.NaN(),
			P05: math.NaN(), P95: math.NaN(), Max: math.NaN()}
		var ws []WindowScore
		if ok && isFinite(ph.From) && isFinite(ph.To) {
			ws = windowsGrid(nil, s, ph.From, p.Window, ph.To-ph.From, p)
		}
		xs := make([]float64, 0, len(ws))
		for _, w := range ws {
			if w.NoData {
				l.NoData++
			} else {
				xs = append(xs, w.Score)
			}
		}
		l.Windows = len(xs)
		if len(xs) > 0 {
			slices.Sort(xs)
			l.Median = median(xs)
			l.P05, l.P95, l.Max = rank(xs, 0.05), rank(xs, 0.95), xs[len(xs)-1]
		}
		out = append(out, l)
	}
	return out
}

// rank is the nearest-rank percentile of sorted xs (gonum's empirical quantile).
func rank(xs []float64, q float64) float64 { return stat.Quantile(q, stat.Empirical, xs, nil) }

// median is the median of sorted xs, the mean of the two middle values for an even count. gonum's quantiles
// give the lower middle value there, which would move the judge's spinning level; so it stays here.
func median(xs []float64) float64 {
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return m
}

// SuggestThreshold places a threshold between the loudest still phase and the quietest spinning phase, and
// says why in words.
//
// The still side is a still phase's 95th percentile window: after a stop every window must stay below the
// threshold for seconds on end (one loud window restarts the quiet run), so the loud tail of still matters.
// The spinning side is a spinning phase's median window: that is how Judge measures the spinning level.
//
// The threshold is their geometric mean, not the midpoint: vibration levels are spreads, which scale by
// factors (a faster wheel, a looser mount), so the fair middle is the one with the same ratio to both sides.
// With the seed's levels, still up to 0.0025 and 0.2 m/s from 0.005, it gives 0.0035, the threshold the seed
// chose. It returns NaN, with the reason, when there is no still or no spinning phase with data, or when the
// levels overlap: then no threshold can tell them apart and the stand itself needs looking at.
func SuggestThreshold(levels []PhaseLevel) (float64, string) {
	var still, spin *PhaseLevel
	for i := range levels {
		l := &levels[i]
		if l.Windows == 0 || !isFinite(l.Median) {
			continue
		}
		if l.Spinning {
			if spin == nil || l.Median < spin.Median {
				spin = l
			}
		} else if still == nil || l.P95 > still.P95 {
			still = l
		}
	}
	switch {
	case still == nil:
		return math.NaN(), "no still phase with IMU data: cannot place a threshold; measure the wheels still (idle, enabled still)"
	case spin == nil:
		return math.NaN(), "no spinning phase with IMU data: cannot place a threshold; measure the wheels spinning"
	case still.P95 >= spin.Median:
		return math.NaN(), fmt.Sprintf("no threshold separates still from spinning: still phase %q reaches %.4f (p95) and spinning phase %q is only %.4f (median); find what shakes the still robot, or what damps the spinning one, before proving stops",
			still.Name, still.P95, spin.Name, spin.Median)
	case still.P95 <= 0:
		thr := spin.Median / 2
		return thr, fmt.Sprintf("%.4f = half the quietest spinning phase %q (median %.4f): the still phases show no vibration at all (a simulator without noise?)",
			thr, spin.Name, spin.Median)
	}
	thr := math.Sqrt(still.P95 * spin.Median)
	return thr, fmt.Sprintf("%.4f = geometric mean of the loudest still phase %q (p95 %.4f) and the quietest spinning phase %q (median %.4f): x%.2f margin on each side",
		thr, still.Name, still.P95, spin.Name, spin.Median, thr/still.P95)
}
