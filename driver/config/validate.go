package config

import (
	"errors"
	"fmt"
	"math"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

type keyErr struct{ key, msg string }

// Validate checks every value's range. Load calls it; use it after changing a Config in code.
func (c Config) Validate() error {
	var errs []error
	for _, e := range c.check() {
		errs = append(errs, fmt.Errorf("%w: %s = %s", ErrConfig, e.key, e.msg))
	}
	return errors.Join(errs...)
}

func (c Config) check() []keyErr {
	var out []keyErr
	add := func(key, format string, a ...any) { out = append(out, keyErr{key, fmt.Sprintf(format, a...)}) }
	// num checks lo <= v <= hi (open at lo when loOpen), finite.
	num := func(key string, v, lo, hi float64, loOpen bool, why string) {
		ok := isFinite(v) && v <= hi && (v > lo || (!loOpen && v == lo))
		if !ok {
			op := ">="
			if loOpen {
				op = ">"
			}
			add(key, "%v; want a number %s %g and <= %g%s", v, op, lo, hi, why)
		}
	}
	str := func(key, v string) {
		if v == "" {
			add(key, `""; it must not be empty`)
		}
	}
	str("device", c.Device)
	num("control_rate_hz", c.ControlRateHz, 1, 1000, false, " (default 50)")
	num("max_linear", c.MaxLinear, 0, 2, true, " m/s")
	num("max_angular", c.MaxAngular, 0, 10, true, " rad/s")
	num("max_accel_linear", c.MaxAccelLinear, 0, 10, true, " m/s²")
	num("max_accel_angular", c.MaxAccelAngular, 0, 50, true, " rad/s²")
	// The deadman is a safety stop: it cannot be turned off, and more than 2 s is not a deadman.
	num("cmd_timeout", c.CmdTimeout, 0, 2, true, " s; the deadman cannot be off (default 0.3)")
	num("scan_timeout", c.ScanTimeout, 0, 5, false, " s; 0 turns the scan gate off (default 0.5)")
	num("source_timeout", c.SourceTimeout, 0, 2, true, " s (default 0.2)")
	if isFinite(c.SourceTimeout) && isFinite(c.CmdTimeout) && c.SourceTimeout > c.CmdTimeout {
		add("source_timeout", "%v is above cmd_timeout %v; an input the deadman has stopped must not win arbitration",
			c.SourceTimeout, c.CmdTimeout)
	}
	prio := []struct {
		key string
		v   int
	}{{"priority_manual", c.PriorityManual}, {"priority_autonomous", c.PriorityAutonomous}, {"priority_cmd_vel", c.PriorityCmdVel}}
	for i, p := range prio {
		if p.v < 0 {
			add(p.key, "%d; want a priority >= 0 (defaults: manual 100, autonomous 10, cmd_vel 1)", p.v)
		}
		for _, q := range prio[:i] {
			if q.v == p.v {
				add(p.key, "%d, the same as %s; arbitration needs distinct priorities", p.v, q.key)
			}
		}
	}
	if len(out) == 0 {
		// Refused at start rather than at the first fast command the motor frame encoder would refuse.
		if rps := c.Limits().MaxWheelRPS(kinematics.DefaultGeometry()); rps > board.MaxRPS {
			add("max_linear", "%v with max_angular %v can ask one wheel for %.2f rps in a diagonal turn; the board "+
				"refuses more than %g; lower max_linear or max_angular", c.MaxLinear, c.MaxAngular, rps, board.MaxRPS)
		}
	}

	num("gyro_calib_seconds", c.GyroCalibSeconds, 0, 60, true, " s")
	num("gyro_calib_max_std_dps", c.GyroCalibMaxStdDPS, 0, 100, true, " deg/s")
	num("gyro_bias_tau_s", c.GyroBiasTauS, 0, 3600, true, " s")
	num("gyro_bias_settle_s", c.GyroBiasSettleS, 0, 600, false, " s")
	num("gyro_bias_max_dev_dps", c.GyroBiasMaxDevDPS, 0, 100, true, " deg/s")
	for i, v := range c.AccelOffsetG {
		if !isFinite(v) || math.Abs(v) > 1 {
			add("accel_offset_g", "%v (item %d %v); want finite offsets within ±1 g", c.AccelOffsetG, i+1, v)
			break
		}
	}
	for i, v := range c.AccelScale {
		if !isFinite(v) || v < 0.5 || v > 2 {
			add("accel_scale", "%v (item %d %v); want scales between 0.5 and 2 (about 1)", c.AccelScale, i+1, v)
			break
		}
	}
	num("gyro_noise_rad_s", c.GyroNoiseRadS, 0, 1, true, " rad/s")

	num("odom_scale_x", c.OdomScaleX, 0, 2, true, "")
	num("odom_scale_y", c.OdomScaleY, 0, 2, true, "")
	num("odom_linear_std", c.OdomLinearStd, 0, 10, true, " m/s")
	num("odom_angular_std", c.OdomAngularStd, 0, 10, true, " rad/s")

	if c.EStopKey < 0 || c.EStopKey > 255 {
		add("estop_key", "%d; want a key id 0..255 (1 = key1, 0 = no key trips)", c.EStopKey)
	}
	if c.PadModeBit < 0 || c.PadModeBit > 15 {
		add("pad_mode_bit", "%d; want a bit 0..15 of the gamepad buttons word (default 4 = 0x0010)", c.PadModeBit)
	}
	if !(c.PadDeadzone >= 0 && c.PadDeadzone < 1) {
		add("pad_deadzone", "%v; want 0 <= deadzone < 1 (default 0.1)", c.PadDeadzone)
	}

	str("imu_frame_id", c.IMUFrameID)
	str("odom_frame_id", c.OdomFrameID)
	str("base_frame_id", c.BaseFrameID)
	str("lidar_device", c.LidarDevice)
	str("lidar_frame_id", c.LidarFrameID)
	num("angle_offset_deg", c.AngleOffsetDeg, -360, 360, false, " deg")
	num("range_min", c.RangeMin, 0, 100, false, " m")
	num("range_max", c.RangeMax, 0, 100, true, " m")
	if isFinite(c.RangeMin) && isFinite(c.RangeMax) && c.RangeMin >= c.RangeMax {
		add("range_min", "%v is not below range_max %v", c.RangeMin, c.RangeMax)
	}
	num("reopen_after_silence_s", c.ReopenAfterSilenceS, 0, 60, true, " s")
	num("lidar_respawn_delay_s", c.LidarRespawnDelayS, 0, 60, false, " s")
	out = append(out, c.contactCheck()...)
	out = append(out, c.stopMonitorCheck()...)
	return out
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
