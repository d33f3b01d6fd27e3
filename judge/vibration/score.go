package vibration

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Score is the vibration score of a stretch of samples: the hypot of the population standard deviations of
// GyroX and GyroY (rad/s). Samples whose time or scored axes are not finite are skipped. It returns NaN for
// fewer than two usable samples: one reading has no spread, and NaN cannot pass a comparison by accident.
func Score(samples []Sample) float64 {
	var xs, ys []float64
	for _, s := range samples {
		if s.valid() {
			xs, ys = append(xs, s.GyroX), append(ys, s.GyroY)
		}
	}
	return scoreXY(xs, ys)
}

// scoreXY is the score of the two axes' readings: gonum's population standard deviations, whose two passes
// (mean, then squared deviations, corrected) keep the digits that matter, where sum-of-squares minus
// square-of-sum would cancel them away under the gyro's bias, which is far larger than the vibration.
func scoreXY(xs, ys []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	return math.Hypot(stat.PopStdDev(xs, nil), stat.PopStdDev(ys, nil))
}

// WindowScore is the score of one sliding window (End-Window, End].
type WindowScore struct {
	End    float64 // end of the window, on the samples' timeline
	Score  float64 // vibration score (rad/s); NaN when N < 2
	N      int     // samples in the window
	NoData bool    // N < Params.MinSamples: neither quiet nor loud, and never evidence of stillness
}

// quiet reports whether the window is evidence of still wheels: it has data and scores below the threshold.
func (w WindowScore) quiet(thr float64) bool { return !w.NoData && w.Score < thr }

// Windows scores sliding windows over the whole series: the first ends one Window after the first usable
// sample, the rest follow every Step up to the last sample. It returns nil for invalid parameters, for fewer
// than one usable sample, or for a series too long to window (more than 2^20 windows). Samples need not be
// sorted; non-finite ones are skipped.
func Windows(samples []Sample, p Params) []WindowScore {
	if p.Validate() != nil {
		return nil
	}
	s, _ := clean(samples)
	if len(s) == 0 {
		return nil
	}
	return windowsGrid(nil, s, s[0].T, p.Window, s[len(s)-1].T-s[0].T, p)
}

// WindowsBetween scores the sliding windows that lie inside [from, to]: ends from+Window+k*Step <= to. It
// returns nil for invalid parameters, a range shorter than one Window, or more than 2^20 windows. (Judge's own
// windows, in Verdict.Windows, end at trigger+k*Step instead and may reach back before the trigger.)
func WindowsBetween(samples []Sample, from, to float64, p Params) []WindowScore {
	if p.Validate() != nil || !isFinite(from) || !isFinite(to) {
		return nil
	}
	s, _ := clean(samples)
	return windowsGrid(nil, s, from, p.Window, to-from, p)
}

// gridCount is how many window ends base+first+k*Step fit at or before base+span. The tolerance (a
// ten-thousandth of a step) keeps 5.0/0.05 from rounding to 99.999... and losing the last window.
func gridCount(first, span float64, p Params) int {
	if !(span-first >= -p.Step*1e-4) {
		return 0
	}
	n := math.Floor((span-first)/p.Step+1e-4) + 1
	if !(n <= maxWindows) {
		return -1
	}
	return int(n)
}

// windowsGrid appends to dst the windows ending at base+first+k*Step for every end at or before base+span.
// s must be clean (valid, sorted). It returns nil when the grid is too long.
func windowsGrid(dst []WindowScore, s []Sample, base, first, span float64, p Params) []WindowScore {
	n := gridCount(first, span, p)
	if n < 0 {
		return nil
	}
	if dst == nil {
		dst = make([]WindowScore, 0, n)
	}
	sc := newScanner(s, base+first-p.Window, p)
	for k := 0; k < n; k++ {
		dst = append(dst, sc.at(base+first+float64(k)*p.Step))
	}
	return dst
}

// scanner scores windows with increasing ends over clean samples in one pass: two indexes that only move
// forward, so a whole judge costs O(samples + windows x window length).
type scanner struct {
	s      []Sample
	lo, hi int
	w      float64
	min    int
	xs, ys []float64 // the window's axes, reused from window to window
}

// newScanner starts a scanner whose first window begins after start.
func newScanner(s []Sample, start float64, p Params) scanner {
	i := sort.Search(len(s), func(i int) bool { return s[i].T > start })
	return scanner{s: s, lo: i, hi: i, w: p.Window, min: p.MinSamples}
}

// at scores the window (end-Window, end]. Ends must not decrease between calls.
func (sc *scanner) at(end float64) WindowScore {
	for sc.hi < len(sc.s) && sc.s[sc.hi].T <= end {
		sc.hi++
	}
	start := end - sc.w
	for sc.lo < sc.hi && sc.s[sc.lo].T <= start {
		sc.lo++
	}
	win := sc.s[sc.lo:sc.hi]
	sc.xs, sc.ys = sc.xs[:0], sc.ys[:0]
	for i := range win {
		sc.xs, sc.ys = append(sc.xs, win[i].GyroX), append(sc.ys, win[i].GyroY)
	}
	return WindowScore{End: end, Score: scoreXY(sc.xs, sc.ys), N: len(win), NoData: len(win) < sc.min}
}

// clean returns the usable samples sorted by time and how many were dropped as non-finite. When the input is
// already clean and sorted (the normal case) it is returned as is, without copying.
func clean(samples []Sample) ([]Sample, int) {
	bad, sorted := 0, true
	last := math.Inf(-1)
	for _, s := range samples {
		if !s.valid() {
			bad++
			continue
		}
		if s.T < last {
			sorted = false
		}
		last = s.T
	}
	if bad == 0 && sorted {
		return samples, 0
	}
	out := make([]Sample, 0, len(samples)-bad)
	for _, s := range samples {
		if s.valid() {
			out = append(out, s)
		}
	}
	if !sorted {
		sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	}
	return out, bad
}
