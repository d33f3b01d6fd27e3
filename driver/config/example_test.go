package config_test

import (
	"fmt"

	"github.com/rosorin/rosorin/driver/config"
)

// The robot's two parameter files, as the launch file passed them: calibration first, then the limits.
func ExampleLoad() {
	c, notes, err := config.Load("testdata/imu_calibration.yaml", "testdata/arm_limits.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	l := c.Limits()
	fmt.Println(l.MaxLinear, l.MaxAngular, l.CmdTimeout, l.ScanTimeout)
	fmt.Println(c.AccelOffsetG, c.AccelScale)
	fmt.Println(len(notes.Ignored()), "arm keys ignored,", len(notes.Warnings()), "warnings")
	fmt.Println(notes[0])

	_, _, err = config.Load("testdata/imu_calibration.yaml", "testdata/bad_type.yaml")
	fmt.Println(err)
	// Output:
	// 0.35 1 300ms 500ms
	// [0.046 -0.0635 -0.0501] [1.0058 0.9964 1.0076]
	// 11 arm keys ignored, 0 warnings
	// testdata/arm_limits.yaml:6: drive_pan: arm key ignored
	// config: testdata/bad_type.yaml:3: max_linear: wrong type: want a number, got !!str "fast"; fix the value in testdata/bad_type.yaml
}
