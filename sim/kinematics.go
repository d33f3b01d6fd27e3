package sim

import "math"

// Chassis geometry, chapter 11 (factory chassis code, docs/motion_safety.md).
const (
	WheelDiameter = 0.08    // m
	Wheelbase     = 0.17706 // m
	Track         = 0.17165 // m
	// K is the lever of a wheel for turning: (wheelbase + track) / 2.
	K = (Wheelbase + Track) / 2
)

// Floor losses measured by LiDAR scan matching (chapter 11, odom_scale_y comment; chapter 14 rotation test).
const (
	// FloorScaleX: forward ~1.02 in one run, not applied by the driver; the sim uses 1.0.
	FloorScaleX = 1.0
	// FloorScaleY: strafe 0.79/0.78 left, 0.73/0.76 right, mean 0.765.
	FloorScaleY = 0.765
	// FloorScaleW: +0.5 rad/s for 3.2 s read 88.9 deg from the wheels and 82.5 deg in the gyro-fused
	// EKF (chapter 14, 2026-09-28): 0.93 of the commanded rotation reaches the body.
	FloorScaleW = 0.93
)

// rimPerRev is the rim travel of one wheel revolution (m).
const rimPerRev = math.Pi * WheelDiameter

// WheelRPS is the factory inverse kinematics: body velocity (vx m/s, vy m/s, wz rad/s) to wire rps for
// ids 0..3 (motors 1..4). Motors 3 and 4 are mounted mirrored, so their sign is flipped on the wire.
// It is the sim's own implementation on purpose: a sign error in the driver shows up as a disagreement.
func WheelRPS(v [3]float64) [4]float64 {
	vx, vy, wz := v[0], v[1], v[2]
	m1 := vx - vy - wz*K
	m2 := vx + vy - wz*K
	m3 := -(vx + vy + wz*K)
	m4 := -(vx - vy + wz*K)
	return [4]float64{m1 / rimPerRev, m2 / rimPerRev, m3 / rimPerRev, m4 / rimPerRev}
}

// BodyVelocity is the forward kinematics: wire rps (ids 0..3) to the body velocity the wheels would
// produce without slip (least squares over the four wheels, exact when they agree).
func BodyVelocity(rps [4]float64) [3]float64 {
	u1 := rps[0] * rimPerRev
	u2 := rps[1] * rimPerRev
	u3 := -rps[2] * rimPerRev
	u4 := -rps[3] * rimPerRev
	vx := (u1 + u2 + u3 + u4) / 4
	vy := (-u1 + u2 + u3 - u4) / 4
	wz := (-u1 - u2 + u3 + u4) / (4 * K)
	return [3]float64{vx, vy, wz}
}

// FloorVelocity applies the measured floor losses to a no-slip body velocity.
func FloorVelocity(v [3]float64) [3]float64 {
	return [3]float64{v[0] * FloorScaleX, v[1] * FloorScaleY, v[2] * FloorScaleW}
}

// Integrate advances a world pose (x, y, yaw) by a body velocity over dt, using the heading halfway
// through the step (same scheme as the driver's odometry in chapter 11), yaw kept in (-pi, pi].
func Integrate(p [3]float64, v [3]float64, dt float64) [3]float64 {
	mid := p[2] + v[2]*dt/2
	c, s := math.Cos(mid), math.Sin(mid)
	p[0] += (v[0]*c - v[1]*s) * dt
	p[1] += (v[0]*s + v[1]*c) * dt
	p[2] = wrapAngle(p[2] + v[2]*dt)
	return p
}

func wrapAngle(a float64) float64 {
	a = math.Mod(a+math.Pi, 2*math.Pi)
	if a <= 0 {
		a += 2 * math.Pi
	}
	return a - math.Pi
}

// MeanAbsRPS is the average wheel speed magnitude, the quantity that drives the body vibration.
func MeanAbsRPS(rps [4]float64) float64 {
	return (math.Abs(rps[0]) + math.Abs(rps[1]) + math.Abs(rps[2]) + math.Abs(rps[3])) / 4
}
