package envelope

import (
	"math"
)

// The assumed body for the tests and the example: a 0.25 x 0.20 m rectangle (an assumption, doc.go).
var testFootprint = Rectangle(0.25, 0.20)

var testSpeeds = []float64{0.10, 0.20, 0.30, 0.35}

// synth is a campaign from a known brake: each speed's runs at the model's distance ± noise (in symmetric
// pairs, so a least squares over the runs recovers the model exactly), bounded at the model itself plus
// boundExtra, times tr + v/a + 0.05 s (the judge's step).
func synth(path, dir string, tr, a, noise, boundExtra float64) Input {
	in := Input{Path: path, Direction: dir}
	for _, v := range testSpeeds {
		d := tr*v + v*v/(2*a)
		t := tr + v/a + 0.05
		in.Speeds = append(in.Speeds, Speed{
			V:             v,
			Distances:     []float64{d - noise, d + noise, d},
			Times:         []float64{t - 0.01, t + 0.01, t},
			Responses:     []float64{tr * 0.9, tr, tr * 1.1},
			BoundDistance: d + boundExtra,
			BoundTime:     t + 0.02,
		})
	}
	return in
}

func model(tr, a, v float64) float64 { return tr*v + v*v/(2*a) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
