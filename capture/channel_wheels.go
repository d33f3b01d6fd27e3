package capture

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TopicWheels is the body twist the host's motor frames command (through kinematics.BodyTwist, default
// geometry), geometry_msgs/msg/TwistStamped.
const TopicWheels = "/wheel_twist"

var _ = RegisterChannel(DecodedChannel{Topic: TopicWheels, Kind: Board, Dir: ToDevice, Rank: 1, NewConvert: func() Convert {
	geom := kinematics.DefaultGeometry()
	var wheels [board.NumMotors]float64 // the last commanded rps of each wheel (motor frames may set one)
	return func(t time.Time, recs []Record, emit func(rosmsg.Message)) {
		for _, r := range recs {
			if v, ok := valueOf[board.MotorCommand](r); ok && ApplyMotor(&wheels, v) {
				emit(WheelTwistMessage(t, wheels, geom))
			}
		}
	}
}}, (*rosmsg.TwistStamped)(nil))

// ApplyMotor applies a decoded host -> board motor frame to the wheels' commanded speeds (wire ids 0..3;
// other ids and non-finite speeds are ignored, as the kinematics cannot place them) and reports whether
// the frame was one this toolkit can place.
func ApplyMotor(wheels *[board.NumMotors]float64, c board.MotorCommand) bool {
	switch c.Kind {
	case board.MotorSetOne, board.MotorSetMany:
		used := false
		for _, s := range c.Speeds {
			if int(s.ID) < len(wheels) && !math.IsNaN(float64(s.RPS)) && !math.IsInf(float64(s.RPS), 0) {
				wheels[s.ID] = float64(s.RPS)
				used = true
			}
		}
		return used
	case board.MotorStopOne, board.MotorStopMask:
		for i := range wheels {
			if c.Mask&(1<<i) != 0 {
				wheels[i] = 0
			}
		}
		return true
	}
	return false
}

// WheelTwistMessage is the twist the commanded wheel speeds give, stamped t, frame base_link.
func WheelTwistMessage(t time.Time, rps [board.NumMotors]float64, g kinematics.Geometry) *rosmsg.TwistStamped {
	tw := kinematics.BodyTwist(rps, g)
	return &rosmsg.TwistStamped{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"},
		Twist: rosmsg.Twist{Linear: rosmsg.Vector3{X: tw.VX + 0, Y: tw.VY + 0}, Angular: rosmsg.Vector3{Z: tw.WZ + 0}}}
}
