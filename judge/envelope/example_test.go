package envelope_test

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/envelope"
)

// The e-stop forward at three speeds, its bounds from the campaign (R = C = 0.8): the fit, the distance
// inside the tested speeds, the refusal outside, and the speed limit for a 0.10 m clearance.
func Example() {
	speed := func(v, bound, boundT float64) envelope.Speed {
		return envelope.Speed{V: v, Distances: []float64{bound - 0.004, bound - 0.002}, Times: []float64{boundT - 0.05, boundT},
			BoundDistance: bound, BoundTime: boundT}
	}
	e, err := envelope.New(envelope.Input{Path: "estop", Direction: "forward", Speeds: []envelope.Speed{
		speed(0.10, 0.020, 0.30), speed(0.20, 0.050, 0.40), speed(0.35, 0.11375, 0.55),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("t_r %.3f s, a %.2f m/s², RMS %.4f m\n", e.Bound.ResponseTime, e.Bound.Decel, e.Bound.RMS)
	d, _ := e.Distance(0.30)
	fmt.Printf("at 0.30 m/s: %.3f m\n", d)
	_, err = e.Distance(0.40)
	fmt.Println(err)
	v, _ := e.SpeedLimitFor(0.10)
	fmt.Printf("clearance 0.10 m: %.2f m/s\n", v)
	// The body: a 0.25 x 0.20 m rectangle, an assumption (the toolkit does not know it).
	z, _ := envelope.Config{Footprint: envelope.Rectangle(0.25, 0.20), Envelopes: []*envelope.Envelope{e}}.StopZone()
	fmt.Printf("stop zone front %.5f m\n", z.Front)
	// Output:
	// t_r 0.150 s, a 1.00 m/s², RMS 0.0000 m
	// at 0.30 m/s: 0.092 m
	// 0.40 m/s is above the fastest tested speed 0.35 m/s: the envelope is never extrapolated
	// clearance 0.10 m: 0.20 m/s
	// stop zone front 0.23875 m
}
