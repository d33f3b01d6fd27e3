package motion

import (
	"fmt"
	"math"

	"github.com/rosorin/rosorin/protocol/board"
)

// IMUCalib is the accelerometer calibration (config/imu_calibration.yaml: accel_offset_g, accel_scale) and the
// gyro noise used for the covariance (gyro_noise_rad_s).
type IMUCalib struct {
	AccelOffsetG [3]float64
	AccelScale   [3]float64
	// GyroNoiseRadS is the gyro standard deviation; 0.0012 rad/s sits just above the 0.0007-0.0011 rad/s
	// measured at rest on 2026-09-27.
	GyroNoiseRadS float64
}

// DefaultIMUCalib returns offsets 0, scales 1 and gyro noise 0.0012 rad/s (the code defaults; the robot's file
// overrides the accelerometer values).
func DefaultIMUCalib() IMUCalib {
	return IMUCalib{AccelScale: [3]float64{1, 1, 1}, GyroNoiseRadS: 0.0012}
}

// AccelSI applies (raw - offset) x scale and converts g to m/s².
func AccelSI(rawG [3]float64, c IMUCalib) [3]float64 {
	var a [3]float64
	for i := range a {
		a[i] = (rawG[i] - c.AccelOffsetG[i]) * c.AccelScale[i] * board.StandardGravity
	}
	return a
}

// GyroRad converts deg/s to rad/s.
func GyroRad(dps [3]float64) [3]float64 {
	const k = math.Pi / 180
	return [3]float64{dps[0] * k, dps[1] * k, dps[2] * k}
}

// IMUSample is one sensor_msgs/Imu worth of data in SI units, frame imu_link.
type IMUSample struct {
	// Accel is m/s², Gyro rad/s (bias-corrected by the caller).
	Accel, Gyro [3]float64
	// OrientationCov[0] = -1: ROS for "no orientation estimate in this message".
	OrientationCov [9]float64
	// GyroCov has the gyro variance on the diagonal.
	GyroCov [9]float64
	// AccelCov is all zero, as the seed published it (ROS: "covariance unknown").
	AccelCov [9]float64
}

// ConvertIMU builds the IMU output from a raw accelerometer sample (g) and a bias-corrected gyro sample
// (deg/s). A non-finite input returns ErrNonFinite: the frame passed its checksum but carries garbage.
func ConvertIMU(accelG, gyroDPS [3]float64, c IMUCalib) (IMUSample, error) {
	for i := 0; i < 3; i++ {
		if !isFinite(accelG[i]) || !isFinite(gyroDPS[i]) {
			return IMUSample{}, fmt.Errorf("%w: imu accel %v g, gyro %v deg/s; sample skipped", ErrNonFinite, accelG, gyroDPS)
		}
	}
	s := IMUSample{Accel: AccelSI(accelG, c), Gyro: GyroRad(gyroDPS), OrientationCov: OrientationCovariance(),
		GyroCov: GyroCovariance(c.GyroNoiseRadS)}
	return s, nil
}

// GyroCovariance returns a 3x3 row-major covariance with std² on the diagonal.
func GyroCovariance(stdRadS float64) [9]float64 {
	v := stdRadS * stdRadS
	return [9]float64{0: v, 4: v, 8: v}
}

// OrientationCovariance returns the "no orientation" marker: element 0 is -1.
func OrientationCovariance() [9]float64 { return [9]float64{0: -1} }
