package lidar_test

import (
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// A revolution becomes the wire scan the driver's scan gate counts: 400 bins counter-clockwise from 0,
// stamped with the first ray.
func ExampleToAPI() {
	r := make([]float32, 400)
	for i := range r {
		r[i] = float32(math.Inf(1))
	}
	r[100] = 1.25 // 90 degrees: to the sensor's left
	s := lidar.ToAPI(coind6.Scan{Stamp: time.Unix(0, 0).UTC(), ScanTime: 100 * time.Millisecond, Ranges: r,
		RangeMin: 0.12, RangeMax: 8}, "laser")
	fmt.Printf("%s %d bins, %.4f rad apart, bin 100 at %.1f deg: %.2f m, scan time %.1f s\n",
		s.FrameID, len(s.Ranges), s.AngleIncrement, 100*s.AngleIncrement*180/math.Pi, s.Ranges[100], s.ScanTime)
	// Output:
	// laser 400 bins, 0.0157 rad apart, bin 100 at 90.0 deg: 1.25 m, scan time 0.1 s
}
