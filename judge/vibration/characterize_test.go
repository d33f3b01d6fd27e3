package vibration

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// A characterize run as `stopproof characterize` drives it, with the seed's levels: idle, enabled still,
// forward 0.1, 0.2, 0.35 m/s, rotate 1.0 rad/s, still phases between.
func characterizeRun(seed int64, rot float64) ([]Sample, []Phase) {
	type ph struct {
		name  string
		level float64
		spin  bool
	}
	plan := []ph{{"idle", 0.0016, false}, {"enabled still", stillLevel, false}, {"forward 0.1", 0.0048, true},
		{"still", 0.0022, false}, {"forward 0.2", fwd02Level, true}, {"still", 0.0021, false},
		{"forward 0.35", fwd35Level, true}, {"still", 0.0023, false}, {"rotate 1.0", rot, true}, {"still", 0.0020, false}}
	var segs []seg
	var phases []Phase
	for i, p := range plan {
		from, to := float64(i)*4, float64(i+1)*4
		segs = append(segs, seg{to, p.level})
		// Leave the first second of each phase out: spin-up and spin-down are not a steady state.
		phases = append(phases, Phase{Name: p.name, From: from + 1, To: to, Spinning: p.spin})
	}
	return series{seed: seed, from: 0, to: float64(len(plan)) * 4, segs: segs}.gen(), phases
}

func TestCharacterizeAndSuggest(t *testing.T) {
	s, phases := characterizeRun(3, 0.0048)
	levels := PhaseLevels(s, phases)
	if len(levels) != len(phases) {
		t.Fatalf("%d levels for %d phases", len(levels), len(phases))
	}
	for _, l := range levels {
		t.Log(l.Line())
		if l.Windows != 57 || l.NoData != 0 || !(l.P05 <= l.Median && l.Median <= l.P95 && l.P95 <= l.Max) {
			t.Errorf("%s: %+v", l.Name, l)
		}
	}
	if m := levels[6].Median; math.Abs(m-fwd35Level) > 0.1*fwd35Level {
		t.Errorf("forward 0.35 median %.4f, generated at %.4f", m, fwd35Level)
	}
	thr, why := SuggestThreshold(levels)
	t.Logf("suggested %.4f: %s", thr, why)
	// The seed's numbers put it at 0.0035; these synthetic ones at the same place give 0.003-0.004.
	if !(thr > 0.0030 && thr < 0.0040) || !strings.Contains(why, "geometric mean") || !strings.Contains(why, `"rotate 1.0"`) {
		t.Fatalf("suggested %v: %s", thr, why)
	}
	// The same arithmetic on the seed's own figures: still up to 0.0025, 0.2 m/s from 0.005.
	seedThr, _ := SuggestThreshold([]PhaseLevel{
		{Name: "enabled still", P95: 0.0025, Median: 0.0020, Windows: 1},
		{Name: "forward 0.2", Spinning: true, Median: 0.0050, Windows: 1}})
	if math.Abs(seedThr-0.0035) > 0.00005 {
		t.Fatalf("seed figures give %.5f, the seed chose 0.0035", seedThr)
	}
}

// Negative controls: the suggestion refuses to place a threshold it cannot justify.
func TestSuggestThresholdRefuses(t *testing.T) {
	s, phases := characterizeRun(3, 0.0019) // "rotation" that does not shake the gyro at all
	thr, why := SuggestThreshold(PhaseLevels(s, phases))
	if !math.IsNaN(thr) || !strings.HasPrefix(why, "no threshold separates still from spinning") || !strings.Contains(why, `"rotate 1.0"`) {
		t.Fatalf("overlap: %v %s", thr, why)
	}
	if thr, why := SuggestThreshold(nil); !math.IsNaN(thr) || !strings.HasPrefix(why, "no still phase") {
		t.Fatalf("nil: %v %s", thr, why)
	}
	only := PhaseLevels(s, phases[:2])
	if thr, why := SuggestThreshold(only); !math.IsNaN(thr) || !strings.HasPrefix(why, "no spinning phase") {
		t.Fatalf("still only: %v %s", thr, why)
	}
	// A noiseless simulator: still is exactly 0.
	thr, why = SuggestThreshold([]PhaseLevel{{Name: "still", Windows: 5}, {Name: "fwd", Spinning: true, Median: 0.006, Windows: 5}})
	if thr != 0.003 || !strings.Contains(why, "no vibration at all") {
		t.Fatalf("noiseless: %v %s", thr, why)
	}
	// Phases without data and bad parameters give NaN levels, not a panic.
	levels := PhaseLevelsWith(s, []Phase{{Name: "void", From: 1000, To: 1004}, {Name: "nan", From: math.NaN(), To: 3}}, DefaultParams())
	for _, l := range levels {
		if l.Windows != 0 || !math.IsNaN(l.Median) {
			t.Fatalf("%+v", l)
		}
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
	}
	if l := PhaseLevelsWith(s, phases[:1], Params{}); l[0].Windows != 0 {
		t.Fatalf("bad params measured: %+v", l[0])
	}
}

func TestPhaseLevelJSON(t *testing.T) {
	s, phases := characterizeRun(1, 0.0048)
	l := PhaseLevels(s, phases)[4]
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back PhaseLevel
	if err := json.Unmarshal(b, &back); err != nil || back != l {
		t.Fatalf("%s -> %+v (%v)", b, back, err)
	}
}
