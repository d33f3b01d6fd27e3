package vibration

import (
	"fmt"
	"math"
)

// Sample is one IMU reading on the run's timeline. Its JSON form is plain (encoding/json refuses NaN: the
// judges skip non-finite samples, an evidence log should too).
type Sample struct {
	T     float64 `json:"t"`      // seconds on any monotonic timeline shared with the trigger and the end
	GyroX float64 `json:"gyro_x"` // rad/s
	GyroY float64 `json:"gyro_y"` // rad/s
	// GyroZ is not used by the score (the seed scored x and y only: a turn on the stand moves nothing, and z
	// carries the yaw bias); it is kept so an evidence log holds the full gyro.
	GyroZ float64 `json:"gyro_z"` // rad/s
}

// SampleFromBoard converts a board IMU reading (gyro in deg/s, as the board's IMU frame reports it) into a
// Sample in rad/s. The threshold is in rad/s because the seed judged ROS's /imu/data_raw; feeding deg/s would
// make every still wheel look 57 times louder.
func SampleFromBoard(t float64, gyroDegPerSec [3]float32) Sample {
	const r = math.Pi / 180
	return Sample{T: t, GyroX: float64(gyroDegPerSec[0]) * r, GyroY: float64(gyroDegPerSec[1]) * r,
		GyroZ: float64(gyroDegPerSec[2]) * r}
}

// valid reports whether the sample can be used: time and the scored axes finite. GyroZ is not scored, so a
// bad z does not cost the sample.
func (s Sample) valid() bool {
	return isFinite(s.T) && isFinite(s.GyroX) && isFinite(s.GyroY)
}

// Params are the judge's limits. The zero value is invalid; start from DefaultParams. In JSON the fields are
// snake_case with units (threshold, window_s, step_s, ...), see MarshalJSON.
type Params struct {
	// Threshold (rad/s): a window whose score is >= Threshold is loud. 0.0035 from the seed's characterize:
	// still ~0.0016-0.0025, 0.2 m/s ~0.005-0.006, 0.35 m/s ~0.006-0.010.
	Threshold float64
	// Window (s) is the length of one scoring window: 0.2 s, 22 samples at the IMU's 110 Hz.
	Window float64
	// Step (s) between window ends: 0.05 s, the resolution of every reported time. Must not exceed Window,
	// or samples between windows would never be looked at.
	Step float64
	// MaxStop (s): "still from" must be at most this long after the trigger. 2.0 s.
	MaxStop float64
	// NeedQuiet (s): the quiet run from "still from" on must last at least this long: commands keep coming
	// after the trigger, and a stop that lets the wheels turn again is no stop. 2.0 s; the scan-loss path
	// uses less because its wheels are meant to turn again once the scans return.
	NeedQuiet float64
	// SpinWindow (s): the spinning level is measured over this long before the trigger. 1.0 s. At least one
	// Window.
	SpinWindow float64
	// MinSamples: a window holding fewer samples is "no data" (never quiet, never loud). 10, under half of the
	// 22 a 0.2 s window holds at 110 Hz: a short USB hiccup does not cost a window, a real hole does.
	MinSamples int
	// MaxGap (s): a hole in the samples after the trigger longer than this is named in a failing verdict's
	// reason. 0.5 s. The hole costs evidence whatever its length (see MinSamples); this only decides when it
	// is worth telling a person.
	MaxGap float64
}

// DefaultParams returns the seed's limits (chapter 19).
func DefaultParams() Params {
	return Params{Threshold: 0.0035, Window: 0.2, Step: 0.05, MaxStop: 2.0, NeedQuiet: 2.0, SpinWindow: 1.0,
		MinSamples: 10, MaxGap: 0.5}
}

// maxWindows bounds the work and memory one call may take: 2^20 windows of 0.05 s are 14.5 hours. A longer
// range is a caller's mistake (Unix seconds mixed with run seconds, say), reported instead of allocated.
const maxWindows = 1 << 20

// Validate says what is wrong with p, or nil.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"Threshold", p.Threshold}, {"Window", p.Window}, {"Step", p.Step}} {
		if !isFinite(f.v) || f.v <= 0 {
			return fmt.Errorf("stand: %s %v must be a positive number (start from DefaultParams)", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"MaxStop", p.MaxStop}, {"NeedQuiet", p.NeedQuiet}, {"MaxGap", p.MaxGap}} {
		if !isFinite(f.v) || f.v < 0 {
			return fmt.Errorf("stand: %s %v must be a finite number >= 0 (start from DefaultParams)", f.name, f.v)
		}
	}
	if p.Step > p.Window {
		return fmt.Errorf("stand: Step %v is longer than Window %v: samples between windows would never be judged", p.Step, p.Window)
	}
	if !isFinite(p.SpinWindow) || p.SpinWindow < p.Window {
		return fmt.Errorf("stand: SpinWindow %v must be at least one Window (%v)", p.SpinWindow, p.Window)
	}
	if p.MinSamples < 2 {
		return fmt.Errorf("stand: MinSamples %d must be at least 2 (a standard deviation needs two samples)", p.MinSamples)
	}
	return nil
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
