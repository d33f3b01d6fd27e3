package sim

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/judge/vibration"
)

const imuDT = time.Second / 110

// standRun simulates the stand with pure models: spin at v for spin, stop (target 0), run for after.
// Returns the samples and the stop time.
func standRun(seed int64, v [3]float64, spin, after time.Duration) ([]vibration.Sample, float64) {
	p := NewPhysics(Stand, nil)
	m := NewIMUModel(seed)
	var out []vibration.Sample
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
	var s []vibration.Sample
	for t0 := time.Duration(0); t0 < 6*time.Second; t0 += imuDT {
		p.Step(imuDT)
		s = append(s, sampleFromReading(t0, m.Sample(imuDT, p)))
	}
	if v := judgeStop(s, 3); !math.IsNaN(v.StillFrom) || v.Outcome == vibration.Pass || !(v.Spinning > judgeParams.Threshold) {
		t.Errorf("wheels still turning: want spinning and NEVER settled, got %s", v.Line("ignore-motor, fwd 0.2"))
	}
}

// proofRun is one stand-proof path on the pure models, as cmd/stopproof runs it: spin at v for 3 s, the
// stop reaches the board delay after the trigger (the target drops to zero), 5 s of hold, then
// stand.Judge with the seed's parameters on the trigger's timeline. ignore keeps the target (a board that
// ignores the stop).
func proofRun(seed int64, v [3]float64, delay time.Duration, ignore bool) vibration.Verdict {
	const spin, hold = 3 * time.Second, 5 * time.Second
	p := NewPhysics(Stand, nil)
	m := NewIMUModel(seed)
	p.Target = WheelRPS(v)
	var s []vibration.Sample
	for t := time.Duration(0); t < spin+hold; {
		if t >= spin+delay && !ignore {
			p.Target = [4]float64{}
		}
		p.Step(imuDT)
		t += imuDT
		s = append(s, sampleFromReading(t, m.Sample(imuDT, p)))
	}
	return vibration.Judge(s, spin.Seconds(), (spin + hold).Seconds(), judgeParams)
}

// TestLagFitEstopColumn pins WheelTau to chapter 19's e-stop column (afternoon table, stricter judge):
// 0.40 s at 0.2 m/s, 0.50 s at 0.35 m/s, 0.25 s rotating at 1.0 rad/s, within +-0.15 s, judged by
// judge/vibration.Judge on the pure models with the stop frame at the trigger. The e-stop column is the fit
// target because its trigger is the stop itself (plus the driver's few tens of ms); the deadman column is
// not (see the fit in docs/sim.md). Controls: the stop frame 0.3 s late (the deadman's own wait) lands
// outside the band, and a board that ignores the stop never settles.
func TestLagFitEstopColumn(t *testing.T) {
	cases := []struct {
		name  string
		v     [3]float64
		estop float64 // chapter 19, s
	}{
		{"estop, fwd 0.2", [3]float64{0.2, 0, 0}, 0.40},
		{"estop, fwd 0.35", [3]float64{0.35, 0, 0}, 0.50},
		{"estop, rot 1.0", [3]float64{0, 0, 1}, 0.25},
	}
	const tol, seeds = 0.15, 20
	mean := func(v [3]float64, delay time.Duration, name string) float64 {
		sum := 0.0
		for seed := int64(1); seed <= seeds; seed++ {
			vd := proofRun(seed, v, delay, false)
			if vd.Outcome != vibration.Pass {
				t.Fatalf("%s seed %d: %s", name, seed, vd.Line(name))
			}
			sum += vd.StillFrom
		}
		return sum / seeds
	}
	for _, c := range cases {
		m := mean(c.v, 0, c.name)
		late := mean(c.v, 300*time.Millisecond, c.name+" +0.3 s")
		t.Logf("%-16s still from %.3f s (chapter 19: %.2f s); stop frame 0.3 s late: %.3f s", c.name, m, c.estop, late)
		if math.Abs(m-c.estop) > tol {
			t.Errorf("%s: mean still-from %.3f s, chapter 19 measured %.2f s (+-%.2f): refit WheelTau", c.name, m, c.estop, tol)
		}
		if math.Abs(late-c.estop) <= tol {
			t.Errorf("%s: a stop 0.3 s late still reads %.3f s, inside %.2f+-%.2f: the check cannot tell the lag", c.name, late, c.estop, tol)
		}
		vd := proofRun(1, c.v, 0, true)
		if vd.Outcome == vibration.Pass || !math.IsNaN(vd.StillFrom) || !strings.HasPrefix(vd.Reason, "NEVER settled") {
			t.Errorf("%s, stop ignored: %s", c.name, vd.Line(c.name))
		}
	}
}
