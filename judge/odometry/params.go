package odometry

import (
	"errors"
	"fmt"
)

// Params are the floor proof's rules, chapter 19's numbers (stop_proof_floor.py's constants).
type Params struct {
	// HalfWidth is the corridor's half width (m): robot half width ~0.15 + margin (HALF_W).
	HalfWidth float64 `json:"half_width_m"`
	// Clear is how far the corridor must be free ahead of a forward leg (m, CLEAR).
	Clear float64 `json:"clear_m"`
	// MinValid is the share of valid beams the corridor's view needs (0.6).
	MinValid float64 `json:"min_valid"`
	// ViewDeg is the half angle (degrees) of the beams whose validity is counted: the LiDAR's view down the
	// corridor, one bearing bucket of `floor look` either side.
	ViewDeg float64 `json:"view_deg"`
	// Guard: anything this close (m) in the direction of travel while moving stops everything (GUARD).
	Guard float64 `json:"guard_m"`
	// FailAfter: still moving this long (s) after a trigger means the stop failed (FAIL_S).
	FailAfter float64 `json:"fail_after_s"`
	// Window (s) is the span over which motion is measured (WIN); Moving the speed (m/s) that counts as
	// moving over it (MOVING).
	Window float64 `json:"window_s"`
	Moving float64 `json:"moving_mps"`
	// Turning is the gyro z rate (rad/s) that counts as turning (STILL_GZ); GyroWindow (s) the span its
	// mean is taken over (the IMU's noise, ~110 Hz).
	Turning    float64 `json:"turning_radps"`
	GyroWindow float64 `json:"gyro_window_s"`
	// MaxGap (s): odometry samples farther apart than this leave the window unmeasured.
	MaxGap float64 `json:"max_gap_s"`
}

// DefaultParams are chapter 19's.
func DefaultParams() Params {
	return Params{HalfWidth: 0.30, Clear: 1.2, MinValid: 0.6, ViewDeg: 30, Guard: 0.45, FailAfter: 0.8,
		Window: 0.3, Moving: 0.04, Turning: 0.08, GyroWindow: 0.1, MaxGap: 0.25}
}

// Validate says which parameter is unusable.
func (p Params) Validate() error {
	for _, f := range []struct {
		n string
		v float64
	}{{"HalfWidth", p.HalfWidth}, {"Clear", p.Clear}, {"ViewDeg", p.ViewDeg}, {"Guard", p.Guard},
		{"FailAfter", p.FailAfter}, {"Window", p.Window}, {"Moving", p.Moving}, {"Turning", p.Turning},
		{"GyroWindow", p.GyroWindow}, {"MaxGap", p.MaxGap}} {
		if !(f.v > 0) {
			return fmt.Errorf("floor: %s must be positive, got %v", f.n, f.v)
		}
	}
	if !(p.MinValid > 0 && p.MinValid <= 1) {
		return errors.New("floor: MinValid must be in (0, 1]")
	}
	return nil
}
