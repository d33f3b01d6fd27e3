package sim

import "fmt"

// ExampleWearCrossing: brakes wearing 5 % a stop, driven at 0.35 m/s, against an 80 mm limit on the stop's
// travel: the sim's truth crosses it at the 12th stop, the one a monitor's flag is compared with.
func ExampleWearCrossing() {
	w, err := ParseWear("5%/stop")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := WearCrossing(w, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.080})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stop %d, factor %.3f, %.1f mm\n", c.Stop, c.Factor, c.Truth.Distance*1e3)
	// Output: stop 12, factor 0.557, 80.1 mm
}
