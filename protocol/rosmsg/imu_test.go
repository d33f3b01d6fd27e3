package rosmsg

import (
	"reflect"
	"testing"
)

// TestImuOf: a reading with acceleration keeps its values and covariances; one without (a judged gyro
// sample) says so in linear_acceleration_covariance[0]; neither has an orientation.
func TestImuOf(t *testing.T) {
	gyroCov := [9]float64{0: 1e-4, 4: 1e-4, 8: 1e-4}
	for _, tc := range []struct {
		name string
		in   IMUReading
		want Imu
	}{
		{"accel and gyro", IMUReading{Stamp: Time{1, 2}, FrameID: "imu_link", Gyro: [3]float64{0.1, -0.2, 0.5},
			GyroCov: gyroCov, Accel: [3]float64{0, 0.3, 9.80665}, AccelCov: [9]float64{8: 0.01}},
			Imu{Header: Header{Time{1, 2}, "imu_link"}, OrientationCovariance: [9]float64{-1},
				AngularVelocity: Vector3{0.1, -0.2, 0.5}, AngularVelocityCovariance: gyroCov,
				LinearAcceleration: Vector3{0, 0.3, 9.80665}, LinearAccelerationCovariance: [9]float64{8: 0.01}}},
		{"gyro only", IMUReading{Stamp: Time{3, 4}, FrameID: "imu_link", Gyro: [3]float64{0, 0, 1},
			Accel: [3]float64{1, 2, 3}, AccelCov: [9]float64{1}, NoAccel: true},
			Imu{Header: Header{Time{3, 4}, "imu_link"}, OrientationCovariance: [9]float64{-1},
				AngularVelocity: Vector3{Z: 1}, LinearAccelerationCovariance: [9]float64{-1}}},
		{"zero", IMUReading{}, Imu{OrientationCovariance: [9]float64{-1}}},
	} {
		if got := ImuOf(tc.in); !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, *got, tc.want)
		}
	}
}
