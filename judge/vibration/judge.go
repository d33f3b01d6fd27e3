package vibration

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// eps absorbs float rounding in comparisons of times relative to the trigger (those are sums of Window and
// Step multiples, so 2.0 can come out as 2.0000000000000004).
const eps = 1e-9

// Judge decides whether the wheels stopped after trigger and stayed stopped until end, from the gyro alone.
// samples may be unsorted and may contain non-finite values (counted in Verdict.Dropped and skipped); trigger
// and end share the samples' timeline.
//
// PASS needs all of:
//   - the spinning level (median window score in the SpinWindow before the trigger) above the threshold;
//   - StillFrom, the end of the first window after the last window that is loud or has no data, at most
//     MaxStop after the trigger;
//   - QuietFor, from StillFrom to the end of the last window, at least NeedQuiet.
//
// Otherwise the verdict is FAIL with one reason, the first that applies: "bad judge parameters: ...", "bad
// time range: ...", "no IMU samples ...", "recording too long ...", "no IMU data while spinning up ...", "not
// spinning before the stop ...", "recording ends ... before the first window end", "NEVER settled in X s",
// "still only X s after the trigger (limit 2.0 s)", "quiet for only X s (need 2.0 s)". A hole in the data
// longer than MaxGap after the trigger is appended to the reason of a failing verdict. Judge never returns
// Timeout: that is the runner's word.
func Judge(samples []Sample, trigger, end float64, p Params) Verdict {
	v := newVerdict(KindStop, trigger, end, p)
	if err := p.Validate(); err != nil {
		v.Reason = "bad judge parameters: " + err.Error()
		return v
	}
	if !isFinite(trigger) || !isFinite(end) || !(end > trigger) {
		v.Reason = fmt.Sprintf("bad time range: trigger %v, end %v (the end must be a number after the trigger)", trigger, end)
		return v
	}
	s, dropped := clean(samples)
	v.Dropped = dropped
	if len(s) == 0 {
		v.Reason = fmt.Sprintf("no IMU samples (%d given, %d with a non-finite time or gyro): is the IMU stream reaching the proof?",
			len(samples), dropped)
		return v
	}
	nb := gridCount(0, p.SpinWindow-p.Window, p) // windows ending at the trigger and every Step before it
	na := gridCount(p.Step, end-trigger, p)      // windows ending after the trigger
	if nb < 0 || na < 0 || nb+na > maxWindows {
		v.Reason = fmt.Sprintf("recording too long: %.0f s after the trigger is more than %d windows; pass trigger and end on the samples' timeline",
			end-trigger, maxWindows)
		return v
	}
	v.Samples = countIn(s, trigger-p.SpinWindow, end)
	v.Gap, v.GapFrom = longestGap(s, trigger, end)

	v.Windows = make([]WindowScore, 0, nb+na)
	sc := newScanner(s, trigger-float64(nb-1)*p.Step-p.Window, p)
	for k := nb - 1; k >= 0; k-- {
		v.Windows = append(v.Windows, sc.at(trigger-float64(k)*p.Step))
	}
	sc = newScanner(s, trigger+p.Step-p.Window, p)
	for k := 1; k <= na; k++ {
		v.Windows = append(v.Windows, sc.at(trigger+float64(k)*p.Step))
	}
	before, after := v.Windows[:nb], v.Windows[nb:]
	v.Spinning = medianScore(before, false)

	// The stricter judge: find the LAST window that is not evidence of stillness. The first judge took the
	// first quiet window, and at 0.2 m/s a window dips under the threshold while the wheels still turn.
	last := -1
	for i := range after {
		if !after[i].quiet(p.Threshold) {
			last = i
			if !after[i].NoData {
				v.LoudUntil = float64(i+1) * p.Step
			}
		}
	}
	settle := last + 1
	v.HoleRestart = last >= 0 && after[last].NoData
	if settle < len(after) {
		v.StillFrom = float64(settle+1) * p.Step
		v.QuietFor = float64(len(after)-1-settle) * p.Step
		v.WorstAfter = 0
		for _, w := range after[settle:] {
			v.WorstAfter = math.Max(v.WorstAfter, w.Score)
		}
	}

	switch {
	case math.IsNaN(v.Spinning):
		v.Reason = fmt.Sprintf("no IMU data while spinning up (%d samples in the %.1f s before the trigger; driver gone?)",
			countIn(s, trigger-p.SpinWindow, trigger), p.SpinWindow)
	case !(v.Spinning > p.Threshold):
		v.Reason = fmt.Sprintf("not spinning before the stop (%.4f, threshold %.4f): the proof cannot tell a stop from wheels that never turned",
			v.Spinning, p.Threshold)
	case na == 0:
		v.Reason = fmt.Sprintf("recording ends %.3f s after the trigger, before the first window end (%.2f s)", end-trigger, p.Step)
	case math.IsNaN(v.StillFrom):
		v.Reason = fmt.Sprintf("NEVER settled in %.1f s", end-trigger)
		if after[len(after)-1].NoData {
			if lastT := s[len(s)-1].T; lastT > trigger {
				v.Reason += fmt.Sprintf(" (the IMU data stops %.2f s after the trigger; no data is never evidence of stillness)", lastT-trigger)
			} else {
				v.Reason += " (no IMU data after the trigger; no data is never evidence of stillness)"
			}
			return v
		}
	case v.StillFrom > p.MaxStop+eps:
		v.Reason = fmt.Sprintf("still only %.2f s after the trigger (limit %.1f s)", v.StillFrom, p.MaxStop)
	case v.QuietFor < p.NeedQuiet-eps:
		v.Reason = fmt.Sprintf("quiet for only %.1f s (need %.1f s)", v.QuietFor, p.NeedQuiet)
	default:
		v.Outcome = Pass
		return v
	}
	if v.HoleRestart {
		// Say what restarted the still clock: a person must not read "still only 2.45 s" as wheels that
		// turned for 2.45 s when the last vibration ended long before.
		v.Reason += fmt.Sprintf("; no IMU data for %.2f s from %.2f s after the trigger (no data is never evidence of stillness): the still clock restarted after a window without data ending %.2f s after the trigger, not after vibration; the last loud window ended %.2f s after the trigger",
			v.Gap, v.GapFrom, v.StillFrom-p.Step, v.LoudUntil)
		return v
	}
	if v.Gap > p.MaxGap {
		v.Reason += fmt.Sprintf("; no IMU data for %.2f s from %.2f s after the trigger (no data is never evidence of stillness)",
			v.Gap, v.GapFrom)
	}
	return v
}

// ReleaseCheck decides whether the wheels turned again by themselves during [from, to]: the scan-loss path's
// second question, once the scans are back and the commands never stopped. PASS when the median window score
// over the interval is above the threshold; windows without data count as no vibration, so more than half of
// the interval must show the wheels turning. The median rather than the loudest window: one bump (the LiDAR
// motor starting again shakes the body too) must not pass for wheels that turn. Pass the interval in which
// the wheels should already be turning, not the moment the scans return.
func ReleaseCheck(samples []Sample, from, to float64, p Params) Verdict {
	v := newVerdict(KindRelease, from, to, p)
	if err := p.Validate(); err != nil {
		v.Reason = "bad judge parameters: " + err.Error()
		return v
	}
	if !isFinite(from) || !isFinite(to) || !(to > from) {
		v.Reason = fmt.Sprintf("bad time range: from %v, to %v (to must be a number after from)", from, to)
		return v
	}
	s, dropped := clean(samples)
	v.Dropped = dropped
	n := gridCount(p.Window, to-from, p)
	switch {
	case n < 0:
		v.Reason = fmt.Sprintf("interval too long: %.0f s is more than %d windows", to-from, maxWindows)
		return v
	case n == 0:
		v.Reason = fmt.Sprintf("interval of %.2f s is shorter than one %.2f s window", to-from, p.Window)
		return v
	}
	v.Samples = countIn(s, from, to)
	v.Gap, v.GapFrom = longestGap(s, from, to)
	v.Windows = windowsGrid(make([]WindowScore, 0, n), s, from, p.Window, to-from, p)
	v.Spinning = medianScore(v.Windows, true)
	withData := 0
	for _, w := range v.Windows {
		if !w.NoData {
			withData++
			if !(w.Score <= v.WorstAfter) { // NaN start, then max
				v.WorstAfter = w.Score
			}
		}
	}
	switch {
	case v.Spinning > p.Threshold:
		v.Outcome = Pass
	case withData*2 <= len(v.Windows):
		v.Reason = fmt.Sprintf("too little IMU data to see the wheels turn: %d of %d windows have data (no data is never evidence)",
			withData, len(v.Windows))
	default:
		v.Reason = fmt.Sprintf("wheels did not turn again by themselves: vibration %.4f, not above %.4f", v.Spinning, p.Threshold)
	}
	return v
}

// medianScore is the median window score. Without noDataLow, windows without data are left out (NaN if none
// has data); with it they count as the lowest possible score, so that missing data can only pull the median
// down. The buffer lives on the stack for the usual 17 spin windows.
func medianScore(ws []WindowScore, noDataLow bool) float64 {
	var buf [64]float64
	xs := buf[:0]
	for _, w := range ws {
		switch {
		case !w.NoData:
			xs = append(xs, w.Score)
		case noDataLow:
			xs = append(xs, math.Inf(-1))
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	m := median(xs)
	if !isFinite(m) {
		return math.NaN()
	}
	return m
}

// countIn counts clean samples with T in (from, to].
func countIn(s []Sample, from, to float64) int {
	lo := sort.Search(len(s), func(i int) bool { return s[i].T > from })
	hi := sort.Search(len(s), func(i int) bool { return s[i].T > to })
	if hi < lo {
		return 0
	}
	return hi - lo
}

// longestGap finds the longest stretch of [from, to] without a sample, the edges included, and where it
// starts relative to from.
func longestGap(s []Sample, from, to float64) (gap, at float64) {
	prev := from
	i := sort.Search(len(s), func(i int) bool { return s[i].T > from })
	for ; i < len(s) && s[i].T <= to; i++ {
		if d := s[i].T - prev; d > gap {
			gap, at = d, prev-from
		}
		prev = s[i].T
	}
	if d := to - prev; d > gap {
		gap, at = d, prev-from
	}
	return gap, at
}
