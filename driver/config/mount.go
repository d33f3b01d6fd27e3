package config

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// Mount is where a sensor sits on the robot: its frame's pose in base_link (m, rad; roll, pitch, yaw applied
// as tf2's static_transform_publisher does, fixed axes x then y then z).
type Mount struct {
	X, Y, Z          float64
	Roll, Pitch, Yaw float64
}

// The sensor mounts of the robot's launch files (chapters 12 and 14: the factory URDF's lidar_joint and
// imu_joint, published by static_transform_publisher as base_link -> laser and base_link -> imu_link). They are
// the robot's geometry, not settings: the ROS 2 node publishes them on /tf_static and the recordings carry them.
var (
	// LidarMount: 48 mm ahead of base_link, 107 mm up, turned half a turn (the LiDAR's 180 degrees points forward).
	LidarMount = Mount{X: 0.048156, Y: 0.0000756, Z: 0.106748, Yaw: 3.14159265}
	// IMUMount: the board's IMU, a quarter turn about z and half a degree of pitch.
	IMUMount = Mount{X: -0.027258, Y: -0.0000564, Z: 0.048046, Pitch: -0.0087266, Yaw: 1.5707}
)

// QuaternionRPY is the rotation of roll, pitch, yaw about fixed x, y, z (tf2's Quaternion::setRPY).
func QuaternionRPY(roll, pitch, yaw float64) rosmsg.Quaternion {
	sr, cr := math.Sincos(roll / 2)
	sp, cp := math.Sincos(pitch / 2)
	sy, cy := math.Sincos(yaw / 2)
	return rosmsg.Quaternion{
		X: sr*cp*cy - cr*sp*sy,
		Y: cr*sp*cy + sr*cp*sy,
		Z: cr*cp*sy - sr*sp*cy,
		W: cr*cp*cy + sr*sp*sy,
	}
}

// Transform is parent -> child for mount m, stamped.
func (m Mount) Transform(parent, child string, stamp time.Time) rosmsg.TransformStamped {
	return rosmsg.TransformStamped{
		Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(stamp.UnixNano()), FrameID: parent}, ChildFrameID: child,
		Transform: rosmsg.Transform{Translation: rosmsg.Vector3{X: m.X, Y: m.Y, Z: m.Z}, Rotation: QuaternionRPY(m.Roll, m.Pitch, m.Yaw)},
	}
}

// StaticTransforms is the /tf_static message of the mounts: base -> lidar (LidarMount) and base -> imu
// (IMUMount), as tf2's static broadcaster sends them, in one message.
func StaticTransforms(base, lidar, imu string, stamp time.Time) *rosmsg.TFMessage {
	return &rosmsg.TFMessage{Transforms: []rosmsg.TransformStamped{
		LidarMount.Transform(base, lidar, stamp),
		IMUMount.Transform(base, imu, stamp),
	}}
}

// StaticTransforms is the /tf_static message with this configuration's frame ids.
func (c Config) StaticTransforms(stamp time.Time) *rosmsg.TFMessage {
	return StaticTransforms(c.BaseFrameID, c.LidarFrameID, c.IMUFrameID, stamp)
}
