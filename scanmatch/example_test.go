package scanmatch_test

import (
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
	"github.com/rosorin/rosorin/sim"
)

// strafeScan makes revolution k of a robot strafing left at 0.1 m/s in the sim's room, as the driver
// would deliver it (coind6.DefaultScanConfig: flipped angles, 0.12-8 m).
func strafeScan(lid *sim.LidarModel, k int) coind6.Scan {
	s := coind6.Scan{Stamp: time.Unix(0, 0).Add(time.Duration(k) * 100 * time.Millisecond), ScanTime: 100 * time.Millisecond,
		Ranges: make([]float32, 400), RangeMin: 0.12, RangeMax: 8}
	for n := 0; n < 400; n++ {
		t := float64(k)*0.1 + float64(n)/4000
		smp := lid.Measure([3]float64{0, 0.1 * t, 0}, float64(n)*0.9)
		s.Ranges[(400-n)%400] = float32(math.Inf(1))
		if smp.DistMM > 0 {
			s.Ranges[(400-n)%400] = float32(smp.DistMM) / 1000
		}
	}
	return s
}

func ExampleOdometry() {
	odo, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		panic(err)
	}
	lid := sim.NewLidarModel(1, sim.DefaultRoom())
	var e scanmatch.Estimate
	for k := 0; k <= 10; k++ {
		if e, err = odo.Add(strafeScan(lid, k), scanmatch.Aux{}); err != nil {
			panic(err)
		}
	}
	fmt.Printf("after 1 s: x %.0f cm, y %.0f cm, yaw %.1f deg, degenerate %v, sideways observable %v\n",
		100*e.Pose.X, 100*e.Pose.Y, e.Pose.Yaw*180/math.Pi, e.Degenerate, e.Observable(0, 1))
	// Output:
	// after 1 s: x 0 cm, y 10 cm, yaw 0.0 deg, degenerate false, sideways observable true
}
