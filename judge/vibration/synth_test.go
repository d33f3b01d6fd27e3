package vibration

import (
	"math"
	"math/rand"
	"testing"
)

// Synthetic stand recordings. The levels are the seed's characterize figures (hypot of the x and y standard
// deviations): still ~0.002, 0.2 m/s ~0.0055, 0.35 m/s ~0.008, rotate 1.0 rad/s ~0.004. Each axis gets
// Gaussian noise of level/sqrt(2) on top of a gyro bias, so the hypot of the two standard deviations is the
// level.

const (
	stillLevel = 0.0020
	fwd02Level = 0.0055
	fwd35Level = 0.0080
	rotLevel   = 0.0041
	trig       = 3.0 // the trigger in every synthetic series: 3 s of spinning before it, as the seed's spin-up
	imuHz      = 110.0
)

// seg: the vibration level from the previous segment's end until `until` (seconds on the series' timeline).
type seg struct{ until, level float64 }

// series describes a synthetic recording.
type series struct {
	seed   int64
	hz     float64      // sample rate; imuHz if 0
	from   float64      // first sample time
	to     float64      // last sample time (inclusive)
	segs   []seg        // piecewise vibration level; after the last segment the level is the last one's
	gaps   [][2]float64 // no samples with T in [a, b)
	offset float64      // added to every time (to test Unix-scale timelines)
	jitter float64      // timing jitter, fraction of a period
}

func (c series) gen() []Sample {
	hz := c.hz
	if hz == 0 {
		hz = imuHz
	}
	rng := rand.New(rand.NewSource(c.seed))
	const biasX, biasY = 0.011, -0.007 // rad/s: a bias much larger than the vibration, as on the robot
	var out []Sample
	for k := 0; ; k++ {
		t := c.from + float64(k)/hz
		if t > c.to+1e-9 {
			break
		}
		if c.jitter > 0 {
			t += (rng.Float64() - 0.5) * c.jitter / hz
		}
		hole := false
		for _, g := range c.gaps {
			if t >= g[0] && t < g[1] {
				hole = true
			}
		}
		lvl := c.segs[len(c.segs)-1].level
		for _, s := range c.segs {
			if t < s.until {
				lvl = s.level
				break
			}
		}
		gx := biasX + rng.NormFloat64()*lvl/math.Sqrt2
		gy := biasY + rng.NormFloat64()*lvl/math.Sqrt2
		if hole {
			continue
		}
		out = append(out, Sample{T: t + c.offset, GyroX: gx, GyroY: gy, GyroZ: 0.002 * rng.NormFloat64()})
	}
	return out
}

// stopAt is the usual series: spinning at level until trig+stopAfter, still afterwards, 5 s after the trigger.
func stopAt(seed int64, level, stopAfter float64) series {
	return series{seed: seed, from: 0, to: trig + 5, segs: []seg{{trig + stopAfter, level}, {math.Inf(1), stillLevel}}}
}

// firstQuietJudge is the seed's FIRST judge, kept here only to show that a series really has the trap it is
// meant to have: the end of the first quiet window after the trigger, relative to the trigger.
func firstQuietJudge(samples []Sample, trigger, end float64, p Params) float64 {
	for _, w := range Judge(samples, trigger, end, p).Windows {
		if w.End > trigger && w.quiet(p.Threshold) {
			return w.End - trigger
		}
	}
	return math.NaN()
}

// naiveWindow scores (end-W, end] by filtering every sample: the reference the fast scanner is checked against.
func naiveWindow(samples []Sample, end float64, p Params) WindowScore {
	var in []Sample
	for _, s := range samples {
		if s.valid() && s.T > end-p.Window && s.T <= end {
			in = append(in, s)
		}
	}
	return WindowScore{End: end, Score: Score(in), N: len(in), NoData: len(in) < p.MinSamples}
}

// checkVerdict re-derives a stop verdict's claims from the raw samples with the naive window and fails the
// test when they do not hold. A PASS must be backed by data windows below the threshold from StillFrom to the
// end, a spinning level above it, and the time limits.
func checkVerdict(t testing.TB, samples []Sample, v Verdict) {
	t.Helper()
	p := v.Params
	if v.Outcome == Pass && v.Reason != "" {
		t.Errorf("PASS with a reason %q", v.Reason)
	}
	if v.Outcome != Pass {
		if v.Reason == "" {
			t.Errorf("%v without a reason", v.Outcome)
		}
		return
	}
	if !(v.Spinning > p.Threshold) {
		t.Errorf("PASS with spinning %v not above %v", v.Spinning, p.Threshold)
	}
	if !(v.StillFrom <= p.MaxStop+eps) || !(v.QuietFor >= p.NeedQuiet-eps) {
		t.Errorf("PASS with still from %v (limit %v), quiet %v (need %v)", v.StillFrom, p.MaxStop, v.QuietFor, p.NeedQuiet)
	}
	// The same grid arithmetic as the judge (trigger + Window + k*Step): at 110 Hz every other window end
	// falls exactly on a sample, and a differently rounded end would move that sample in or out.
	k0 := int(math.Round(v.StillFrom / p.Step))
	k1 := k0 + int(math.Round(v.QuietFor/p.Step))
	n := 0
	for k := k0; k <= k1; k++ {
		w := naiveWindow(samples, v.Trigger+float64(k)*p.Step, p)
		n++
		if w.NoData || !(w.Score < p.Threshold) {
			t.Fatalf("PASS but the window ending %.2f s after the trigger is not quiet evidence: %+v", float64(k)*p.Step, w)
		}
	}
	if v.Trigger+float64(k1)*p.Step > v.End+eps {
		t.Fatalf("PASS counts quiet time past the end")
	}
	if n < 2 {
		t.Errorf("PASS backed by %d windows", n)
	}
}

func nan() float64 { return math.NaN() }
