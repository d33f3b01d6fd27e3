package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/motion"
)

// write puts content into a file in a fresh temp dir and returns its path.
func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultsAreTheParameterTable(t *testing.T) {
	c := Default()
	want := map[string]any{
		"device": "/dev/ttyACM0", "control_rate_hz": 50.0,
		"max_linear": 0.2, "max_angular": 1.0, "max_accel_linear": 0.5, "max_accel_angular": 2.0,
		"cmd_timeout": 0.3, "scan_timeout": 0.5,
		"source_timeout": 0.2, "priority_manual": 100, "priority_autonomous": 10, "priority_cmd_vel": 1,
		"gyro_calib_seconds": 3.0, "gyro_calib_max_std_dps": 0.3,
		"gyro_bias_tau_s": 20.0, "gyro_bias_settle_s": 1.0, "gyro_bias_max_dev_dps": 0.5,
		"accel_offset_g": [3]float64{0, 0, 0}, "accel_scale": [3]float64{1, 1, 1},
		"odom_scale_x": 1.0, "odom_scale_y": 0.765, "gyro_noise_rad_s": 0.0012,
		"odom_linear_std": 0.05, "odom_angular_std": 0.2,
		"estop_key": 1, "pad_mode_bit": 4, "pad_sounds": false, "pad_deadzone": 0.1,
		"imu_frame_id": "imu_link", "odom_frame_id": "odom", "base_frame_id": "base_link", "publish_odom_tf": false,
		"lidar_device": "/dev/lidar", "lidar_frame_id": "laser", "clockwise": true, "angle_offset_deg": 0.0,
		"range_min": 0.12, "range_max": 8.0, "reopen_after_silence_s": 2.0,
		"lidar_respawn": true, "lidar_respawn_delay_s": 2.0,
		"contact_lag": 0.2, "contact_win": 0.3, "contact_v_min": 0.08, "contact_w_min": 0.3, "contact_settle": 0.5,
		"contact_ratio": 0.15, "contact_hold": 0.3,
		"stop_monitor.mode": "hold", "stop_monitor.limits_file": "", "stop_monitor.limits": "",
		"stop_monitor.accept_unidentified": false, "stop_monitor.trend_k": 3, "stop_monitor.trend_m": 5,
		"stop_monitor.trend_n": 20, "stop_monitor.trend_p": 0.8, "stop_monitor.trend_conf": 0.8,
	}
	v := reflect.ValueOf(c)
	if len(want) != len(fields) {
		t.Fatalf("table has %d keys, Config has %d: update this test with the new key", len(want), len(fields))
	}
	for k, w := range want {
		i, ok := fields[k]
		if !ok {
			t.Fatalf("no field for %q", k)
		}
		if got := v.Field(i).Interface(); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, want %#v", k, got, w)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	if c.Limits() != motion.DefaultLimits() {
		t.Fatalf("Limits() %+v != motion.DefaultLimits() %+v", c.Limits(), motion.DefaultLimits())
	}
	if c.ControlPeriod() != 20*time.Millisecond {
		t.Fatalf("control period %v", c.ControlPeriod())
	}
	if c.GyroBiasConfig() != motion.DefaultGyroBiasConfig() || c.GyroCalibConfig() != motion.DefaultGyroCalibConfig() ||
		c.OdomConfig() != motion.DefaultOdomConfig() || c.IMUCalib() != motion.DefaultIMUCalib() ||
		c.PadConfig() != motion.DefaultPadConfig() {
		t.Fatal("a conversion differs from the motion package's defaults")
	}
	got, notes, err := Load()
	if err != nil || len(notes) != 0 || !reflect.DeepEqual(got, c) {
		t.Fatalf("Load() = %+v, %v, %v", got, notes, err)
	}
}

// The robot's two files load unchanged: the calibration and the running speed limit, with the arm keys noted.
func TestRobotFilesLoadUnchanged(t *testing.T) {
	c, notes, err := Load("testdata/imu_calibration.yaml", "testdata/arm_limits.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.AccelOffsetG = [3]float64{0.0460, -0.0635, -0.0501}
	want.AccelScale = [3]float64{1.0058, 0.9964, 1.0076}
	want.MaxLinear = 0.35
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("loaded\n%+v\nwant\n%+v", c, want)
	}
	if w := notes.Warnings(); len(w) != 0 {
		t.Fatalf("unexpected warnings: %v", w)
	}
	var ignored []string
	for _, n := range notes.Ignored() {
		if n.File != "testdata/arm_limits.yaml" || n.Line == 0 {
			t.Fatalf("note without place: %v", n)
		}
		ignored = append(ignored, n.Key)
	}
	wantIgnored := []string{"drive_pan", "auto_tuck_s", "arm_speed_pulses_s", "arm_enabled_at_start", "servo_ids",
		"joint_limits", "arm_min_pulses", "arm_max_pulses", "drive_pose", "tuck_pose", "poses"}
	if !reflect.DeepEqual(ignored, wantIgnored) {
		t.Fatalf("ignored %v, want %v", ignored, wantIgnored)
	}
	if l := c.Limits(); l.MaxLinear != 0.35 || l.CmdTimeout != 300*time.Millisecond {
		t.Fatalf("limits %+v", l)
	}
	if cal := c.IMUCalib(); cal.AccelOffsetG[1] != -0.0635 || cal.AccelScale[2] != 1.0076 {
		t.Fatalf("imu calib %+v", cal)
	}
}

func TestMergeLaterWins(t *testing.T) {
	a := write(t, "a.yaml", `
rosorin_board_driver:
  ros__parameters:
    max_linear: 0.3
    cmd_timeout: 0.25
    device: /dev/ttyUSB0
`)
	b := write(t, "b.yaml", `
/rosorin_board_driver:
  ros__parameters:
    max_linear: 0.1
    accel_scale: [1, 1, 1.01]
`)
	w := write(t, "w.yaml", `
/**:
  ros__parameters:
    scan_timeout: 0
`)
	c, notes, err := Load(a, b, w)
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	if c.MaxLinear != 0.1 || c.CmdTimeout != 0.25 || c.Device != "/dev/ttyUSB0" || c.AccelScale != [3]float64{1, 1, 1.01} || c.ScanTimeout != 0 {
		t.Fatalf("merged %+v", c)
	}
	if c.Limits().ScanTimeout != 0 || c.Limits().CmdTimeout != 250*time.Millisecond {
		t.Fatalf("limits %+v", c.Limits())
	}
	// The other order: a wins.
	c, _, _ = Load(b, a)
	if c.MaxLinear != 0.3 {
		t.Fatalf("max_linear %v, want the later file's 0.3", c.MaxLinear)
	}
}

func TestWrongTypeIsAClearError(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // substrings of the error
	}{
		{"string for a number", "max_linear: \"fast\"", []string{"max_linear", "wrong type", "want a number", `"fast"`}},
		{"quoted number", "cmd_timeout: \"0.3\"", []string{"cmd_timeout", "want a number"}},
		{"number for a string", "device: 42", []string{"device", "want a string"}},
		{"float for an int", "estop_key: 1.5", []string{"estop_key", "want an integer"}},
		{"yes for a bool", "pad_sounds: yes", []string{"pad_sounds", "want true or false"}},
		{"list too short", "accel_scale: [1, 1]", []string{"accel_scale", "a list of 3 numbers"}},
		{"list with a string", "accel_offset_g: [0, x, 0]", []string{"accel_offset_g", "item 2"}},
		{"mapping for a number", "max_angular: {a: 1}", []string{"max_angular", "a mapping"}},
		{"empty value", "max_linear:", []string{"max_linear", "!!null"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, "bad.yaml", "rosorin_board_driver:\n  ros__parameters:\n    "+c.body+"\n")
			got, _, err := Load(p)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error does not wrap ErrConfig: %v", err)
			}
			msg := err.Error()
			for _, s := range append(c.want, p+":3") {
				if !strings.Contains(msg, s) {
					t.Fatalf("error %q lacks %q", msg, s)
				}
			}
			if !reflect.DeepEqual(got, Default()) {
				t.Fatal("a failed load must return the defaults, not a half-merged config")
			}
		})
	}
	t.Run("testdata/bad_type.yaml", func(t *testing.T) {
		got, _, err := Load("testdata/imu_calibration.yaml", "testdata/bad_type.yaml")
		if err == nil || !strings.Contains(err.Error(), "testdata/bad_type.yaml:3: max_linear: wrong type") {
			t.Fatalf("error %v", err)
		}
		if !reflect.DeepEqual(got, Default()) {
			t.Fatal("the good file's values leaked into the result of a failed load")
		}
	})
	t.Run("all errors at once", func(t *testing.T) {
		p := write(t, "bad.yaml", "rosorin_board_driver:\n  ros__parameters:\n    max_linear: x\n    device: 1\n")
		_, _, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), "max_linear") || !strings.Contains(err.Error(), "device") {
			t.Fatalf("error %v, want both keys", err)
		}
	})
}

func TestRangeErrorsNameTheFile(t *testing.T) {
	cases := []struct{ body, want string }{
		{"cmd_timeout: 0", "cmd_timeout = 0; want a number > 0"},
		{"cmd_timeout: 5", "cmd_timeout = 5"},
		{"scan_timeout: -1", "scan_timeout = -1"},
		{"max_linear: .nan", "max_linear = NaN"},
		{"max_linear: 1.5", "refuses more than 5"},
		{"pad_mode_bit: 16", "pad_mode_bit = 16"},
		{"accel_scale: [1, 0, 1]", "accel_scale"},
		{"range_min: 9", "range_min = 9 is not below range_max 8"},
		{"control_rate_hz: 0", "control_rate_hz = 0"},
		{"device: \"\"", "device = \"\""},
		{"max_accel_linear: .inf", "max_accel_linear = +Inf"},
	}
	for _, c := range cases {
		p := write(t, "r.yaml", "rosorin_board_driver:\n  ros__parameters:\n    "+c.body+"\n")
		_, _, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p+":3") {
			t.Fatalf("%s: error %v, want %q at %s:3", c.body, err, c.want, p)
		}
	}
}

func TestNotes(t *testing.T) {
	p := write(t, "n.yaml", `
ekf_filter_node:
  ros__parameters:
    frequency: 30.0
rosorin_board_driver:
  ros__parameters:
    max_linaer: 0.5
    totally_new: 1
    arm_speed: 10
`)
	c, notes, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxLinear != 0.2 {
		t.Fatal("typo changed max_linear")
	}
	var got []string
	for _, n := range notes {
		got = append(got, n.String())
	}
	want := []string{
		p + ":2: ekf_filter_node: other node ignored",
		p + ":7: max_linaer: unknown key ignored (did you mean max_linear?)",
		p + ":8: totally_new: unknown key ignored",
		p + ":9: arm_speed: arm key ignored",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("notes\n%q\nwant\n%q", got, want)
	}
	if len(notes.Warnings()) != 3 || len(notes.Ignored()) != 1 {
		t.Fatalf("warnings %v ignored %v", notes.Warnings(), notes.Ignored())
	}
	// A file without the driver's section says so; an empty file too.
	for _, body := range []string{"other_node:\n  ros__parameters: {a: 1}\n", "", "# only a comment\n"} {
		_, notes, err := Load(write(t, "x.yaml", body))
		if err != nil {
			t.Fatal(err)
		}
		last := notes[len(notes)-1]
		if last.Kind != NoteNoSection || !last.Warning() {
			t.Fatalf("body %q: notes %v", body, notes)
		}
	}
}

func TestStructureErrors(t *testing.T) {
	cases := []struct{ body, want string }{
		{"[1, 2]", "top level must be a mapping"},
		{"rosorin_board_driver: 3", "must be a mapping holding ros__parameters"},
		{"rosorin_board_driver:\n  max_linear: 0.3", `only ros__parameters may be under a node name, found "max_linear"`},
		{"rosorin_board_driver:\n  ros__parameters: [1]", "ros__parameters must be a mapping"},
		{"rosorin_board_driver:\n  ros__parameters:\n    max_linear: 0.1\n    max_linear: 0.3", "max_linear given twice (first at line 3)"},
		{"rosorin_board_driver: {ros__parameters: {max_linear: 0.3", "not valid YAML"},
	}
	for _, c := range cases {
		_, _, err := Load(write(t, "s.yaml", c.body))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%q: error %v, want %q", c.body, err, c.want)
		}
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("missing file: %v", err)
	}
	// An empty node section or empty ros__parameters is fine.
	for _, body := range []string{"rosorin_board_driver:\n", "rosorin_board_driver:\n  ros__parameters:\n"} {
		if _, _, err := Load(write(t, "e.yaml", body)); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	c := Default()
	c.MaxLinear = 0.35
	c.AccelOffsetG = [3]float64{0.0460, -0.0635, -0.0501}
	c.PadSounds = true
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "rosorin_board_driver:\n    ros__parameters:\n") {
		t.Fatalf("shape:\n%s", b)
	}
	got, notes, err := Load(write(t, "m.yaml", string(b)))
	if err != nil || len(notes) != 0 || !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip: %v %v\n%s", err, notes, b)
	}
	var parsed Config
	if _, err := Parse(&parsed, "inline", b); err != nil || !reflect.DeepEqual(parsed, c) {
		t.Fatalf("Parse: %v", err)
	}
}

func TestIsArmKey(t *testing.T) {
	for k, want := range map[string]bool{
		"drive_pan": true, "arm_speed": true, "servo_ids": true, "tuck_pose": true, "poses": true, "joint_limits": true,
		"max_linear": false, "pad_mode_bit": false, "drive": false, "armature": false,
	} {
		if IsArmKey(k) != want {
			t.Fatalf("IsArmKey(%q) = %v", k, !want)
		}
	}
}

// TestStopMonitorSection: the stop monitor's keys nested under stop_monitor: or dotted, and each bad value
// refused naming its key.
func TestStopMonitorSection(t *testing.T) {
	var c Config = Default()
	if _, err := Parse(&c, "nested.yaml", []byte("rosorin_board_driver:\n  ros__parameters:\n    stop_monitor:\n      mode: warn\n      limits: '{estop: {max_still_s: 0.6}}'\n      trend_k: 2\n")); err != nil {
		t.Fatal(err)
	}
	if c.StopMonitorMode != "warn" || c.StopMonitorTrendK != 2 || c.Validate() != nil {
		t.Fatalf("nested section: %+v, %v", c, c.Validate())
	}
	if l, err := c.StopMonitorConfigLimits(); err != nil || l["estop"].MaxStillS != 0.6 {
		t.Fatalf("limits %v %v", l, err)
	}
	c = Default()
	if _, err := Parse(&c, "dotted.yaml", []byte("rosorin_board_driver:\n  ros__parameters:\n    stop_monitor.mode: \"off\"\n")); err != nil || c.StopMonitorMode != "off" {
		t.Fatalf("dotted key: %q %v", c.StopMonitorMode, err)
	}
	for _, bad := range []struct {
		key string
		set func(*Config)
	}{
		{"stop_monitor.mode", func(c *Config) { c.StopMonitorMode = "loud" }},
		{"stop_monitor.limits", func(c *Config) { c.StopMonitorLimits = "[1, 2" }},
		{"stop_monitor.limits", func(c *Config) { c.StopMonitorLimits = "{estop: {max_still_s: -1}}" }},
		{"stop_monitor.trend_m", func(c *Config) { c.StopMonitorTrendM = 2 }},
		{"stop_monitor.trend_n", func(c *Config) { c.StopMonitorTrendN = 2 }},
		{"stop_monitor.trend_p", func(c *Config) { c.StopMonitorTrendP = 1 }},
		{"stop_monitor.trend_conf", func(c *Config) { c.StopMonitorTrendConf = 0 }},
	} {
		c := Default()
		bad.set(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), bad.key) {
			t.Errorf("%s: %v", bad.key, err)
		}
	}
}
