package envelope

import (
	"math"
	"strings"
	"testing"
)

// FuzzFitDistance: never a panic; without an error, finite parameters with t_r >= 0 and a > 0 (a = +Inf only
// for the "no braking term" fit, said in Clamped), finite residuals, one per point.
func FuzzFitDistance(f *testing.F) {
	for _, s := range [][6]float64{
		{0.1, 0.02, 0.2, 0.05, 0.35, 0.11375},
		{0.1, 0.002, 0.2, 0.018, 0.3, 0.044},
		{0.1, 0.05, 0.2, 0.08, 0.3, 0.09},
		{0.1, 0, 0.1, 0, 0.1, 0},
		{1e-300, 1e300, 2e-300, 1e300, 1, 1},
		{math.NaN(), 1, 0.2, 1, 0.3, 1},
		{0.1, math.Inf(1), 0.2, 1, 0.3, 1},
		{-0.1, 0.1, 0.2, 0.1, 0.3, 0.2},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5])
	}
	f.Fuzz(func(t *testing.T, v1, d1, v2, d2, v3, d3 float64) {
		v, d := []float64{v1, v2, v3}, []float64{d1, d2, d3}
		fit, err := FitDistance(v, d)
		if err != nil {
			return
		}
		// Decel is +Inf only as the "no braking term" fit (distances linear in the speed), and says so.
		noBrake := math.IsInf(fit.Decel, 1) && strings.HasPrefix(fit.Clamped, "no braking term")
		if !finite(fit.ResponseTime) || (!finite(fit.Decel) && !noBrake) || fit.ResponseTime < 0 || !(fit.Decel > 0) {
			t.Fatalf("FitDistance(%v, %v) = %+v without an error", v, d, fit)
		}
		if len(fit.Residuals) != 3 || !finite(fit.RMS) || !finite(fit.Max) || !finite(fit.R2) {
			t.Fatalf("FitDistance(%v, %v) residuals %+v", v, d, fit)
		}
		for _, r := range fit.Residuals {
			if !finite(r) {
				t.Fatalf("FitDistance(%v, %v) residuals %v", v, d, fit.Residuals)
			}
		}
		// And the envelope built on such points answers inside and refuses outside.
		in := Input{Path: "fuzz", Direction: "forward"}
		for i := range v {
			in.Speeds = append(in.Speeds, Speed{V: v[i], Distances: []float64{d[i]}, Times: []float64{1}, BoundDistance: d[i], BoundTime: 1})
		}
		e, err := New(in)
		if err != nil {
			return
		}
		if x, err := e.Distance(e.MaxSpeed()); err != nil || !finite(x) {
			t.Fatalf("Distance(max) = %v, %v", x, err)
		}
		if _, err := e.Distance(math.Nextafter(e.MaxSpeed(), math.Inf(1))); err == nil {
			t.Fatal("extrapolated above the fastest speed")
		}
	})
}
