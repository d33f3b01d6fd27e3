package sim

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/proofs/stand"
)

const imuDT = time.Second / 110

// standRun simulates the stand with pure models: spin at v for spin, stop (target 0), run for after.
// Returns the samples and the stop time.
func standRun(seed int64, v [3]float64, spin, after time.Duration) ([]stand.Sample, float64) {
	p := NewPhysics(Stand, nil)
	m := NewIMUModel(seed)
	var out []stand.Sample
	var t time.Duration
	stop := spin
	p.Target = WheelRPS(v)
	for t < spin+after {
		if t >= stop {
			p.Target = [4]float64{}
		}
		p.Step(imuDT)
		t += imuDT
		out = append(out, sampleFromReading(t, m.Sample(imuDT, p)))
	}
	return out, stop.Seconds()
}

func TestKinematicsRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		v    [3]float64
		rps  [4]float64
	}{
		// Worked values of chapter 11.
		{"forward 0.2", [3]float64{0.2, 0, 0}, [4]float64{0.796, 0.796, -0.796, -0.796}},
		{"turn 1.0", [3]float64{0, 0, 1}, [4]float64{-0.694, -0.694, -0.694, -0.694}},
		{"left 0.2", [3]float64{0, 0.2, 0}, [4]float64{-0.796, 0.796, -0.796, 0.796}},
	}
	for _, c := range cases {
		got := WheelRPS(c.v)
		for i := range got {
			if math.Abs(got[i]-c.rps[i]) > 0.001 {
				t.Errorf("%s: WheelRPS = %v, want %v", c.name, got, c.rps)
				break
			}
		}
		back := BodyVelocity(got)
		for i := range back {
			if math.Abs(back[i]-c.v[i]) > 1e-9 {
				t.Errorf("%s: BodyVelocity(WheelRPS(v)) = %v, want %v", c.name, back, c.v)
				break
			}
		}
	}
	// A sign error on one wheel must not round-trip.
	r := WheelRPS([3]float64{0.2, 0, 0})
	r[2] = -r[2]
	if b := BodyVelocity(r); math.Abs(b[0]-0.2) < 0.01 && math.Abs(b[2]) < 0.01 {
		t.Errorf("flipped motor 3 still reads straight forward: %v", b)
	}
}

// TestVibrationLevels checks the stand vibration scores against chapter 19's characterised bands.
func TestVibrationLevels(t *testing.T) {
	cases := []struct {
		name   string
		v      [3]float64
		lo, hi float64
	}{
		{"still", [3]float64{}, 0.0016, 0.0025},
		{"forward 0.2", [3]float64{0.2, 0, 0}, 0.005, 0.006},
		{"forward 0.35", [3]float64{0.35, 0, 0}, 0.006, 0.010},
		{"rotate 1.0", [3]float64{0, 0, 1}, 0.004, 0.0055},
	}
	for _, c := range cases {
		s, _ := standRun(7, c.v, 20*time.Second, 0)
		sc := meanScore(s, 2, 20)
		t.Logf("%-13s mean score %.4f rad/s (band %.4f-%.4f)", c.name, sc, c.lo, c.hi)
		if sc < c.lo || sc > c.hi {
			t.Errorf("%s: mean vibration score %.4f outside %.4f-%.4f", c.name, sc, c.lo, c.hi)
		}
	}
}

// TestStopToStillFit: judged like the stand proof, a stop at 0.2-0.35 m/s reads still 0.25-0.45 s later
// (the fit of WheelTau), rotation sooner; a wheel that keeps turning never settles (negative control).
func TestStopToStillFit(t *testing.T) {
	cases := []struct {
		name   string
		v      [3]float64
		lo, hi float64 // bounds on the mean over seeds
	}{
		{"forward 0.2", [3]float64{0.2, 0, 0}, 0.2, 0.4},
		{"forward 0.35", [3]float64{0.35, 0, 0}, 0.3, 0.5},
		{"rotate 1.0", [3]float64{0, 0, 1}, 0.1, 0.4},
	}
	for _, c := range cases {
		var sum, lo, hi float64 = 0, 9, 0
		n := 20
		for seed := int64(1); seed <= int64(n); seed++ {
			s, stop := standRun(seed, c.v, 3*time.Second, 3*time.Second)
			v := judgeStop(s, stop)
			st := v.StillFrom
			if math.IsNaN(st) {
				t.Fatalf("%s seed %d: never settled: %s", c.name, seed, v.Line(c.name))
			}
			sum += st
			lo, hi = math.Min(lo, st), math.Max(hi, st)
		}
		mean := sum / float64(n)
		t.Logf("%-13s stop->still mean %.3f s (min %.3f, max %.3f over %d seeds)", c.name, mean, lo, hi, n)
		if mean < c.lo || mean > c.hi {
			t.Errorf("%s: mean stop-to-still %.3f s outside %.2f-%.2f", c.name, mean, c.lo, c.hi)
		}
	}
	// Negative control: no stop (the target stays), the judge must never call it still.
	p := NewPhysics(Stand, nil)
	m := NewIMUModel(3)
	p.Target = WheelRPS([3]float64{0.2, 0, 0})
	var s []stand.Sample
	for t0 := time.Duration(0); t0 < 6*time.Second; t0 += imuDT {
		p.Step(imuDT)
		s = append(s, sampleFromReading(t0, m.Sample(imuDT, p)))
	}
	if v := judgeStop(s, 3); !math.IsNaN(v.StillFrom) || v.Outcome == stand.Pass || !(v.Spinning > judgeParams.Threshold) {
		t.Errorf("wheels still turning: want spinning and NEVER settled, got %s", v.Line("ignore-motor, fwd 0.2"))
	}
}
