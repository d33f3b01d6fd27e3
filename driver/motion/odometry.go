package motion

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// OdomConfig sets the wheel odometry (chapter 11 publish_wheel_odom).
type OdomConfig struct {
	// ScaleX, ScaleY turn commanded into actual body velocity, for the odometry only (the motors get the
	// command). Measured on the floor against the LiDAR on 2026-09-28: a commanded slide moved 73-79 % as far
	// (mean 0.765); forward about 1.02 in one run, not applied (1.0).
	ScaleX, ScaleY float64
	// LinearStd (m/s) and AngularStd (rad/s) are the twist standard deviations (odom_linear_std 0.05,
	// odom_angular_std 0.2).
	LinearStd, AngularStd float64
	// MaxDT caps the integration step: after a stalled loop the pose does not leap (seed: 0.1 s).
	MaxDT time.Duration
}

// DefaultOdomConfig returns the chapter 11 defaults.
func DefaultOdomConfig() OdomConfig {
	return OdomConfig{ScaleX: 1.0, ScaleY: 0.765, LinearStd: 0.05, AngularStd: 0.2, MaxDT: 100 * time.Millisecond}
}

// Covariance values of the odometry message (row-major 6x6 over x, y, z, roll, pitch, yaw).
const (
	// OdomPoseDeadReckoningVar on x, y and yaw says "do not trust the summed-up pose": there are no wheel
	// encoders, the pose adds up what the wheels were told. An EKF then uses only the twist.
	OdomPoseDeadReckoningVar = 1e3
	// OdomUnusedVar is put on z, roll and pitch (planar robot, known to be zero).
	OdomUnusedVar = 1e-6
)

// OdomSample is one wheel odometry output (nav_msgs/Odometry in the odom frame, child base_link).
type OdomSample struct {
	Stamp time.Time
	Pose  Pose
	// QZ, QW are the orientation quaternion's z and w (x = y = 0): sin(theta/2), cos(theta/2).
	QZ, QW float64
	// Twist is the scaled body velocity (VY x ScaleY), in base_link.
	Twist kinematics.Twist
	// PoseCov and TwistCov are row-major 6x6 covariances, exactly the seed's indices 0, 7, 14, 21, 28, 35.
	PoseCov, TwistCov [36]float64
}

// Odometry adds up the gated commanded velocity into a pose. This board has no wheel encoders: it is dead
// reckoning, wrong whenever a wheel slips or stalls and on the stand, and its covariance says so.
type Odometry struct {
	cfg      OdomConfig
	pose     Pose
	last     time.Time
	has      bool
	skipped  uint64
	poseCov  [36]float64
	twistCov [36]float64
}

// NewOdometry returns odometry at the origin.
func NewOdometry(cfg OdomConfig) *Odometry {
	o := &Odometry{cfg: cfg}
	lin, ang := cfg.LinearStd*cfg.LinearStd, cfg.AngularStd*cfg.AngularStd
	for _, i := range []int{0, 7, 14, 21, 28, 35} {
		o.poseCov[i] = OdomUnusedVar
		o.twistCov[i] = OdomUnusedVar
	}
	o.twistCov[0], o.twistCov[7], o.twistCov[35] = lin, lin, ang
	o.poseCov[0], o.poseCov[7], o.poseCov[35] = OdomPoseDeadReckoningVar, OdomPoseDeadReckoningVar, OdomPoseDeadReckoningVar
	return o
}

// Update integrates the velocity the gate gave at now (the output of Gate.Step) since the previous Update and
// returns the new sample. The first call integrates nothing (dt = 0); a step longer than MaxDT counts as MaxDT
// and a negative one as zero. A non-finite twist is counted (Skipped) and treated as zero.
func (o *Odometry) Update(now time.Time, t kinematics.Twist) OdomSample {
	if !t.IsFinite() {
		o.skipped++
		t = kinematics.Twist{}
	}
	var dt time.Duration
	if o.has {
		dt = now.Sub(o.last)
	}
	o.last, o.has = now, true
	if dt < 0 {
		dt = 0
	}
	if dt > o.cfg.MaxDT {
		dt = o.cfg.MaxDT
	}
	t.VX *= o.cfg.ScaleX
	t.VY *= o.cfg.ScaleY
	o.pose = IntegratePose(o.pose, t, dt.Seconds())
	s, c := math.Sincos(o.pose.Theta / 2)
	return OdomSample{Stamp: now, Pose: o.pose, QZ: s, QW: c, Twist: t, PoseCov: o.poseCov, TwistCov: o.twistCov}
}

// Pose returns the current pose.
func (o *Odometry) Pose() Pose { return o.pose }

// SetPose moves the pose (e.g. to the origin); the next Update integrates from there.
func (o *Odometry) SetPose(p Pose) { o.pose = p }

// Skipped counts non-finite inputs treated as zero.
func (o *Odometry) Skipped() uint64 { return o.skipped }
