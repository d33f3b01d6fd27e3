package ros2

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// ErrBadTwist is wrapped by DecodeTwist for a twist that decodes but cannot be followed.
var ErrBadTwist = errors.New("ros2: bad twist")

// DecodeTwist decodes a cmd_vel sample into the driver's planar twist. Malformed CDR, a non-finite component
// and the components a planar robot cannot follow (linear.z, angular.x, angular.y not zero) are errors: the
// caller counts and drops it and stops the wheels, as the socket does for bad JSON. Range is the gate's job.
func DecodeTwist(b []byte) (api.Twist, error) {
	var m rosmsg.Twist
	if err := cdr.Unmarshal(b, &m); err != nil {
		return api.Twist{}, err
	}
	return planar(m)
}

// DecodeTwistStamped is DecodeTwist for geometry_msgs/msg/TwistStamped (Config.CmdVelStamped). The header is
// not used: the driver times a command by its arrival, whatever the sender's stamp says.
func DecodeTwistStamped(b []byte) (api.Twist, error) {
	var m rosmsg.TwistStamped
	if err := cdr.Unmarshal(b, &m); err != nil {
		return api.Twist{}, err
	}
	return planar(m.Twist)
}

func planar(m rosmsg.Twist) (api.Twist, error) {
	for _, v := range []float64{m.Linear.X, m.Linear.Y, m.Linear.Z, m.Angular.X, m.Angular.Y, m.Angular.Z} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return api.Twist{}, fmt.Errorf("%w: non-finite component %v", ErrBadTwist, v)
		}
	}
	if m.Linear.Z != 0 || m.Angular.X != 0 || m.Angular.Y != 0 {
		return api.Twist{}, fmt.Errorf("%w: linear.z %v, angular.x %v, angular.y %v: this robot moves in the plane", ErrBadTwist, m.Linear.Z, m.Angular.X, m.Angular.Y)
	}
	return api.Twist{VX: m.Linear.X, VY: m.Linear.Y, WZ: m.Angular.Z}, nil
}

func stamp(t time.Time) rosmsg.Time {
	if t.IsZero() {
		return rosmsg.Time{}
	}
	return rosmsg.TimeFromNanos(t.UnixNano())
}

// IMUMsg is the driver's IMU record as sensor_msgs/Imu (no orientation: covariance[0] = -1, chapter 11; the
// record has no orientation, so its orientation_covariance, always that, is not read).
func IMUMsg(m *api.IMU) *rosmsg.Imu {
	return rosmsg.ImuOf(rosmsg.IMUReading{Stamp: stamp(m.Stamp), FrameID: m.FrameID,
		Gyro: m.AngularVelocity, GyroCov: m.AngularVelocityCovariance,
		Accel: m.LinearAcceleration, AccelCov: m.LinearAccelerationCovariance})
}

// BatteryMsg is the battery record as sensor_msgs/BatteryState: voltage and presence measured, everything
// else NaN (unmeasured, by the message's convention); the status from the detected charger state.
func BatteryMsg(m *api.Battery) *rosmsg.BatteryState {
	nan := float32(math.NaN())
	out := &rosmsg.BatteryState{Header: rosmsg.Header{Stamp: stamp(m.Stamp)}, Voltage: float32(m.Voltage),
		Temperature: nan, Current: nan, Charge: nan, Capacity: nan, DesignCapacity: nan, Percentage: nan,
		Present: m.Present, PowerSupplyStatus: rosmsg.PowerSupplyStatusUnknown}
	if m.Percentage != nil {
		out.Percentage = float32(*m.Percentage)
	}
	if m.Plugged != nil {
		out.PowerSupplyStatus = rosmsg.PowerSupplyStatusDischarging
		if *m.Plugged {
			out.PowerSupplyStatus = rosmsg.PowerSupplyStatusCharging
		}
	}
	return out
}

// OdomMsg is the odometry record as nav_msgs/Odometry.
func OdomMsg(m *api.Odom) *rosmsg.Odometry {
	return &rosmsg.Odometry{Header: rosmsg.Header{Stamp: stamp(m.Stamp), FrameID: m.FrameID}, ChildFrameID: m.ChildFrameID,
		Pose:           rosmsg.Pose{Position: rosmsg.Vector3{X: m.X, Y: m.Y}, Orientation: rosmsg.Quaternion{Z: m.QZ, W: m.QW}},
		PoseCovariance: m.PoseCovariance,
		Twist: rosmsg.Twist{Linear: rosmsg.Vector3{X: m.Twist.VX, Y: m.Twist.VY},
			Angular: rosmsg.Vector3{Z: m.Twist.WZ}},
		TwistCovariance: m.TwistCovariance}
}

// JoyMsg is the gamepad record as sensor_msgs/Joy (the seed's five axes and sixteen buttons).
func JoyMsg(m *api.Gamepad) *rosmsg.Joy {
	out := &rosmsg.Joy{Header: rosmsg.Header{Stamp: stamp(m.Stamp)}, Axes: make([]float32, len(m.Axes)),
		Buttons: make([]int32, len(m.Buttons))}
	for i, a := range m.Axes {
		out.Axes[i] = float32(a)
	}
	for i, b := range m.Buttons {
		out.Buttons[i] = int32(b)
	}
	return out
}

// ScanMsg is a LiDAR revolution as sensor_msgs/LaserScan.
func ScanMsg(m *api.Scan) *rosmsg.LaserScan {
	return &rosmsg.LaserScan{Header: rosmsg.Header{Stamp: stamp(m.Stamp), FrameID: m.FrameID},
		AngleMin: float32(m.AngleMin), AngleMax: float32(m.AngleMax), AngleIncrement: float32(m.AngleIncrement),
		TimeIncrement: float32(m.TimeIncrement), ScanTime: float32(m.ScanTime), RangeMin: float32(m.RangeMin),
		RangeMax: float32(m.RangeMax), Ranges: m.Ranges, Intensities: m.Intensities}
}
