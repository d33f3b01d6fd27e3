package stand

import (
	"math"
	"sort"
)

// Score is the vibration score of a stretch of samples: the hypot of the population standard deviations of
// GyroX and GyroY (rad/s). Samples whose time or scored axes are not finite are skipped. It returns NaN for
// fewer than two usable samples: one reading has no spread, and NaN cannot pass a comparison by accident.
func Score(samples []Sample) float64 {
	var n int
	var mx, my float64
	for _, s := range samples {
		if s.valid() {
			n++
			mx += s.GyroX
			my += s.GyroY
		}
	}
	if n < 2 {
		return math.NaN()
	}
	mx /= float64(n)
	my /= float64(n)
	var vx, vy float64
	for _, s := range samples {
		if s.valid() {
			dx, dy := s.GyroX-mx, s.GyroY-my
			vx += dx * dx
			vy += dy * dy
		}
	}
	return math.Hypot(math.Sqrt(vx/float64(n)), math.Sqrt(vy/float64(n)))
}

// scoreClean is Score for samples known to be valid. Two passes (mean, then squared deviations) rather than
// running sums: the gyro carries a bias far larger than the vibration, and sum-of-squares minus square-of-sum
// would cancel away the digits that matter.
func scoreClean(s []Sample) float64 {
	n := len(s)
	if n < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range s {
		mx += s[i].GyroX
		my += s[i].GyroY
	}
	mx /= float64(n)
	my /= float64(n)
	var vx, vy float64
	for i := range s {
		dx, dy := s[i].GyroX-mx, s[i].GyroY-my
		vx += dx * dx
		vy += dy * dy
	}
	return math.Hypot(math.Sqrt(vx/float64(n)), math.Sqrt(vy/float64(n)))
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
	return WindowScore{End: end, Score: scoreClean(win), N: len(win), NoData: len(win) < sc.min}
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
