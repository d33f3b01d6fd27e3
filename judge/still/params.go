package still

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/vibration"
)

// Speed is one measured speed sample: the LiDAR odometry's speed (m/s) or |gyro z| (rad/s) on the floor. Its
// magnitude is judged, so a signed reading works too.
type Speed struct {
	T float64 // seconds on the shared timeline
	V float64 // in Params.SpeedUnit
}

// Input is the evidence of one hold. Frames are required; Gyro (stand) and Speed (floor) are optional
// measurements, judged when given.
type Input struct {
	Frames []Frame            // what the board was told; sample-and-hold (see the package doc)
	Gyro   []vibration.Sample // rad/s, scored on judge/vibration's windows
	Speed  []Speed            // measured speed, judged sample by sample
}

// Params are the judge's limits. The zero value is invalid; start from DefaultParams.
type Params struct {
	// Epsilon: a frame component above this (m/s or rad/s) commands motion. 1e-3: the board's frames carry
	// wheel speeds whose rounding back to a body velocity is far below it, and the ramp's first step is
	// 0.01 m/s (0.5 m/s² x 20 ms), far above it.
	Epsilon float64
	// Vibration scores the gyro (stand): threshold 0.0035 rad/s, 0.2 s windows every 0.05 s, 10 samples a
	// window (vibration.DefaultParams; only Threshold, Window, Step and MinSamples matter here).
	Vibration vibration.Params
	// SpeedThreshold: a Speed sample at or above it is motion. 0.04, judge/odometry's "moving" (m/s); use
	// 0.08 for |gyro z| in rad/s (its "turning").
	SpeedThreshold float64
	// SpeedUnit names the speed's unit in the result line: "m/s" or "rad/s".
	SpeedUnit string
	// SpeedMaxGap (s): a longer stretch of the hold without a Speed sample is a hole. 0.5 s: five LiDAR
	// revolutions.
	SpeedMaxGap float64
	// StartWindow (s): a Speed sample this close after the start at or above the threshold means the robot was
	// moving when the hold began (NOT RUN). 0.2 s, one vibration window, the gyro's equivalent.
	StartWindow float64
	// MaxFrameGap (s): 0 when the frames are a complete record of what the board received (a silence holds the
	// last frame, which is what the board does). When they are a sampled report (the driver refreshes its frame
	// every 0.2 s), set it (0.5 s, say) and a longer silence is a hole.
	MaxFrameGap float64
}

// DefaultParams returns the limits above.
func DefaultParams() Params {
	return Params{Epsilon: 1e-3, Vibration: vibration.DefaultParams(), SpeedThreshold: 0.04, SpeedUnit: "m/s",
		SpeedMaxGap: 0.5, StartWindow: 0.2}
}

// Validate says what is wrong with p, or nil.
func (p Params) Validate() error {
	if err := p.Vibration.Validate(); err != nil {
		return fmt.Errorf("still: Vibration: %w", err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Epsilon", p.Epsilon}, {"SpeedThreshold", p.SpeedThreshold}, {"SpeedMaxGap", p.SpeedMaxGap}} {
		if !finite(f.v) || f.v <= 0 {
			return fmt.Errorf("still: %s %v must be a positive number (start from DefaultParams)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"StartWindow", p.StartWindow}, {"MaxFrameGap", p.MaxFrameGap}} {
		if !finite(f.v) || f.v < 0 {
			return fmt.Errorf("still: %s %v must be a finite number >= 0 (start from DefaultParams)", f.name, f.v)
		}
	}
	return nil
}
