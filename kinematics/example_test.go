package kinematics_test

import (
	"fmt"

	"github.com/rosorin/rosorin/kinematics"
)

// The seed's worked values for the mecanum kinematics, and back.
func ExampleWheelRPS() {
	g := kinematics.DefaultGeometry()
	for _, t := range []kinematics.Twist{{VX: 0.2}, {WZ: 1.0}, {VY: 0.2}} {
		r := kinematics.WheelRPS(t, g)
		fmt.Printf("%.3f %.3f %.3f %.3f -> %v\n", r[0], r[1], r[2], r[3], kinematics.BodyTwist(r, g))
	}
	// Output:
	// 0.796 0.796 -0.796 -0.796 -> (vx 0.2, vy 0, wz 0)
	// -0.694 -0.694 -0.694 -0.694 -> (vx 0, vy 0, wz 1)
	// -0.796 0.796 -0.796 0.796 -> (vx 0, vy 0.2, wz 0)
}
