package motion

import (
	"math"

	"github.com/rosorin/rosorin/kinematics"
)

// Pose is a planar pose in the odom frame: metres and radians, Theta in (-pi, pi].
type Pose struct {
	X, Y, Theta float64
}

// IntegratePose advances p by body velocity t over dt seconds, rotating the body step into the world with the
// heading halfway through the step (seed integrate_pose), and wraps the heading to (-pi, pi].
func IntegratePose(p Pose, t kinematics.Twist, dt float64) Pose {
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
