package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// ParamType is a parameter's ROS type (rcl_interfaces/msg/ParameterType), by the name `ros2 param describe`
// prints.
type ParamType string

// The ROS types of the driver's parameters.
const (
	TypeBool        ParamType = "bool"
	TypeInteger     ParamType = "integer"
	TypeDouble      ParamType = "double"
	TypeString      ParamType = "string"
	TypeDoubleArray ParamType = "double_array"
)

// Param describes one parameter the driver reads.
type Param struct {
	Name        string    `json:"name"`
	Type        ParamType `json:"type"`
	Description string    `json:"description"`
	// Runtime: the driver applies a new value while it runs (POST /v1/config, ~/set_parameters). The others
	// are read at start only and described read_only.
	Runtime bool `json:"runtime"`
	// Limit: a safety limit a runtime set may tighten but never weaken beyond the value the driver started
	// with. Every runtime parameter is one today: smaller is tighter, and for scan_timeout 0 (off) is the
	// loosest of all.
	Limit bool `json:"limit"`
}

// ReadOnly is the ROS descriptor's read_only.
func (p Param) ReadOnly() bool { return !p.Runtime }

// runtime lists the parameters a running driver takes: the gate's speed limits, ramps and timeouts (applied
// to motion.Limits inside the control loop). Everything else is read at start: device paths, frame ids,
// rates, calibration, the LiDAR reader's and the contact reflex's settings, and the priorities (a change of
// rank in the middle of a hand-over is a new arbitration rule, not a tuning).
var runtime = map[string]bool{
	"max_linear": true, "max_angular": true, "max_accel_linear": true, "max_accel_angular": true,
	"cmd_timeout": true, "scan_timeout": true, "source_timeout": true,
}

// descriptions are the one-line descriptions `ros2 param describe` shows.
var descriptions = map[string]string{
	"device":                 "controller board's serial port",
	"control_rate_hz":        "control loop rate (Hz)",
	"max_linear":             "speed limit on x and on y (m/s)",
	"max_angular":            "turn rate limit (rad/s)",
	"max_accel_linear":       "linear speed-up ramp (m/s^2; stops are immediate)",
	"max_accel_angular":      "angular speed-up ramp (rad/s^2; stops are immediate)",
	"cmd_timeout":            "deadman: the wheels stop when the driving command is older (s; cannot be off)",
	"scan_timeout":           "scan gate: software commands are held when the last LiDAR scan is older (s; 0 = off)",
	"source_timeout":         "arbitration freshness: an input drives while its last command is at most this old (s; <= cmd_timeout)",
	"priority_manual":        "rank of manual/cmd_vel (highest fresh input drives)",
	"priority_autonomous":    "rank of autonomous/cmd_vel",
	"priority_cmd_vel":       "rank of cmd_vel",
	"gyro_calib_seconds":     "start-up gyro bias window (s)",
	"gyro_calib_max_std_dps": "stillness test of the start-up window (deg/s standard deviation)",
	"gyro_bias_tau_s":        "gyro bias tracker time constant (s)",
	"gyro_bias_settle_s":     "stillness before the bias tracker follows (s)",
	"gyro_bias_max_dev_dps":  "largest rate the bias tracker takes for bias (deg/s)",
	"accel_offset_g":         "accelerometer offsets x, y, z (g)",
	"accel_scale":            "accelerometer scales x, y, z",
	"gyro_noise_rad_s":       "gyro standard deviation for the IMU covariance (rad/s)",
	"odom_scale_x":           "odometry correction of commanded into actual x velocity",
	"odom_scale_y":           "odometry correction of commanded into actual y velocity",
	"odom_linear_std":        "odometry linear velocity standard deviation (m/s)",
	"odom_angular_std":       "odometry angular velocity standard deviation (rad/s)",
	"estop_key":              "board key that trips the e-stop (0 = none)",
	"pad_mode_bit":           "MODE button's bit in the gamepad buttons word",
	"pad_sounds":             "buzzer tones of the gamepad",
	"pad_deadzone":           "gamepad stick deadzone (fraction of full deflection)",
	"imu_frame_id":           "frame of imu/data_raw",
	"odom_frame_id":          "odometry frame",
	"base_frame_id":          "robot body frame",
	"publish_odom_tf":        "the ROS 2 node publishes odom -> base_link on /tf from the wheel odometry (off: the robot's EKF publishes it)",
	"lidar_device":           "COIN-D6 LiDAR's serial port",
	"lidar_frame_id":         "frame of scan",
	"clockwise":              "LiDAR native angles run clockwise",
	"angle_offset_deg":       "added to every LiDAR angle (deg)",
	"range_min":              "LiDAR minimum range; nearer returns are hidden (m)",
	"range_max":              "LiDAR maximum range (m)",
	"reopen_after_silence_s": "LiDAR reader reopens its port after this long without bytes (s)",
	"lidar_respawn":          "restart a dead LiDAR reader",
	"lidar_respawn_delay_s":  "delay before the LiDAR reader restarts (s)",
	"contact_lag":            "contact reflex: command delay (s)",
	"contact_win":            "contact reflex: averaging window (s)",
	"contact_v_min":          "contact reflex: least commanded speed judged (m/s)",
	"contact_w_min":          "contact reflex: least commanded turn rate judged (rad/s)",
	"contact_settle":         "contact reflex: time at speed before judging (s)",
	"contact_ratio":          "contact reflex: measured/commanded ratio under which it is a stall",
	"contact_hold":           "contact reflex: stall time that is a contact (s)",

	"stop_monitor.mode":                "stop-performance monitor: off, warn (flags only) or hold (an ERROR refuses enable until a person with the safety role acknowledges it; default)",
	"stop_monitor.limits_file":         "stop-performance monitor: limits from a campaign summary (stopproof report --campaign --json) or an envelope; refused when from another host or config",
	"stop_monitor.limits":              "stop-performance monitor: limits per stop kind in YAML ({estop: {max_still_s: 0.6, max_travel_m: 0.08}}), taken as stated",
	"stop_monitor.accept_unidentified": "stop-performance monitor: accept a limits file that does not record its host and config hash (an envelope)",
	"stop_monitor.trend_k":             "stop-performance monitor: ERROR when trend_k of the last trend_m counted stops of a kind are past their limits (0: rule off)",
	"stop_monitor.trend_m":             "stop-performance monitor: the window of the K-of-M rule",
	"stop_monitor.trend_n":             "stop-performance monitor: the last N stops of the tolerance-bound rule (0: rule off)",
	"stop_monitor.trend_p":             "stop-performance monitor: the tolerance bound's proportion P",
	"stop_monitor.trend_conf":          "stop-performance monitor: the tolerance bound's confidence",
}

// params is the table, in the order of Config's fields.
var params = func() []Param {
	t := reflect.TypeOf(Config{})
	out := make([]Param, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		var typ ParamType
		switch f.Type.Kind() {
		case reflect.String:
			typ = TypeString
		case reflect.Bool:
			typ = TypeBool
		case reflect.Int:
			typ = TypeInteger
		case reflect.Float64:
			typ = TypeDouble
		case reflect.Array:
			typ = TypeDoubleArray
		default:
			panic("config: field " + name + " has no ROS type")
		}
		out = append(out, Param{Name: name, Type: typ, Description: descriptions[name], Runtime: runtime[name], Limit: runtime[name]})
	}
	return out
}()

// Params returns the table of the driver's parameters, in Config's field order.
func Params() []Param { return append([]Param(nil), params...) }

// ParamByName returns the parameter called name.
func ParamByName(name string) (Param, bool) {
	if i, ok := fields[name]; ok {
		return params[i], true
	}
	return Param{}, false
}

// Value returns parameter name's value as its ROS type holds it: float64, int64, bool, string or []float64.
func (c Config) Value(name string) (any, bool) {
	i, ok := fields[name]
	if !ok {
		return nil, false
	}
	f := reflect.ValueOf(c).Field(i)
	switch f.Kind() {
	case reflect.String:
		return f.String(), true
	case reflect.Bool:
		return f.Bool(), true
	case reflect.Int:
		return f.Int(), true
	case reflect.Float64:
		return f.Float(), true
	case reflect.Array:
		v := make([]float64, f.Len())
		for j := range v {
			v[j] = f.Index(j).Float()
		}
		return v, true
	}
	return nil, false
}

// Values returns every parameter's value (Value), by name.
func (c Config) Values() map[string]any {
	m := make(map[string]any, len(params))
	for _, p := range params {
		m[p.Name], _ = c.Value(p.Name)
	}
	return m
}

// ErrParam is wrapped by every refusal of a runtime set (SetRuntime, DecodeValues).
var ErrParam = errors.New("parameter")

// setValue sets parameter name to v (a Value type; an int64 is taken for a double) without range checks.
func (c *Config) setValue(name string, v any) error {
	p, ok := ParamByName(name)
	if !ok {
		return fmt.Errorf("%w %s: no such parameter of %s", ErrParam, name, NodeName)
	}
	f := reflect.ValueOf(c).Elem().Field(fields[name])
	wrong := func() error {
		return fmt.Errorf("%w %s: wrong type: it is %s, the value %v is %s", ErrParam, name, p.Type, v, typeOf(v))
	}
	switch p.Type {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return wrong()
		}
		f.SetString(s)
	case TypeBool:
		b, ok := v.(bool)
		if !ok {
			return wrong()
		}
		f.SetBool(b)
	case TypeInteger:
		i, ok := v.(int64)
		if !ok || i != int64(int(i)) {
			return wrong()
		}
		f.SetInt(i)
	case TypeDouble:
		switch x := v.(type) {
		case float64:
			f.SetFloat(x)
		case int64:
			f.SetFloat(float64(x))
		default:
			return wrong()
		}
	case TypeDoubleArray:
		a, ok := v.([]float64)
		if !ok {
			return wrong()
		}
		if len(a) != f.Len() {
			return fmt.Errorf("%w %s: %d numbers; it takes %d", ErrParam, name, len(a), f.Len())
		}
		for j, x := range a {
			f.Index(j).SetFloat(x)
		}
	}
	return nil
}

func typeOf(v any) string {
	switch v.(type) {
	case float64:
		return "a double"
	case int64:
		return "an integer"
	case bool:
		return "a bool"
	case string:
		return "a string"
	case []float64:
		return "a double array"
	}
	return fmt.Sprintf("%T", v)
}

// looseness orders a limit's values: larger is looser. scan_timeout 0 turns the scan gate off, the loosest.
func looseness(name string, v float64) float64 {
	if name == "scan_timeout" && v == 0 {
		return math.Inf(1)
	}
	return v
}

// SetRuntime returns cur with the values of set applied, all or nothing: every name must be a runtime
// parameter of the right type, no limit may be set looser than in start (the configuration the driver started
// with: a runtime set tightens a safety limit and may return it to its start value, never beyond), and the
// result must pass Validate. The error lists every refusal, each naming the parameter and why.
func SetRuntime(start, cur Config, set map[string]any) (Config, error) {
	next := cur
	var errs []error
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		errs = append(errs, fmt.Errorf("%w: nothing to set; send {\"name\": value, ...}", ErrParam))
	}
	for _, n := range names {
		v := set[n]
		p, ok := ParamByName(n)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%w %s: no such parameter of %s", ErrParam, n, NodeName))
			continue
		case !p.Runtime:
			errs = append(errs, fmt.Errorf("%w %s: read-only: the driver reads it only at start; change it in the parameter file and restart",
				ErrParam, n))
			continue
		}
		if err := next.setValue(n, v); err != nil {
			errs = append(errs, err)
			continue
		}
		if p.Limit {
			nv, _ := next.Value(n)
			sv, _ := start.Value(n)
			x, s := nv.(float64), sv.(float64)
			if isFinite(x) && !(looseness(n, x) <= looseness(n, s)) { // a NaN is Validate's to refuse
				what := fmt.Sprintf("%v", x)
				if n == "scan_timeout" && x == 0 {
					what = "0 (scan gate off)"
				}
				errs = append(errs, fmt.Errorf("%w %s: %s would weaken a safety limit beyond the value the driver started with (%v); "+
					"a runtime set may only tighten it (or return it to %v); raise it in the parameter file and restart",
					ErrParam, n, what, s, s))
			}
		}
	}
	if len(errs) == 0 {
		if err := next.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return cur, errors.Join(errs...)
	}
	return next, nil
}

// DecodeValues reads a JSON object of parameter values ({"max_linear": 0.3, "accel_scale": [1, 1, 1]}) into
// Value types by each parameter's type: a double takes any number, an integer only a whole one. Unknown names
// are kept (as their JSON value) for SetRuntime to refuse by name.
func DecodeValues(b []byte) (map[string]any, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object of parameter values: %v", ErrParam, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%w: not a JSON object of parameter values (null)", ErrParam)
	}
	out := make(map[string]any, len(raw))
	var errs []error
	for n, r := range raw {
		p, ok := ParamByName(n)
		if !ok {
			out[n] = string(r)
			continue
		}
		var err error
		switch p.Type {
		case TypeDouble:
			var x float64
			err = json.Unmarshal(r, &x)
			out[n] = x
		case TypeInteger:
			var x int64
			err = json.Unmarshal(r, &x)
			out[n] = x
		case TypeBool:
			var x bool
			err = json.Unmarshal(r, &x)
			out[n] = x
		case TypeString:
			var x string
			err = json.Unmarshal(r, &x)
			out[n] = x
		case TypeDoubleArray:
			var x []float64
			err = json.Unmarshal(r, &x)
			out[n] = x
		}
		if err == nil && string(r) == "null" {
			err = errors.New("null")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w %s: wrong type: it is %s, got %s", ErrParam, n, p.Type, r))
		}
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return nil, errors.Join(errs...)
	}
	return out, nil
}
