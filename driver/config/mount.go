package config

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
