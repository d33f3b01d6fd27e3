package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// IMU noise model, fitted to chapters 10, 11 and 19 (all rad/s unless said otherwise).
const (
	// GyroStillStd per axis (x, y) with the wheels still. The driver measured 0.0007-0.0011 rad/s at rest
	// with nothing running; the stand judge's still score is 0.0016-0.0025 (hypot of two axes), which
	// needs ~0.0014 per axis with the motors powered.
	GyroStillStd = 0.0014
	GyroZStd     = 0.0010
	// Vibration per gyro axis (x, y) as a function of the mean |rps| of the four wheels:
	// VibA * rps^VibP. Fitted through the stand levels: 0.2 m/s (0.796 rps) score 0.005-0.006,
	// 0.35 m/s (1.393 rps) 0.006-0.010, rotation 1.0 rad/s (0.694 rps) 0.004-0.0055.
	VibA = 0.0043
	VibP = 0.74
	// Gyro bias (deg/s): chapter 10 read about -1.9 / -2.2 at rest; the brief's figure is (-1.7, -1.6, 0.05).
	// The residual wanders about 0.01 deg/s over tens of seconds (2026-09-27).
	BiasWanderStd = 0.01 // deg/s, stationary std of the wander
	BiasWanderTau = 30.0 // s
	// Accelerometer (g): offsets and scales of config/imu_calibration.yaml, inverted so the driver's
	// (raw - offset) * scale gives 1 g; white noise and a vibration share.
	AccelStd    = 0.003
	AccelVibPer = 3.0 // g of accel noise per rad/s of gyro vibration
)

var (
	NominalGyroBias = [3]float64{-1.7, -1.6, 0.05}
	AccelOffset     = [3]float64{0.0460, -0.0635, -0.0501}
	AccelScale      = [3]float64{1.0058, 0.9964, 1.0076}
)

// VibrationStd is the gyro x/y vibration (rad/s, per axis) for a mean wheel speed in rps.
func VibrationStd(meanAbsRPS float64) float64 {
	if meanAbsRPS <= 0 {
		return 0
	}
	return VibA * math.Pow(meanAbsRPS, VibP)
}

// IMUReading is one board IMU sample: accel in g, gyro in deg/s (the board's units).
type IMUReading struct {
	Accel [3]float64
	Gyro  [3]float64
}

// IMUModel turns the physical state into IMU readings. Deterministic for a seed; no clock.
type IMUModel struct {
	rng    *rand.Rand
	Bias   [3]float64 // current gyro bias, deg/s
	wander [3]float64
}

// NewIMUModel seeds the noise generator. The bias starts near the nominal one, offset a little by the
// seed so two sims do not share it exactly.
func NewIMUModel(seed int64) *IMUModel {
	m := &IMUModel{rng: rand.New(rand.NewPCG(uint64(seed), 0x1e0))}
	for i := range m.Bias {
		m.Bias[i] = NominalGyroBias[i] + 0.05*m.rng.NormFloat64()
	}
	return m
}

// Sample draws one reading after dt of the given physics.
func (m *IMUModel) Sample(dt time.Duration, p *Physics) IMUReading {
	h := dt.Seconds()
	if h > 0 {
		k := math.Exp(-h / BiasWanderTau)
		s := BiasWanderStd * math.Sqrt(1-k*k)
		for i := range m.wander {
			m.wander[i] = m.wander[i]*k + s*m.rng.NormFloat64()
		}
	}
	vib := VibrationStd(MeanAbsRPS(p.Wheel))
	sx := math.Hypot(GyroStillStd, vib)
	sz := math.Hypot(GyroZStd, 0.3*vib)
	var r IMUReading
	gyro := [3]float64{sx * m.rng.NormFloat64(), sx * m.rng.NormFloat64(), p.Vel[2] + sz*m.rng.NormFloat64()}
	for i := range gyro {
		r.Gyro[i] = gyro[i]*180/math.Pi + m.Bias[i] + m.wander[i]
	}
	sa := math.Hypot(AccelStd, AccelVibPer*vib)
	acc := [3]float64{p.Accel[0] / board.StandardGravity, p.Accel[1] / board.StandardGravity, 1}
	for i := range acc {
		r.Accel[i] = (acc[i]+sa*m.rng.NormFloat64())/AccelScale[i] + AccelOffset[i]
	}
	return r
}
