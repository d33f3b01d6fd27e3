package envelope

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestFitRecoversTheModel(t *testing.T) {
	for _, c := range []struct {
		name      string
		tr, a     float64
		noise     float64
		wantClamp bool
	}{
		{"robot-like 0.15 s 1.0 m/s²", 0.15, 1.0, 0.005, false},
		{"quick strong brake", 0.05, 2.0, 0.002, false},
		{"slow weak brake", 0.3, 0.5, 0.01, false},
		{"no response time", 0, 1.0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(synth("estop", "forward", c.tr, c.a, c.noise, 0))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []Fit{e.Bound, e.Runs} {
				if !near(f.ResponseTime, c.tr, 1e-9) || !near(f.Decel, c.a, 1e-9*c.a) {
					t.Errorf("fit t_r %.12g a %.12g, want %g %g", f.ResponseTime, f.Decel, c.tr, c.a)
				}
				if f.Clamped != "" {
					t.Errorf("clamped: %s", f.Clamped)
				}
			}
			if e.Bound.RMS > 1e-12 || e.Bound.Max > 1e-12 || !near(e.Bound.R2, 1, 1e-12) {
				t.Errorf("bounded fit residuals RMS %g max %g R² %g, want 0 0 1", e.Bound.RMS, e.Bound.Max, e.Bound.R2)
			}
			if len(e.Runs.Residuals) != 3*len(testSpeeds) || !near(e.Runs.Max, c.noise, 1e-9) {
				t.Errorf("runs residuals %v max %g, want %d of them, max %g", e.Runs.Residuals, e.Runs.Max, 3*len(testSpeeds), c.noise)
			}
			if len(e.Splits) != len(testSpeeds) {
				t.Fatalf("splits %v", e.Splits)
			}
			for _, s := range e.Splits {
				if !near(s.ResponseDistance+s.BrakingDistance, model(c.tr, c.a, s.V), 1e-12) || !near(s.ResponseTime, c.tr*1.1, 1e-12) {
					t.Errorf("split %+v", s)
				}
			}
		})
	}
}

// Noisy bounds above the model: the fit is close, not exact, and its residuals say by how much.
func TestFitNoisyBounds(t *testing.T) {
	in := synth("estop", "forward", 0.15, 1.0, 0.005, 0)
	for i, x := range []float64{0.004, -0.003, 0.005, -0.002} {
		in.Speeds[i].BoundDistance += x
	}
	e, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	if !near(e.Bound.ResponseTime, 0.15, 0.05) || !near(e.Bound.Decel, 1.0, 0.3) || e.Bound.Max > 0.006 || e.Bound.R2 < 0.95 {
		t.Errorf("noisy fit %+v", e.Bound)
	}
}

func TestFitConstraints(t *testing.T) {
	// Distances below the pure braking line at low speed: the free fit wants t_r < 0.
	v := []float64{0.1, 0.2, 0.3}
	d := []float64{0.002, 0.018, 0.044}
	f, err := FitDistance(v, d)
	if err != nil {
		t.Fatal(err)
	}
	if f.ResponseTime != 0 || !(f.Decel > 0) || math.IsInf(f.Decel, 0) || !strings.Contains(f.Clamped, "clamped to 0") {
		t.Errorf("t_r < 0 not clamped: %+v", f)
	}
	// Distances that grow slower than v (concave): no positive deceleration fits.
	for name, d := range map[string][]float64{
		"concave":   {0.05, 0.08, 0.09},
		"linear":    {0.02, 0.04, 0.06},
		"all zero":  {0, 0, 0},
		"shrinking": {0.1, 0.05, 0.01},
	} {
		if f, err := FitDistance(v, d); err == nil {
			t.Errorf("%s: fitted %+v, want an error", name, f)
		} else if !strings.Contains(err.Error(), "deceleration") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRefusals(t *testing.T) {
	good := func() Input { return synth("estop", "forward", 0.15, 1.0, 0.005, 0.01) }
	for _, c := range []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"one speed", func(in *Input) { in.Speeds = in.Speeds[:1] }, "at least two"},
		{"no speed", func(in *Input) { in.Speeds = nil }, "at least two"},
		{"NaN distance", func(in *Input) { in.Speeds[1].Distances[0] = math.NaN() }, "finite"},
		{"Inf time", func(in *Input) { in.Speeds[1].Times[2] = math.Inf(1) }, "finite"},
		{"NaN bound", func(in *Input) { in.Speeds[2].BoundDistance = math.NaN() }, "bounded distance"},
		{"negative bounded time", func(in *Input) { in.Speeds[2].BoundTime = -1 }, "bounded time"},
		{"NaN speed", func(in *Input) { in.Speeds[0].V = math.NaN() }, "> 0"},
		{"zero speed", func(in *Input) { in.Speeds[0].V = 0 }, "> 0"},
		{"same speed twice", func(in *Input) { in.Speeds[1].V = in.Speeds[0].V }, "given twice"},
		{"no runs", func(in *Input) { in.Speeds[0].Distances, in.Speeds[0].Times = nil, nil }, "per run"},
		{"times missing", func(in *Input) { in.Speeds[0].Times = in.Speeds[0].Times[:1] }, "per run"},
		{"responses missing", func(in *Input) { in.Speeds[0].Responses = in.Speeds[0].Responses[:1] }, "response times"},
		{"NaN response", func(in *Input) { in.Speeds[0].Responses[0] = math.NaN() }, "response time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := good()
			c.edit(&in)
			e, err := New(in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New = %v, %v; want an error with %q", e, err, c.want)
			}
		})
	}
}

func TestNeverExtrapolated(t *testing.T) {
	e, err := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0.40, "0.40 m/s is above the fastest tested speed 0.35 m/s: the envelope is never extrapolated"},
		{0.351, "0.351 m/s is above the fastest tested speed 0.35 m/s: the envelope is never extrapolated"},
		{0.05, "0.05 m/s is below the slowest tested speed 0.10 m/s: the envelope is never extrapolated"},
		{math.NaN(), "never extrapolated"},
	} {
		for name, f := range map[string]func(float64) (float64, error){"Distance": e.Distance, "Time": e.Time} {
			x, err := f(c.v)
			if err == nil || !errors.Is(err, ErrExtrapolate) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s(%v) = %v, %v; want %q", name, c.v, x, err, c.want)
			}
		}
	}
	// Inside: at a tested speed never below its bound, between two never below either reading's line.
	for _, s := range e.Speeds {
		d, err := e.Distance(s.V)
		if err != nil || d < s.BoundDistance-1e-12 {
			t.Errorf("Distance(%v) = %v, %v; bound %v", s.V, d, err, s.BoundDistance)
		}
		tt, err := e.Time(s.V)
		if err != nil || tt != s.BoundTime {
			t.Errorf("Time(%v) = %v, %v; bound %v", s.V, tt, err, s.BoundTime)
		}
	}
	mid := (e.Speeds[1].V + e.Speeds[2].V) / 2
	d, _ := e.Distance(mid)
	line := (e.Speeds[1].BoundDistance + e.Speeds[2].BoundDistance) / 2
	if d < line-1e-12 || d < e.Bound.Distance(mid)-1e-12 {
		t.Errorf("Distance(%v) = %v below the line %v or the fit %v", mid, d, line, e.Bound.Distance(mid))
	}
	tm, _ := e.Time(mid)
	if !near(tm, (e.Speeds[1].BoundTime+e.Speeds[2].BoundTime)/2, 1e-12) {
		t.Errorf("Time(%v) = %v", mid, tm)
	}
}

func TestSpeedLimitFor(t *testing.T) {
	e, err := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	// Bounds: 0.10 -> 0.03, 0.20 -> 0.06, 0.30 -> 0.10, 0.35 -> 0.12375.
	for _, c := range []struct {
		clearance, want float64
	}{
		{1, 0.35}, {0.12375, 0.35}, {0.12, 0.30}, {0.1, 0.30}, {0.0999, 0.20}, {0.03, 0.10},
	} {
		v, err := e.SpeedLimitFor(c.clearance)
		if err != nil || v != c.want {
			t.Errorf("SpeedLimitFor(%v) = %v, %v; want %v", c.clearance, v, err, c.want)
		}
	}
	for _, c := range []float64{0.029, 0, -1, math.NaN(), math.Inf(1)} {
		if v, err := e.SpeedLimitFor(c); err == nil {
			t.Errorf("SpeedLimitFor(%v) = %v, want an error", c, v)
		}
	}
	_, err = e.SpeedLimitFor(0.02)
	if !errors.Is(err, ErrNoSpeedFits) || !strings.Contains(err.Error(), "slowest tested speed 0.10 m/s needs 0.030 m") {
		t.Errorf("nothing fits: %v", err)
	}
	// A slower speed that does not fit caps the limit even when a faster one would: 0.10 m/s needs 0.05 m,
	// 0.20 m/s 0.04 m, and a 0.045 m clearance allows neither.
	in := synth("estop", "forward", 0.15, 1.0, 0.005, 0.01)
	in.Speeds[0].BoundDistance, in.Speeds[1].BoundDistance = 0.05, 0.04
	e2, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e2.SpeedLimitFor(0.045); !errors.Is(err, ErrNoSpeedFits) {
		t.Errorf("non-monotone bounds: SpeedLimitFor(0.045) = %v, %v; want ErrNoSpeedFits", v, err)
	}
	if v, err := e2.SpeedLimitFor(0.05); err != nil || v != 0.20 {
		t.Errorf("non-monotone bounds: SpeedLimitFor(0.05) = %v, %v; want 0.20", v, err)
	}
}

// The negative control: a weaker brake (a = 0.5 instead of 1.0) must give a larger envelope at every speed,
// a weaker fitted deceleration, a lower speed limit for the same clearance, a larger stop zone and a gentler
// smoother.
func TestWeakBrakeGrowsTheEnvelope(t *testing.T) {
	strong, err := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	weak, err := New(synth("estop", "forward", 0.15, 0.5, 0.005, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	if !(weak.Bound.Decel < strong.Bound.Decel) {
		t.Errorf("weak brake fitted a %v, strong %v", weak.Bound.Decel, strong.Bound.Decel)
	}
	for _, s := range strong.Speeds {
		ds, _ := strong.Distance(s.V)
		dw, _ := weak.Distance(s.V)
		// The fault implies v²/(2·0.5) - v²/(2·1.0) = v²/2 more.
		if !(dw > ds) || !near(dw-ds, s.V*s.V/2, 1e-9) {
			t.Errorf("at %v m/s: weak %v, strong %v, want v²/2 = %v more", s.V, dw, ds, s.V*s.V/2)
		}
	}
	const clearance = 0.13
	vs, err := strong.SpeedLimitFor(clearance)
	if err != nil {
		t.Fatal(err)
	}
	vw, err := weak.SpeedLimitFor(clearance)
	if err != nil {
		t.Fatal(err)
	}
	if !(vw < vs) {
		t.Errorf("speed limit for %v m: weak %v, strong %v; want weak lower", clearance, vw, vs)
	}
	zs, _ := Config{Footprint: testFootprint, Envelopes: []*Envelope{strong}}.StopZone()
	zw, _ := Config{Footprint: testFootprint, Envelopes: []*Envelope{weak}}.StopZone()
	if !(zw.Front > zs.Front) {
		t.Errorf("stop zone front: weak %v, strong %v", zw.Front, zs.Front)
	}
	ds, _ := Config{Envelopes: []*Envelope{strong}, AngularDecel: -3}.SmootherDecel()
	dw, _ := Config{Envelopes: []*Envelope{weak}, AngularDecel: -3}.SmootherDecel()
	if !(dw[0] > ds[0]) { // less negative: gentler
		t.Errorf("max_decel x: weak %v, strong %v", dw[0], ds[0])
	}
}

func TestInputOrderAndCopies(t *testing.T) {
	in := synth("estop", "forward", 0.15, 1.0, 0.005, 0.01)
	in.Speeds[0], in.Speeds[3] = in.Speeds[3], in.Speeds[0]
	e, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.MinSpeed() != 0.10 || e.MaxSpeed() != 0.35 {
		t.Errorf("speeds %v..%v", e.MinSpeed(), e.MaxSpeed())
	}
	in.Speeds[3].Distances[0] = 99
	for _, s := range e.Speeds {
		for _, d := range s.Distances {
			if d == 99 {
				t.Error("the envelope shares the caller's slices")
			}
		}
	}
}

// TestFitLinearBrake: distances that grow linearly with the speed (a brake that follows a lag, as the sim's
// wheels do: distance = speed x 0.13 s) fit with no braking term: Decel +Inf, said in Clamped; the distances
// are the line's, and the smoother refuses to derive a limit from it.
func TestFitLinearBrake(t *testing.T) {
	v := []float64{0.1, 0.2, 0.35}
	d := []float64{0.013, 0.026, 0.0455}
	f, err := FitDistance(v, d)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(f.Decel, 1) || !strings.Contains(f.Clamped, "no braking term") || math.Abs(f.ResponseTime-0.13) > 1e-9 {
		t.Fatalf("fit %+v, want t_r 0.13 s and no braking term", f)
	}
	if got := f.Distance(0.2); math.Abs(got-0.026) > 1e-9 {
		t.Errorf("Distance(0.2) = %v, want 0.026", got)
	}
}

// A split with both response parts: the controller's to the board, the actuators' to the measured
// deceleration, and the braking part the rest of the bound; a run list of the wrong length is refused.
func TestSplitDecel(t *testing.T) {
	in := synth("estop", "forward", 0.15, 1.0, 0, 0)
	for i := range in.Speeds {
		s := &in.Speeds[i]
		s.Decels = make([]float64, len(s.Responses))
		for k, r := range s.Responses {
			s.Decels[k] = r + 0.005
		}
	}
	e, err := New(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range e.Splits {
		if !near(s.DecelTime, s.ResponseTime+0.005, 1e-12) || !near(s.ActuatorDistance, s.V*0.005, 1e-12) ||
			!near(s.ResponseDistance+s.ActuatorDistance+s.BrakingDistance, s.BoundDistance, 1e-12) {
			t.Errorf("split %+v", s)
		}
	}
	only := synth("estop", "forward", 0.15, 1.0, 0, 0)
	for i := range only.Speeds {
		only.Speeds[i].Decels, only.Speeds[i].Responses = only.Speeds[i].Responses, nil
	}
	e, err = New(only)
	if err != nil || len(e.Splits) != len(only.Speeds) || !math.IsNaN(e.Splits[0].ResponseTime) || !math.IsNaN(e.Splits[0].ActuatorDistance) {
		t.Fatalf("decels only: %+v, %v", e.Splits, err)
	}
	in.Speeds[1].Decels = in.Speeds[1].Decels[:1]
	if _, err := New(in); err == nil || !strings.Contains(err.Error(), "deceleration times") {
		t.Errorf("short decels: %v", err)
	}
}
