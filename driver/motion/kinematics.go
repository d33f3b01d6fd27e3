package motion

import "math"

// Geometry is the mecanum chassis: wheel diameter, wheelbase (front-rear axle distance) and track (left-right
// wheel distance), all in metres.
type Geometry struct {
	WheelDiameter, Wheelbase, Track float64
}

// DefaultGeometry is the ROSOrin chassis from the factory chassis code (chapter 11, docs/motion_safety.md):
// 0.08 m wheels, wheelbase 0.17706 m, track 0.17165 m.
func DefaultGeometry() Geometry {
	return Geometry{WheelDiameter: 0.08, Wheelbase: 0.17706, Track: 0.17165}
}

// WheelRPS turns a body velocity into wheel speeds in revolutions per second for motors 1..4 (wire ids 0..3),
// with the factory layout and signs, exactly the seed's mecanum_rps. With k = (wheelbase + track) / 2:
//
//	m1 = vx - vy - wz k,  m2 = vx + vy - wz k,  m3 = -(vx + vy + wz k),  m4 = -(vx - vy + wz k)
//
// each divided by the wheel circumference. Motors 3 and 4 are mounted mirrored, so the same sign on the wire
// turns the two sides opposite ways. Worked values: forward 0.2 m/s gives [0.796 0.796 -0.796 -0.796];
// turning 1.0 rad/s gives -0.694 on all four; sliding left 0.2 m/s gives [-0.796 0.796 -0.796 0.796].
func WheelRPS(t Twist, g Geometry) [4]float64 {
	k := (g.Wheelbase + g.Track) / 2
	c := math.Pi * g.WheelDiameter
	m1 := t.VX - t.VY - t.WZ*k
	m2 := t.VX + t.VY - t.WZ*k
	m3 := t.VX + t.VY + t.WZ*k
	m4 := t.VX - t.VY + t.WZ*k
	// +0 normalises -0 (from -(0)/c) so that a stopped robot's frame is byte-identical to the stop frame.
	return [4]float64{m1/c + 0, m2/c + 0, -m3/c + 0, -m4/c + 0}
}

// Pose is a planar pose in the odom frame: metres and radians, Theta in (-pi, pi].
type Pose struct {
	X, Y, Theta float64
}

// IntegratePose advances p by body velocity t over dt seconds, rotating the body step into the world with the
// heading halfway through the step (seed integrate_pose), and wraps the heading to (-pi, pi].
func IntegratePose(p Pose, t Twist, dt float64) Pose {
	h := p.Theta + t.WZ*dt/2
	s, c := math.Sincos(h)
	return Pose{
		X:     p.X + (t.VX*c-t.VY*s)*dt,
		Y:     p.Y + (t.VX*s+t.VY*c)*dt,
		Theta: WrapAngle(p.Theta + t.WZ*dt),
	}
}

// WrapAngle maps a to (-pi, pi]. The seed used atan2(sin, cos), which can return -pi; -pi and pi are the same
// heading, and one representation keeps comparisons and the odometry quaternion's sign stable.
func WrapAngle(a float64) float64 {
	w := math.Atan2(math.Sin(a), math.Cos(a))
	if w <= -math.Pi {
		w = math.Pi
	}
	return w
}
