package rosmsg

// IMUReading is one inertial reading in SI units, what every sensor_msgs/Imu the toolkit writes is made of:
// capture's board frames (g and deg/s, converted by the caller), the driver's IMU record on the ROS 2 bridge,
// and a proof's judged gyro samples (no acceleration).
type IMUReading struct {
	Stamp   Time
	FrameID string
	// Gyro is the angular velocity, rad/s; GyroCov its covariance (row major, all zero: unknown).
	Gyro    [3]float64
	GyroCov [9]float64
	// Accel is the linear acceleration, m/s²; AccelCov its covariance. NoAccel: the reading has none (a judged
	// gyro sample): linear_acceleration_covariance[0] is -1 and Accel and AccelCov are not used.
	Accel    [3]float64
	AccelCov [9]float64
	NoAccel  bool
}

// ImuOf is r as sensor_msgs/msg/Imu. Nothing in the toolkit estimates an orientation: the quaternion is zero
// and orientation_covariance[0] is -1 (REP 145, "no orientation estimate").
func ImuOf(r IMUReading) *Imu {
	m := &Imu{Header: Header{Stamp: r.Stamp, FrameID: r.FrameID},
		OrientationCovariance:     [9]float64{-1},
		AngularVelocity:           Vector3{X: r.Gyro[0], Y: r.Gyro[1], Z: r.Gyro[2]},
		AngularVelocityCovariance: r.GyroCov,
	}
	if r.NoAccel {
		m.LinearAccelerationCovariance[0] = -1
		return m
	}
	m.LinearAcceleration = Vector3{X: r.Accel[0], Y: r.Accel[1], Z: r.Accel[2]}
	m.LinearAccelerationCovariance = r.AccelCov
	return m
}
