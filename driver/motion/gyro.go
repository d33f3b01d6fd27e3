package motion

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrNonFinite is returned for a sensor sample with a NaN or infinite value; the sample is counted and skipped.
var ErrNonFinite = errors.New("motion: non-finite sample")

// GyroBiasConfig sets the bias tracker (chapter 11 gyro_bias.py; parameters gyro_bias_*).
type GyroBiasConfig struct {
	// Tau is the time constant the bias follows the reading with (20 s).
	Tau time.Duration
	// Settle is how long the robot must have been commanded still before tracking starts (1 s): the wheels
	// run down and the body stops rocking.
	Settle time.Duration
	// MaxDevDPS: a sample whose any axis is further than this from the bias (deg/s) is motion, not bias:
	// the robot pushed or turned by hand (0.5 deg/s).
	MaxDevDPS float64
}

// DefaultGyroBiasConfig returns tau 20 s, settle 1 s, max deviation 0.5 deg/s.
func DefaultGyroBiasConfig() GyroBiasConfig {
	return GyroBiasConfig{Tau: 20 * time.Second, Settle: time.Second, MaxDevDPS: 0.5}
}

// GyroBias keeps following the gyro bias whenever the robot is commanded to stand still. The start-up
// calibration gives the initial bias; the residual wanders (measured 2026-09-27: about ±0.01 deg/s over tens of
// seconds, 11.4 degrees of heading drift in 8 minutes without tracking, within ±0.11 degrees over 5 minutes
// with it). While the commanded velocity has been zero for Settle and every axis reads within MaxDevDPS of the
// bias, the bias moves toward the reading by dt/Tau of the difference. While driving it is frozen.
type GyroBias struct {
	cfg        GyroBiasConfig
	bias       [3]float64
	stillSince time.Time
	still      bool
	last       time.Time
	hasLast    bool
	rejected   uint64
}

// NewGyroBias returns a tracker starting from bias (deg/s), e.g. the GyroCalibrator's result.
func NewGyroBias(cfg GyroBiasConfig, bias [3]float64) *GyroBias {
	return &GyroBias{cfg: cfg, bias: bias}
}

// Bias returns the current bias estimate (deg/s).
func (g *GyroBias) Bias() [3]float64 { return g.bias }

// SetBias replaces the bias estimate, e.g. with the start-up calibration's mean.
func (g *GyroBias) SetBias(b [3]float64) { g.bias = b }

// SetCommandedStill tells the tracker whether the gate's output is zero at now (call it every control tick).
// The settle time counts from the first still tick; any motion restarts it.
func (g *GyroBias) SetCommandedStill(still bool, now time.Time) {
	if !still {
		g.still = false
		return
	}
	if !g.still {
		g.still, g.stillSince = true, now
	}
}

// Tracking reports whether the robot has been commanded still for at least Settle at now.
func (g *GyroBias) Tracking(now time.Time) bool {
	return g.still && now.Sub(g.stillSince) >= g.cfg.Settle
}

// Update takes one raw gyro sample (deg/s) at now and returns it bias-corrected (deg/s). A non-finite sample
// changes nothing and returns ErrNonFinite (counted in Rejected).
func (g *GyroBias) Update(raw [3]float64, now time.Time) ([3]float64, error) {
	for _, v := range raw {
		if !isFinite(v) {
			g.rejected++
			return [3]float64{}, fmt.Errorf("%w: gyro %v deg/s; sample skipped", ErrNonFinite, raw)
		}
	}
	var dt time.Duration
	if g.hasLast {
		dt = now.Sub(g.last)
	}
	g.last, g.hasLast = now, true
	if dt > 0 && g.Tracking(now) && g.within(raw) {
		a := math.Min(dt.Seconds()/g.cfg.Tau.Seconds(), 1)
		for i := range g.bias {
			g.bias[i] += a * (raw[i] - g.bias[i])
		}
	}
	return [3]float64{raw[0] - g.bias[0], raw[1] - g.bias[1], raw[2] - g.bias[2]}, nil
}

func (g *GyroBias) within(raw [3]float64) bool {
	for i, v := range raw {
		if !(math.Abs(v-g.bias[i]) <= g.cfg.MaxDevDPS) {
			return false
		}
	}
	return true
}

// Rejected counts non-finite samples.
func (g *GyroBias) Rejected() uint64 { return g.rejected }

// GyroCalibConfig sets the start-up calibration (gyro_calib_seconds, gyro_calib_max_std_dps).
type GyroCalibConfig struct {
	// Window is how long samples are collected from the first one (3 s; about 330 samples at 110 Hz).
	Window time.Duration
	// MaxStdDPS is the stillness test: every axis' population standard deviation must be at most this
	// (0.3 deg/s; measured at rest 0.04-0.07 deg/s).
	MaxStdDPS float64
}

// DefaultGyroCalibConfig returns 3 s and 0.3 deg/s.
func DefaultGyroCalibConfig() GyroCalibConfig {
	return GyroCalibConfig{Window: 3 * time.Second, MaxStdDPS: 0.3}
}

// CalibResult is the outcome of the start-up calibration.
type CalibResult struct {
	// Still is true when the robot passed the stillness test; then Bias is the mean of the window.
	Still bool
	// Bias is the mean reading (deg/s) if Still, else zero: the gyro is published uncorrected.
	Bias [3]float64
	// Mean and Std are the window's per-axis mean and population standard deviation (deg/s).
	Mean, Std [3]float64
	Samples   int
	// Warning is non-empty when the robot moved during calibration; log it.
	Warning string
}

// GyroCalibrator measures the gyro bias at start (chapter 11 calibrate()): samples are not published while it
// runs. It keeps running sums, not the samples.
type GyroCalibrator struct {
	cfg      GyroCalibConfig
	t0       time.Time
	started  bool
	done     bool
	n        int
	mean, m2 [3]float64 // Welford: numerically stable at a -1.9 deg/s offset
	rejected uint64
	res      CalibResult
}

// NewGyroCalibrator returns a calibrator whose window starts with the first sample.
func NewGyroCalibrator(cfg GyroCalibConfig) *GyroCalibrator { return &GyroCalibrator{cfg: cfg} }

// Add feeds one raw gyro sample (deg/s) at now. It returns done = true once, on the first sample at or after
// the end of the window (that sample is included, as in the seed); Result is valid from then on. Samples after
// done are ignored. A non-finite sample is counted and skipped.
func (c *GyroCalibrator) Add(g [3]float64, now time.Time) (done bool) {
	if c.done {
		return false
	}
	for _, v := range g {
		if !isFinite(v) {
			c.rejected++
			return false
		}
	}
	if !c.started {
		c.t0, c.started = now, true
	}
	c.n++
	for i, v := range g {
		d := v - c.mean[i]
		c.mean[i] += d / float64(c.n)
		c.m2[i] += d * (v - c.mean[i])
	}
	if now.Sub(c.t0) < c.cfg.Window {
		return false
	}
	c.done = true
	r := CalibResult{Mean: c.mean, Samples: c.n}
	worst := 0.0
	for i := range c.m2 {
		r.Std[i] = math.Sqrt(c.m2[i] / float64(c.n))
		worst = math.Max(worst, r.Std[i])
	}
	if worst <= c.cfg.MaxStdDPS {
		r.Still, r.Bias = true, c.mean
	} else {
		r.Warning = fmt.Sprintf("robot not stationary during gyro calibration (std %.3f %.3f %.3f deg/s > %.3g); "+
			"publishing uncorrected gyro; keep the robot still for the first %v after a start",
			r.Std[0], r.Std[1], r.Std[2], c.cfg.MaxStdDPS, c.cfg.Window)
	}
	c.res = r
	return true
}

// Done reports whether the window has closed.
func (c *GyroCalibrator) Done() bool { return c.done }

// Result returns the calibration result (zero until Done).
func (c *GyroCalibrator) Result() CalibResult { return c.res }

// Rejected counts non-finite samples.
func (c *GyroCalibrator) Rejected() uint64 { return c.rejected }
