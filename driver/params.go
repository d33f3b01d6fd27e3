package driver

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/charger"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

// params is everything the loopState takes from the configuration, in the motion package's types. paramsFrom is
// the one place that knows driver/config's field names.
type params struct {
	limits   motion.Limits
	geom     kinematics.Geometry
	odom     motion.OdomConfig
	calib    motion.GyroCalibConfig
	bias     motion.GyroBiasConfig
	imu      motion.IMUCalib
	pad      motion.PadConfig
	charger  charger.Config
	estopKey int
	rateHz   float64
	contact  contact.Config

	imuFrame, odomFrame, baseFrame string
	summary                        api.ConfigSummary
}

func defaultParams() params {
	return params{
		limits: motion.DefaultLimits(), geom: kinematics.DefaultGeometry(), odom: motion.DefaultOdomConfig(),
		calib: motion.DefaultGyroCalibConfig(), bias: motion.DefaultGyroBiasConfig(), imu: motion.DefaultIMUCalib(),
		pad: motion.DefaultPadConfig(), charger: charger.DefaultConfig(), estopKey: 1, rateHz: 50, contact: contact.DefaultConfig(),
		imuFrame: "imu_link", odomFrame: "odom", baseFrame: "base_link",
	}
}

// paramsFrom converts and checks the configuration. Errors say which parameter to fix.
func paramsFrom(c config.Config) (params, error) {
	if err := c.Validate(); err != nil {
		return params{}, err
	}
	p := defaultParams()
	p.limits = c.Limits()
	p.odom = c.OdomConfig()
	p.calib = c.GyroCalibConfig()
	p.bias = c.GyroBiasConfig()
	p.imu = c.IMUCalib()
	p.pad = c.PadConfig()
	p.estopKey = c.EStopKey
	p.rateHz = c.ControlRateHz
	p.contact = c.ContactConfig()
	p.imuFrame, p.odomFrame, p.baseFrame = c.IMUFrameID, c.OdomFrameID, c.BaseFrameID
	return finishParams(p)
}

// finishParams derives the dependent values and refuses configurations the board could not honour.
func finishParams(p params) (params, error) {
	if err := p.limits.Validate(); err != nil {
		return p, err
	}
	if err := p.contact.Validate(); err != nil {
		return p, err
	}
	if !(p.rateHz >= 10 && p.rateHz <= 500) {
		return p, fmt.Errorf("control_rate_hz = %v; use 10..500 (default 50)", p.rateHz)
	}
	if w := p.limits.MaxWheelRPS(p.geom); w > board.MaxRPS {
		return p, fmt.Errorf("max_linear %v m/s with max_angular %v rad/s can ask a wheel for %.2f rps, over the %v rps the "+
			"motor encoder accepts; lower them", p.limits.MaxLinear, p.limits.MaxAngular, w, board.MaxRPS)
	}
	// Full stick deflection drives at the gate's limits.
	p.pad.MaxLinear, p.pad.MaxAngular = p.limits.MaxLinear, p.limits.MaxAngular
	if err := p.pad.Validate(); err != nil {
		return p, err
	}
	p.summary = api.ConfigSummary{
		MaxLinear: p.limits.MaxLinear, MaxAngular: p.limits.MaxAngular,
		MaxAccelLinear: p.limits.MaxAccelLinear, MaxAccelAngular: p.limits.MaxAccelAngular,
		CmdTimeoutS: p.limits.CmdTimeout.Seconds(), ScanTimeoutS: p.limits.ScanTimeout.Seconds(),
		SourceTimeoutS: p.limits.SourceTimeout.Seconds(),
		ControlRateHz:  p.rateHz, PadModeBit: int(p.pad.ModeBit),
	}
	return p, nil
}

// configView is what GET /v1/config shows: the parameters under their ROS names (the yaml tags), as a flat
// JSON object, so that `curl .../v1/config` reads like the parameter file.
func configView(c config.Config) any {
	b, err := yaml.Marshal(c)
	if err != nil {
		return map[string]string{"error": "configuration not encodable: " + err.Error()}
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return map[string]string{"error": "configuration not encodable: " + err.Error()}
	}
	return m
}
