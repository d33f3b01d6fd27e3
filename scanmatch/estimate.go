package scanmatch

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Aux carries what the caller knows besides the scan. It only seeds the first Gauss-Newton step: the cost
// has no prior term, so a well observed direction is decided by the scan alone.
type Aux struct {
	YawRate    float64 // rad/s, counter-clockwise (the gyro's z), used when HasYawRate
	HasYawRate bool
}

// Estimate is the odometry's answer for one scan.
type Estimate struct {
	Stamp time.Time // the scan's stamp (its first ray)
	// Time is the instant Pose refers to: Stamp + ScanTime/2, when the LiDAR looks forward (mid-sweep).
	// Referring the pose to mid-sweep makes an error in the de-skew velocity (a robot accelerating during
	// the sweep) shift points both ways instead of one way, so it hardly moves the pose; referred to the
	// first ray the same error moved it by the error x half the sweep (1.5 mm per pair at 1 m/s^2).
	Time     time.Time
	Pose     Pose2 // the base at Time relative to the base at the first scan's Time
	Delta    Pose2 // motion since the previous accepted scan's Time, in that scan's base frame
	Velocity Twist // Delta over the time between the two scans
	// Cov is the covariance of this scan's match against its keyframe, in this scan's base frame (x
	// forward, y left in m, yaw in rad), from the residuals' spread and the Hessian: sigma^2 H^-1, with
	// DegenerateVariance along a degenerate direction. Zero for the first scan (the origin, by definition).
	// TestCovarianceHonest checks it against the truth.
	Cov [3][3]float64
	// Degenerate: the scan does not constrain some direction (a corridor: the motion along it). Pose is then
	// the constant-velocity prediction along Weak, and a zero motion along it is no evidence of stillness;
	// ask Observable before judging a direction.
	Degenerate bool
	Weak       [3]float64 // unit eigenvector of least information (x m, y m, yaw x Lever m), current base frame
	Info       [3]float64 // information per correspondence along the Hessian's eigenvectors, ascending
	Lever      float64    // m: the RMS range that scales yaw into metres for Weak and Info
	weak2      [3]float64 // the second eigenvector, for Observable when two directions are degenerate
	weakDims   int
	Valid      int     // bins with a return inside the limits and outside the mask
	Used       int     // correspondences in the final step
	RMS        float64 // m: RMS point-to-line residual of the used correspondences
	Iterations int
	Keyframe   bool // this scan became the new keyframe (the first scan always does)
	Gyro       bool // the gyro (AddGyro) covered this sweep: its rays' yaw was de-skewed from it
}

// Observable reports whether a motion along the base-frame direction (dx, dy) is measured by this estimate:
// false when the match is degenerate along (or close to) that direction.
func (e Estimate) Observable(dx, dy float64) bool {
	if !e.Degenerate {
		return true
	}
	n := math.Hypot(dx, dy)
	if !(n > 0) {
		return false
	}
	dx, dy = dx/n, dy/n
	thr := 0.3 // cos 72 degrees: a weak direction within ~70 degrees of the asked one spoils it
	if e.weakDims > 2 || math.Abs(dx*e.Weak[0]+dy*e.Weak[1]) > thr {
		return false
	}
	return e.weakDims < 2 || math.Abs(dx*e.weak2[0]+dy*e.weak2[1]) <= thr
}

// ObservableYaw reports whether the rotation is measured (false in a round room, or with garbage).
func (e Estimate) ObservableYaw() bool {
	if !e.Degenerate {
		return true
	}
	const thr = 0.3
	return e.weakDims <= 2 && math.Abs(e.Weak[2]) <= thr && (e.weakDims < 2 || math.Abs(e.weak2[2]) <= thr)
}

// WeakBearingDeg returns the base-frame bearing (degrees, 0 = forward, CCW) of the translational part of the
// weakest direction, in [-90, 90) (a direction, not a sense).
func (e Estimate) WeakBearingDeg() float64 {
	a := math.Atan2(e.Weak[1], e.Weak[0]) * 180 / math.Pi
	for a >= 90 {
		a -= 180
	}
	for a < -90 {
		a += 180
	}
	return a
}

// DegenerateVariance is the variance (m^2, or (m of yaw x Lever)^2) Cov gives a degenerate direction:
// unknown, yet finite so that a filter downstream stays numerically sane. The Hessian's own small
// eigenvalue would claim centimetres where nothing is measured (the corridor: 8 mm).
const DegenerateVariance = 1e4

// ErrBins: the scan does not have Config.Bins bins. ErrStamp: a scan's stamp is not after the previous one's.
var (
	ErrBins  = errors.New("scanmatch: scan has the wrong number of bins")
	ErrStamp = errors.New("scanmatch: scan stamp not after the previous scan's")
)

// ScanError says a scan was not usable (too few valid bins or lines, or too few correspondences with the
// keyframe). The caller skips the scan; the odometry keeps its state, and after a failed match it starts a
// new keyframe from this scan at the predicted pose.
type ScanError struct {
	Reason string
	Have   int
	Need   int
}

func (e *ScanError) Error() string {
	return fmt.Sprintf("scanmatch: %s: %d, need %d", e.Reason, e.Have, e.Need)
}
