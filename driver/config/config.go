package config

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/stopmon"
)

// NodeName is the ROS node whose section the driver reads: `rosorin_board_driver: ros__parameters: {...}`.
const NodeName = "rosorin_board_driver"

// Config is the driver's configuration. The yaml tags are the ROS parameter names of chapter 11, so the
// robot's existing parameter files load unchanged. Times are in seconds, as in ROS.
type Config struct {
	// Device is the controller board's port.
	Device string `yaml:"device"`
	// ControlRateHz is the control loop rate (50: one gate decision every 20 ms).
	ControlRateHz float64 `yaml:"control_rate_hz"`

	// MaxLinear (m/s, x and y each) and MaxAngular (rad/s) are the speed limits. The robot runs 0.35 m/s from
	// config/arm_limits.yaml (owner, 2026-10-01); docs/motion_safety.md rule 5 still says 0.2.
	MaxLinear  float64 `yaml:"max_linear"`
	MaxAngular float64 `yaml:"max_angular"`
	// MaxAccelLinear (m/s²) and MaxAccelAngular (rad/s²) are the ramps (speeding up only; stops are immediate).
	MaxAccelLinear  float64 `yaml:"max_accel_linear"`
	MaxAccelAngular float64 `yaml:"max_accel_angular"`
	// CmdTimeout is the deadman (s); ScanTimeout the scan gate (s, 0 = off).
	CmdTimeout  float64 `yaml:"cmd_timeout"`
	ScanTimeout float64 `yaml:"scan_timeout"`
	// SourceTimeout (s) is velocity arbitration's freshness: an input drives while its last command is at
	// most this old (0 < source_timeout <= cmd_timeout). PriorityManual, PriorityAutonomous and
	// PriorityCmdVel rank the inputs (distinct, >= 0; the fresh one ranked highest drives).
	SourceTimeout      float64 `yaml:"source_timeout"`
	PriorityManual     int     `yaml:"priority_manual"`
	PriorityAutonomous int     `yaml:"priority_autonomous"`
	PriorityCmdVel     int     `yaml:"priority_cmd_vel"`

	// GyroCalibSeconds and GyroCalibMaxStdDPS are the start-up bias window and its stillness test.
	GyroCalibSeconds   float64 `yaml:"gyro_calib_seconds"`
	GyroCalibMaxStdDPS float64 `yaml:"gyro_calib_max_std_dps"`
	// GyroBiasTauS, GyroBiasSettleS, GyroBiasMaxDevDPS set the bias tracker.
	GyroBiasTauS      float64 `yaml:"gyro_bias_tau_s"`
	GyroBiasSettleS   float64 `yaml:"gyro_bias_settle_s"`
	GyroBiasMaxDevDPS float64 `yaml:"gyro_bias_max_dev_dps"`
	// AccelOffsetG and AccelScale are the accelerometer calibration (config/imu_calibration.yaml).
	AccelOffsetG [3]float64 `yaml:"accel_offset_g,flow"`
	AccelScale   [3]float64 `yaml:"accel_scale,flow"`
	// GyroNoiseRadS is the gyro standard deviation for the IMU covariance.
	GyroNoiseRadS float64 `yaml:"gyro_noise_rad_s"`

	// OdomScaleX and OdomScaleY correct commanded into actual body velocity, for the odometry only.
	OdomScaleX float64 `yaml:"odom_scale_x"`
	OdomScaleY float64 `yaml:"odom_scale_y"`
	// OdomLinearStd (m/s) and OdomAngularStd (rad/s) are the odometry twist standard deviations.
	OdomLinearStd  float64 `yaml:"odom_linear_std"`
	OdomAngularStd float64 `yaml:"odom_angular_std"`

	// EStopKey is the board key whose PRESSED/CLICK/LONGPRESS trips the e-stop (0 = none).
	EStopKey int `yaml:"estop_key"`
	// PadModeBit is the MODE button's bit in the gamepad buttons word (the firmware defines none).
	PadModeBit int `yaml:"pad_mode_bit"`
	// PadSounds turns the buzzer tones of the gamepad on; off since the 2026-09-29 incident (the buzzer
	// stayed on).
	PadSounds bool `yaml:"pad_sounds"`
	// PadDeadzone is the stick deadzone (fraction of full deflection; seed joy_to_twist default).
	PadDeadzone float64 `yaml:"pad_deadzone"`

	// Frame ids of the IMU, the odometry and the robot body.
	IMUFrameID  string `yaml:"imu_frame_id"`
	OdomFrameID string `yaml:"odom_frame_id"`
	BaseFrameID string `yaml:"base_frame_id"`
	// PublishOdomTF: the ROS 2 node publishes odom -> base_link on /tf from the wheel odometry (off by
	// default: the robot's EKF publishes it).
	PublishOdomTF bool `yaml:"publish_odom_tf"`

	// LidarDevice is the COIN-D6's port (a udev symlink, chapter 7).
	LidarDevice string `yaml:"lidar_device"`
	// LidarFrameID is the scan's frame.
	LidarFrameID string `yaml:"lidar_frame_id"`
	// Clockwise: native angles run clockwise (floor test 2026-09-28); the launch file set it true.
	Clockwise bool `yaml:"clockwise"`
	// AngleOffsetDeg is added to every angle.
	AngleOffsetDeg float64 `yaml:"angle_offset_deg"`
	// RangeMin hides the self-returns (at most 106 mm); RangeMax is the sensor's reach (m).
	RangeMin float64 `yaml:"range_min"`
	RangeMax float64 `yaml:"range_max"`
	// ReopenAfterSilenceS: the reader reopens the port after this long without bytes.
	ReopenAfterSilenceS float64 `yaml:"reopen_after_silence_s"`
	// LidarRespawn restarts a dead reader process after LidarRespawnDelayS.
	LidarRespawn       bool    `yaml:"lidar_respawn"`
	LidarRespawnDelayS float64 `yaml:"lidar_respawn_delay_s"`

	// The contact reflex (judge/contact, chapter 19's contact_monitor.py): the command delayed by
	// ContactLag (s) and averaged over ContactWin (s); judged when at least ContactVMin (m/s) or, turning,
	// ContactWMin (rad/s) for ContactSettle (s); a stall under ContactRatio of the command for ContactHold
	// (s) is a contact.
	ContactLag    float64 `yaml:"contact_lag"`
	ContactWin    float64 `yaml:"contact_win"`
	ContactVMin   float64 `yaml:"contact_v_min"`
	ContactWMin   float64 `yaml:"contact_w_min"`
	ContactSettle float64 `yaml:"contact_settle"`
	ContactRatio  float64 `yaml:"contact_ratio"`
	ContactHold   float64 `yaml:"contact_hold"`

	// The in-service stop-performance monitor (issue 35; driver/stopmon, stopmon.go here). ROS parameters are
	// flat, so the section's keys are dotted names (`stop_monitor.mode`); a file may nest them under
	// `stop_monitor:` (Load flattens it, as ROS 2 does).
	StopMonitorMode       string  `yaml:"stop_monitor.mode"`
	StopMonitorLimitsFile string  `yaml:"stop_monitor.limits_file"`
	StopMonitorLimits     string  `yaml:"stop_monitor.limits"`
	StopMonitorAcceptEnv  bool    `yaml:"stop_monitor.accept_unidentified"`
	StopMonitorTrendK     int     `yaml:"stop_monitor.trend_k"`
	StopMonitorTrendM     int     `yaml:"stop_monitor.trend_m"`
	StopMonitorTrendN     int     `yaml:"stop_monitor.trend_n"`
	StopMonitorTrendP     float64 `yaml:"stop_monitor.trend_p"`
	StopMonitorTrendConf  float64 `yaml:"stop_monitor.trend_conf"`
}

// Default returns chapter 11's parameter table (the code defaults, not the running values) plus the LiDAR
// reader's launch values of chapter 14.
func Default() Config {
	return Config{
		Device:        "/dev/ttyACM0",
		ControlRateHz: 50,

		MaxLinear:       0.2,
		MaxAngular:      1.0,
		MaxAccelLinear:  0.5,
		MaxAccelAngular: 2.0,
		CmdTimeout:      0.3,
		ScanTimeout:     0.5,

		SourceTimeout:      0.2,
		PriorityManual:     100,
		PriorityAutonomous: 10,
		PriorityCmdVel:     1,

		GyroCalibSeconds:   3.0,
		GyroCalibMaxStdDPS: 0.3,
		GyroBiasTauS:       20,
		GyroBiasSettleS:    1,
		GyroBiasMaxDevDPS:  0.5,
		AccelOffsetG:       [3]float64{0, 0, 0},
		AccelScale:         [3]float64{1, 1, 1},
		GyroNoiseRadS:      0.0012,

		OdomScaleX:     1.0,
		OdomScaleY:     0.765,
		OdomLinearStd:  0.05,
		OdomAngularStd: 0.2,

		EStopKey:    1,
		PadModeBit:  4,
		PadSounds:   false,
		PadDeadzone: 0.1,

		IMUFrameID:  "imu_link",
		OdomFrameID: "odom",
		BaseFrameID: "base_link",

		LidarDevice:         "/dev/lidar",
		LidarFrameID:        "laser",
		Clockwise:           true,
		AngleOffsetDeg:      0,
		RangeMin:            0.12,
		RangeMax:            8.0,
		ReopenAfterSilenceS: 2.0,
		LidarRespawn:        true,
		LidarRespawnDelayS:  2.0,

		ContactLag:    0.2,
		ContactWin:    0.3,
		ContactVMin:   0.08,
		ContactWMin:   0.3,
		ContactSettle: 0.5,
		ContactRatio:  0.15,
		ContactHold:   0.3,

		StopMonitorMode:      stopmon.DefaultMode,
		StopMonitorTrendK:    stopmon.DefaultRules.K,
		StopMonitorTrendM:    stopmon.DefaultRules.M,
		StopMonitorTrendN:    stopmon.DefaultRules.N,
		StopMonitorTrendP:    stopmon.DefaultRules.P,
		StopMonitorTrendConf: stopmon.DefaultRules.Conf,
	}
}

// seconds converts ROS seconds to a Duration (rounded to the nanosecond; Validate bounds the values).
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// ControlPeriod is 1 / control_rate_hz.
func (c Config) ControlPeriod() time.Duration { return seconds(1 / c.ControlRateHz) }

// Limits returns the gate's limits.
func (c Config) Limits() motion.Limits {
	return motion.Limits{
		MaxLinear: c.MaxLinear, MaxAngular: c.MaxAngular,
		MaxAccelLinear: c.MaxAccelLinear, MaxAccelAngular: c.MaxAccelAngular,
		CmdTimeout: seconds(c.CmdTimeout), ScanTimeout: seconds(c.ScanTimeout),
		SourceTimeout: seconds(c.SourceTimeout),
		Priority: [motion.NumInputs]int{
			motion.InputCmdVel: c.PriorityCmdVel, motion.InputAutonomous: c.PriorityAutonomous,
			motion.InputManual: c.PriorityManual,
		},
	}
}

// GyroCalibConfig returns the start-up calibration settings.
func (c Config) GyroCalibConfig() motion.GyroCalibConfig {
	return motion.GyroCalibConfig{Window: seconds(c.GyroCalibSeconds), MaxStdDPS: c.GyroCalibMaxStdDPS}
}

// GyroBiasConfig returns the bias tracker settings.
func (c Config) GyroBiasConfig() motion.GyroBiasConfig {
	return motion.GyroBiasConfig{Tau: seconds(c.GyroBiasTauS), Settle: seconds(c.GyroBiasSettleS), MaxDevDPS: c.GyroBiasMaxDevDPS}
}

// IMUCalib returns the accelerometer calibration and gyro noise.
func (c Config) IMUCalib() motion.IMUCalib {
	return motion.IMUCalib{AccelOffsetG: c.AccelOffsetG, AccelScale: c.AccelScale, GyroNoiseRadS: c.GyroNoiseRadS}
}

// OdomConfig returns the wheel odometry settings (MaxDT stays the seed's 0.1 s).
func (c Config) OdomConfig() motion.OdomConfig {
	o := motion.DefaultOdomConfig()
	o.ScaleX, o.ScaleY = c.OdomScaleX, c.OdomScaleY
	o.LinearStd, o.AngularStd = c.OdomLinearStd, c.OdomAngularStd
	return o
}

// PadConfig returns the gamepad settings; full stick deflection is the gate's limits.
func (c Config) PadConfig() motion.PadConfig {
	p := motion.DefaultPadConfig()
	if c.PadModeBit >= 0 {
		p.ModeBit = uint(c.PadModeBit)
	} else {
		p.ModeBit = 16 // refused by PadConfig.Validate; Validate here refuses it first
	}
	p.Deadzone = c.PadDeadzone
	p.MaxLinear, p.MaxAngular = c.MaxLinear, c.MaxAngular
	return p
}

// ReopenAfterSilence is reopen_after_silence_s as a Duration.
func (c Config) ReopenAfterSilence() time.Duration { return seconds(c.ReopenAfterSilenceS) }

// LidarRespawnDelay is lidar_respawn_delay_s as a Duration.
func (c Config) LidarRespawnDelay() time.Duration { return seconds(c.LidarRespawnDelayS) }
