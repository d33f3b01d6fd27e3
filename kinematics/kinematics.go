package kinematics

import (
	"fmt"
	"math"
)

// Twist is a body velocity in base_link: VX forward (m/s), VY to the left (m/s), WZ counter-clockwise seen
// from above (rad/s). It is what ROS carries in geometry_msgs/Twist on cmd_vel (linear.x, linear.y, angular.z).
type Twist struct {
	VX, VY, WZ float64
}

// IsZero reports whether all three components are exactly zero. The runtime uses it for "commanded still"
// (the gyro bias tracker) exactly as the seed did (vx == 0 and vy == 0 and wz == 0).
func (t Twist) IsZero() bool { return t.VX == 0 && t.VY == 0 && t.WZ == 0 }

// IsFinite reports whether no component is NaN or ±Inf.
func (t Twist) IsFinite() bool { return isFinite(t.VX) && isFinite(t.VY) && isFinite(t.WZ) }

// String formats the twist for logs and errors: "(vx 0.2, vy 0, wz 0)".
func (t Twist) String() string { return fmt.Sprintf("(vx %.4g, vy %.4g, wz %.4g)", t.VX, t.VY, t.WZ) }

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

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

// BodyTwist is the inverse of WheelRPS: the body velocity (least squares over the four wheels) that the
// commanded wheel speeds give. With k = (wheelbase + track) / 2, c the wheel circumference and
// a = [m1 c, m2 c, -m3 c, -m4 c]: vx = (a1+a2+a3+a4)/4, vy = (-a1+a2+a3-a4)/4, wz = (-a1-a2+a3+a4)/(4k).
func BodyTwist(rps [4]float64, g Geometry) Twist {
	k := (g.Wheelbase + g.Track) / 2
	c := math.Pi * g.WheelDiameter
	a1, a2, a3, a4 := rps[0]*c, rps[1]*c, -rps[2]*c, -rps[3]*c
	return Twist{VX: (a1 + a2 + a3 + a4) / 4, VY: (-a1 + a2 + a3 - a4) / 4, WZ: (-a1 - a2 + a3 + a4) / (4 * k)}
}
