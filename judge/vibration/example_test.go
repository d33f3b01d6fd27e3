package vibration_test

import (
	"fmt"
	"math"

	"github.com/rosorin/rosorin/judge/vibration"
)

// shaken builds a deterministic recording at 110 Hz: gyro x and y shaken by two sines whose hypot of
// standard deviations is the level (0.0060 while the wheels turn, 0.0015 once still).
func shaken(until, stop float64) []vibration.Sample {
	var s []vibration.Sample
	for k := 0; float64(k)/110 <= until; k++ {
		t := float64(k) / 110
		a := 0.0060
		if t > stop {
			a = 0.0015
		}
		s = append(s, vibration.Sample{T: t, GyroX: 0.01 + a*math.Sin(2*math.Pi*17*t), GyroY: -0.02 + a*math.Sin(2*math.Pi*23*t+1)})
	}
	return s
}

// A stop triggered 3 s into the recording; the wheels are still 0.40 s later and the recording runs 5 s on.
// "Still from" reads 0.55 s: the end of the first window after the last loud one, one window late at most.
func ExampleJudge() {
	samples := shaken(8, 3.40)
	v := vibration.Judge(samples, 3.0, 8.0, vibration.DefaultParams())
	fmt.Println(v.Line("estop topic, fwd 0.2"))
	fmt.Println(v.Outcome, v.Reason == "")

	// The negative control: the stop never takes.
	v = vibration.Judge(shaken(8, 99), 3.0, 8.0, vibration.DefaultParams())
	fmt.Println(v.Line("estop topic, fwd 0.2"))
	// Output:
	// estop topic, fwd 0.2               spinning 0.0060 -> still from 0.55 s on; worst after 0.0035 over 4.5 s  PASS
	// PASS true
	// estop topic, fwd 0.2               spinning 0.0060 -> NEVER settled in 5.0 s  FAIL
}

// The scan-loss path's second line: the wheels turn again by themselves once the scans are back.
func ExampleReleaseCheck() {
	samples := shaken(8, 99)
	v := vibration.ReleaseCheck(samples, 5.0, 8.0, vibration.DefaultParams())
	fmt.Println(v.Line("LiDAR back: wheels released by themselves"))
	// Output:
	// LiDAR back: wheels released by themselves vibration 0.0060 (spinning > 0.0035)  PASS
}

// `stopproof characterize`: one line per phase, then a threshold with its reason.
func ExampleSuggestThreshold() {
	samples := shaken(8, 4.0) // spinning until 4 s, still after
	levels := vibration.PhaseLevels(samples, []vibration.Phase{
		{Name: "forward 0.2", From: 1, To: 4, Spinning: true},
		{Name: "enabled still", From: 5, To: 8},
	})
	for _, l := range levels {
		fmt.Println(l.Line())
	}
	thr, why := vibration.SuggestThreshold(levels)
	fmt.Printf("threshold %.4f: %s\n", thr, why)
	// Output:
	// forward 0.2                        spinning median 0.0060  p05 0.0059  p95 0.0060  max 0.0060  (57 windows, 0 without data)
	// enabled still                      still    median 0.0015  p05 0.0015  p95 0.0015  max 0.0015  (57 windows, 0 without data)
	// threshold 0.0030: 0.0030 = geometric mean of the loudest still phase "enabled still" (p95 0.0015) and the quietest spinning phase "forward 0.2" (median 0.0060): x1.99 margin on each side
}
