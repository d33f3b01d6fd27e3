package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Topics of the output streams (GET /v1/<topic>?follow=1). The ROS names they stand for are in doc.go.
const (
	TopicState   = "state"
	TopicIMU     = "imu"
	TopicScan    = "scan"
	TopicBattery = "battery"
	TopicOdom    = "odom"
	TopicGamepad = "gamepad"
	// TopicSource carries a SourceChange at start and at every hand-over of velocity arbitration; a follower
	// gets the current one first (latched, as ROS 2's ~/source).
	TopicSource = "source"
)

// Topics lists every output topic.
var Topics = []string{TopicState, TopicIMU, TopicScan, TopicBattery, TopicOdom, TopicGamepad, TopicContact, TopicSource, TopicLog, TopicStops}

// SourceChange is one hand-over of velocity arbitration (TopicSource): the input that drives now and the one
// that drove before ("manual", "autonomous", "cmd_vel" or "none").
type SourceChange struct {
	Stamp    time.Time `json:"stamp"`
	Source   string    `json:"source"`
	Previous string    `json:"previous"`
	// PreviousCmdAgeS is the age of the previous input's last command at the hand-over (s), null if it had
	// none: source_timeout (or cmd_timeout, to "none") plus the driver's timer latency when it went stale,
	// less when a higher input took over.
	PreviousCmdAgeS *float64 `json:"previous_cmd_age_s"`
}

// Twist is one velocity command in base_link (geometry_msgs/Twist on cmd_vel, planar part): VX forward m/s,
// VY left m/s, WZ counter-clockwise rad/s. On the wire it is {"vx":..,"vy":..,"wz":..}; ParseTwist also takes
// the ROS shape {"linear":{"x":..,"y":..},"angular":{"z":..}}.
type Twist struct {
	VX float64 `json:"vx"`
	VY float64 `json:"vy"`
	WZ float64 `json:"wz"`
}

// ErrBadMessage is wrapped by the parsers for input that is not a valid message (the transport answers 400).
var ErrBadMessage = errors.New("bad message")

type vec3 struct {
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
	Z *float64 `json:"z"`
}

type wireTwist struct {
	VX      *float64 `json:"vx"`
	VY      *float64 `json:"vy"`
	WZ      *float64 `json:"wz"`
	Linear  *vec3    `json:"linear"`
	Angular *vec3    `json:"angular"`
}

// ParseTwist decodes one velocity command: strict JSON (unknown fields, trailing data, numbers beyond
// float64, NaN/Infinity literals are all refused), either the flat shape or the ROS shape, not both. The ROS
// components this planar robot cannot follow (linear.z, angular.x, angular.y) must be absent or zero.
// Absent components are zero. The values are not range-checked here: that is the gate's job, for every
// transport alike.
func ParseTwist(b []byte) (Twist, error) {
	var w wireTwist
	if err := strictUnmarshal(b, &w); err != nil {
		return Twist{}, err
	}
	flat := w.VX != nil || w.VY != nil || w.WZ != nil
	ros := w.Linear != nil || w.Angular != nil
	switch {
	case flat && ros:
		return Twist{}, fmt.Errorf(`%w: twist has both "vx/vy/wz" and "linear/angular"; send one shape`, ErrBadMessage)
	case !flat && !ros:
		return Twist{}, fmt.Errorf(`%w: twist has no velocity field; send {"vx":0.1,"vy":0,"wz":0}`, ErrBadMessage)
	}
	val := func(p *float64) float64 {
		if p == nil {
			return 0
		}
		return *p
	}
	if flat {
		return Twist{VX: val(w.VX), VY: val(w.VY), WZ: val(w.WZ)}, nil
	}
	var t Twist
	if w.Linear != nil {
		if val(w.Linear.Z) != 0 {
			return Twist{}, fmt.Errorf("%w: linear.z = %v; this robot moves in the plane (send 0 or omit it)", ErrBadMessage, val(w.Linear.Z))
		}
		t.VX, t.VY = val(w.Linear.X), val(w.Linear.Y)
	}
	if w.Angular != nil {
		if val(w.Angular.X) != 0 || val(w.Angular.Y) != 0 {
			return Twist{}, fmt.Errorf("%w: angular.x/y set; this robot only turns about z (send 0 or omit them)", ErrBadMessage)
		}
		t.WZ = val(w.Angular.Z)
	}
	return t, nil
}

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	// One more token must be the end: Decoder.More alone says "no more" before a stray ']' or '}'.
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the JSON value", ErrBadMessage)
	}
	return nil
}

// Bool is the body of POST /v1/enable (std_srvs/SetBool's request): {"data": true|false}.
type Bool struct {
	Data *bool `json:"data"`
}

// ParseBool decodes {"data": true|false}; the field is required.
func ParseBool(b []byte) (bool, error) {
	var v Bool
	if err := strictUnmarshal(b, &v); err != nil {
		return false, err
	}
	if v.Data == nil {
		return false, fmt.Errorf(`%w: missing "data"; send {"data":true} or {"data":false}`, ErrBadMessage)
	}
	return *v.Data, nil
}

// Reply is the answer of the command routes (std_srvs SetBool/Trigger's response).
type Reply struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

// CmdReply is the answer to one velocity command: accepted or not, and why the wheels are held if they are
// (the gate's block reason at arrival: "disabled", "estop: ...", "no scan"; empty when they may turn).
type CmdReply struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Blocked string `json:"blocked,omitempty"`
}

// StreamResult is the answer at the end of a cmd_vel or scan stream.
type StreamResult struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	// Accepted lines reached the driver; Rejected were refused by the gate (absurd values: the wheels were
	// stopped); Dropped were over the rate limit and ignored.
	Accepted uint64 `json:"accepted"`
	Rejected uint64 `json:"rejected"`
	Dropped  uint64 `json:"dropped"`
}

// Ranges are LaserScan ranges in metres. +Inf (no return) and NaN are written as JSON null, which strict JSON
// cannot otherwise carry, and null reads back as +Inf.
type Ranges []float32

// MarshalJSON writes finite values with the shortest float32 form and null for +Inf/NaN.
func (r Ranges) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 2+len(r)*6)
	b = append(b, '[')
	for i, v := range r {
		if i > 0 {
			b = append(b, ',')
		}
		f := float64(v)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, f, 'g', -1, 32)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads numbers and nulls (+Inf).
func (r *Ranges) UnmarshalJSON(b []byte) error {
	var raw []*float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(Ranges, len(raw))
	for i, p := range raw {
		if p == nil {
			out[i] = float32(math.Inf(1))
			continue
		}
		out[i] = float32(*p)
	}
	*r = out
	return nil
}

// Scan is one LiDAR revolution (sensor_msgs/LaserScan), as the reader process delivers it to the driver and the
// driver passes it on to clients of the scan stream.
type Scan struct {
	// Stamp is the time of the first ray (wall clock).
	Stamp   time.Time `json:"stamp"`
	FrameID string    `json:"frame_id"`
	// ScanTime is the revolution's duration (s); TimeIncrement the time between rays (s).
	ScanTime      float64 `json:"scan_time"`
	TimeIncrement float64 `json:"time_increment"`
	// AngleMin, AngleMax and AngleIncrement in radians (a negative increment is a clockwise sensor published
	// in its native order).
	AngleMin       float64 `json:"angle_min"`
	AngleMax       float64 `json:"angle_max"`
	AngleIncrement float64 `json:"angle_increment"`
	RangeMin       float64 `json:"range_min"`
	RangeMax       float64 `json:"range_max"`
	// Ranges in metres, null (+Inf) for no return.
	Ranges      Ranges    `json:"ranges"`
	Intensities []float32 `json:"intensities,omitempty"`
}

// MaxScanBins bounds a scan: the COIN-D6 gives 400 bins; anything near this is a broken sender.
const MaxScanBins = 8192

// Validate checks a scan's shape: finite header numbers, sane sizes. It does not judge the ranges' content:
// the scan gate counts arrivals, as the seed did.
func (s *Scan) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"scan_time", s.ScanTime}, {"time_increment", s.TimeIncrement}, {"angle_min", s.AngleMin},
		{"angle_max", s.AngleMax}, {"angle_increment", s.AngleIncrement}, {"range_min", s.RangeMin},
		{"range_max", s.RangeMax},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%w: scan %s is %v", ErrBadMessage, f.name, f.v)
		}
	}
	if len(s.Ranges) == 0 || len(s.Ranges) > MaxScanBins {
		return fmt.Errorf("%w: scan has %d ranges (1..%d)", ErrBadMessage, len(s.Ranges), MaxScanBins)
	}
	if len(s.Intensities) != 0 && len(s.Intensities) != len(s.Ranges) {
		return fmt.Errorf("%w: scan has %d intensities for %d ranges", ErrBadMessage, len(s.Intensities), len(s.Ranges))
	}
	if s.Stamp.IsZero() {
		return fmt.Errorf("%w: scan has no stamp", ErrBadMessage)
	}
	return nil
}

// IMU is one sensor_msgs/Imu (frame imu_link): SI units, bias-corrected gyro, covariances as in chapter 11
// (orientation_covariance[0] = -1: no orientation; gyro variance on the diagonal; acceleration covariance
// all zero = unknown).
type IMU struct {
	Stamp                        time.Time  `json:"stamp"`
	FrameID                      string     `json:"frame_id"`
	AngularVelocity              [3]float64 `json:"angular_velocity"`    // rad/s
	LinearAcceleration           [3]float64 `json:"linear_acceleration"` // m/s²
	OrientationCovariance        [9]float64 `json:"orientation_covariance"`
	AngularVelocityCovariance    [9]float64 `json:"angular_velocity_covariance"`
	LinearAccelerationCovariance [9]float64 `json:"linear_acceleration_covariance"`
}

// Battery is one sensor_msgs/BatteryState worth: voltage only (the board reports nothing else), percentage
// unknown (null), plus the charger state the driver detects from voltage steps.
type Battery struct {
	Stamp      time.Time `json:"stamp"`
	Voltage    float64   `json:"voltage"` // V
	MilliVolts int       `json:"millivolts"`
	Present    bool      `json:"present"`
	Percentage *float64  `json:"percentage"` // always null: not measured
	// Plugged is the detected charger state, null when unknown since start.
	Plugged *bool `json:"plugged"`
}

// Odom is one nav_msgs/Odometry (frame odom, child base_link) from the gated commanded velocity: dead
// reckoning, and its pose covariance (1e3 on x, y, yaw) says so.
type Odom struct {
	Stamp        time.Time `json:"stamp"`
	FrameID      string    `json:"frame_id"`
	ChildFrameID string    `json:"child_frame_id"`
	X            float64   `json:"x"`
	Y            float64   `json:"y"`
	Theta        float64   `json:"theta"`
	// QZ, QW: the orientation quaternion (x = y = 0).
	QZ float64 `json:"qz"`
	QW float64 `json:"qw"`
	// Twist is the scaled body velocity (odom_scale_x/y) in base_link.
	Twist           Twist       `json:"twist"`
	PoseCovariance  [36]float64 `json:"pose_covariance"`
	TwistCovariance [36]float64 `json:"twist_covariance"`
}

// Gamepad is one sensor_msgs/Joy as the seed published it: the four axes raw/127 then the hat value, and the
// 16 button bits; Raw keeps the board's bytes.
type Gamepad struct {
	Stamp   time.Time  `json:"stamp"`
	Axes    [5]float64 `json:"axes"`
	Buttons [16]int    `json:"buttons"`
	// RawButtons and Hat are the frame's values (buttons as a bit mask).
	RawButtons uint16 `json:"raw_buttons"`
	Hat        uint8  `json:"hat"`
}

// LinkHealth is the board link's health in the state record.
type LinkHealth struct {
	// BoardAgeS is the age of the last valid board frame (s), null if none arrived since start.
	BoardAgeS *float64 `json:"board_age_s"`
	// IMUHz is the measured IMU frame rate over the last second (the board sends about 110 Hz).
	IMUHz float64 `json:"imu_hz"`
	// Frames counts valid board frames; BadChecksum, UnknownFunc and SkippedBytes are the parser's counters;
	// Malformed counts frames that passed the checksum but did not decode (wrong size, non-finite IMU).
	Frames       uint64 `json:"frames"`
	BadChecksum  uint64 `json:"bad_checksum"`
	UnknownFunc  uint64 `json:"unknown_func"`
	SkippedBytes uint64 `json:"skipped_bytes"`
	Malformed    uint64 `json:"malformed"`
	// RejectedCmds counts velocity commands refused by the gate (absurd/non-finite: the wheels were stopped)
	// plus malformed ones (bad JSON on the socket).
	RejectedCmds uint64 `json:"rejected_cmds"`
	// BadRequests counts refused control-socket requests (400/404/405/413/429/503); Throttled the 429s.
	BadRequests uint64 `json:"bad_requests"`
	Throttled   uint64 `json:"throttled"`
	// DroppedMsgs counts stream messages a slow client did not take (never blocking the control loop).
	DroppedMsgs uint64 `json:"dropped_msgs"`
	// RefusedScans counts scan requests refused (403) because the sender is not the supervisor's LiDAR
	// reader (driver under a supervisor only; see ScanAuthorizer).
	RefusedScans uint64 `json:"refused_scans"`
	// RefusedRoles counts requests refused (403) because the caller lacked the role (observe, drive, safety).
	RefusedRoles uint64 `json:"refused_roles"`
	// MotorFrames, StopFrames count frames written; EncodeErrors counts motor frames the encoder refused (a
	// stop frame went out instead); WriteErrors counts failed writes.
	MotorFrames  uint64 `json:"motor_frames"`
	StopFrames   uint64 `json:"stop_frames"`
	EncodeErrors uint64 `json:"encode_errors"`
	WriteErrors  uint64 `json:"write_errors"`
}

// PIDs are the process ids of the driver's processes (0 = unknown / not connected).
type PIDs struct {
	Supervisor  int `json:"supervisor"`
	Driver      int `json:"driver"`
	LidarReader int `json:"lidar_reader"`
}

// Publisher is one sender of velocity commands, for the two-publisher rule.
type Publisher struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	// Input is the velocity input it sends on (one sender on two inputs is listed twice).
	Input string `json:"input"`
	// Streams is the number of open cmd_vel streams it holds.
	Streams int `json:"streams"`
	// LastCmdAgeS is the age of its last command (s), null if it sent none yet.
	LastCmdAgeS *float64 `json:"last_cmd_age_s"`
}

// LoopStats are the control loop's timing: tick interval percentiles over the last few seconds.
type LoopStats struct {
	RateHz float64 `json:"rate_hz"`
	// TickP50Ms, TickP99Ms, TickMaxMs: the interval between ticks (ideal 1000/rate ms).
	TickP50Ms float64 `json:"tick_p50_ms"`
	TickP99Ms float64 `json:"tick_p99_ms"`
	TickMaxMs float64 `json:"tick_max_ms"`
	// Overruns counts intervals longer than 1.5 ticks since start.
	Overruns uint64 `json:"overruns"`
}

// ConfigSummary is the part of the configuration that decides motion.
type ConfigSummary struct {
	MaxLinear       float64 `json:"max_linear"`
	MaxAngular      float64 `json:"max_angular"`
	MaxAccelLinear  float64 `json:"max_accel_linear"`
	MaxAccelAngular float64 `json:"max_accel_angular"`
	CmdTimeoutS     float64 `json:"cmd_timeout"`
	SourceTimeoutS  float64 `json:"source_timeout"`
	ScanTimeoutS    float64 `json:"scan_timeout"`
	ControlRateHz   float64 `json:"control_rate_hz"`
	PadModeBit      int     `json:"pad_mode_bit"`
}

// State is the driver's state record (the seed's ~/state JSON plus link health), published at 10 Hz.
type State struct {
	Stamp   time.Time `json:"stamp"`
	UptimeS float64   `json:"uptime_s"`
	Enabled bool      `json:"enabled"`
	// EStop is the latched first reason, null when not latched.
	EStop *string `json:"estop"`
	// Plugged is the detected charger state, null when unknown.
	Plugged *bool `json:"plugged"`
	// Blocked says why the wheels may not turn ("disabled", "cmd timeout", "no scan", "estop: ..."), null
	// when they may.
	Blocked *string `json:"blocked"`
	// BodyVel is the velocity the gate gives the wheels now [vx, vy, wz].
	BodyVel [3]float64 `json:"body_vel"`
	// WheelRPS is the last wheel speed frame written (motors 1..4, wire signs).
	WheelRPS [4]float64 `json:"wheel_rps"`
	// CmdAgeS is the age of the last velocity command, null if none; CmdSource "software" or "gamepad".
	CmdAgeS   *float64 `json:"cmd_age"`
	CmdSource string   `json:"cmd_source"`
	// Source is the velocity input that drives ("manual", "autonomous", "cmd_vel"), "none" when no input has
	// a command younger than cmd_timeout (motion.Gate.Driving); CmdAgeS is its command's age.
	Source string `json:"source"`
	// ScanAgeS is the age of the last scan arrival, null if none since start; ScansHz their rate.
	ScanAgeS *float64 `json:"scan_age"`
	ScansHz  float64  `json:"scans_hz"`
	// GyroBiasDPS is the current bias estimate; GyroBiasTracking whether the tracker is following it now;
	// GyroCalibrating is true during the start-up window (IMU not published yet).
	GyroBiasDPS      [3]float64 `json:"gyro_bias_dps"`
	GyroBiasTracking bool       `json:"gyro_bias_tracking"`
	GyroCalibrating  bool       `json:"gyro_calibrating"`
	// BatteryMV is the last battery report, 0 if none.
	BatteryMV int `json:"battery_mv"`
	// PadMode is the gamepad mode ("locked", "drive", ...); PadConnected whether pad frames arrive.
	PadMode      string `json:"pad_mode"`
	PadConnected bool   `json:"pad_connected"`
	// Trips counts latched e-stops since start; LastRejected describes the latest refused command.
	Trips        uint64     `json:"trips"`
	LastRejected string     `json:"last_rejected,omitempty"`
	Link         LinkHealth `json:"link"`
	// BoardSilent is true when no board frame arrived for more than 0.5 s; Warning then says, loudly, that
	// the driver cannot stop the wheels.
	BoardSilent bool   `json:"board_silent"`
	Warning     string `json:"warning,omitempty"`
	PIDs        PIDs   `json:"pids"`
	// Publishers are the current velocity command senders (more than one trips the e-stop).
	Publishers []Publisher   `json:"publishers"`
	Loop       LoopStats     `json:"loop"`
	Config     ConfigSummary `json:"config"`
	// Contact is the contact reflex's status (judge/contact), null when the driver has none.
	Contact *ContactState `json:"contact,omitempty"`
	// StopMonitor is the stop-performance monitor's state (stops.go), null when the driver has none.
	StopMonitor *StopMonitor `json:"stop_monitor,omitempty"`
}
