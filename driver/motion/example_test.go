package motion_test

import (
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/kinematics"
)

// A control loop's view of the gate: nothing moves until enabled, speed grows 0.01 m/s per 50 Hz tick, and
// silence longer than the deadman stops the wheels at once.
func ExampleGate() {
	g := motion.NewGate(motion.DefaultLimits())
	t0 := time.Unix(0, 0)
	tick := 20 * time.Millisecond

	g.Sensed(t0)
	_ = g.SetCmd(motion.InputCmdVel, kinematics.Twist{VX: 0.2}, t0, motion.SourceSoftware)
	fmt.Println(g.Step(t0, tick), g.BlockReason(t0))

	// Enabling drops the command that came while disabled: only a fresh one moves the wheels.
	_ = g.Enable(true)
	_ = g.SetCmd(motion.InputCmdVel, kinematics.Twist{VX: 0.2}, t0, motion.SourceSoftware)
	for i := 1; i <= 3; i++ {
		fmt.Println(g.Step(t0.Add(time.Duration(i)*tick), tick))
	}
	late := t0.Add(301 * time.Millisecond)
	g.Sensed(late)
	fmt.Println(g.Step(late, tick), g.BlockReason(late))

	g.Trip("estop topic")
	fmt.Println(g.Enable(true))
	fmt.Println(g.Reset(), g.BlockReason(late))
	// Output:
	// (vx 0, vy 0, wz 0) disabled
	// (vx 0.01, vy 0, wz 0)
	// (vx 0.02, vy 0, wz 0)
	// (vx 0.03, vy 0, wz 0)
	// (vx 0, vy 0, wz 0) cmd timeout
	// motion: e-stop latched (estop topic): refused; reset the e-stop first, then enable
	// estop topic disabled
}
