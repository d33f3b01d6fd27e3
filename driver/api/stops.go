package api

import (
	"context"
	"time"
)

// TopicStops carries one StopRecord per stop the driver made, once its judge has spoken (a few seconds after
// the trigger): the stop-performance monitor's input (issue 35), kept in the state directory's stop log.
const TopicStops = "stops"

// The stop kinds: what made the driver stop the wheels. They are the proofs' path names where a proof path
// triggers the same stop, so a campaign's bound for a path is the service limit of the same kind.
const (
	StopDeadman  = "deadman"  // no command for cmd_timeout
	StopEStop    = "estop"    // an e-stop request (socket, ROS 2 topic or service); Reason names who
	StopDisable  = "disable"  // enable false
	StopTakeOver = "takeover" // a higher input took over with a stop
	StopScanGate = "scangate" // no scan: the scan gate blocked motion
	StopContact  = "contact"  // the contact reflex tripped
	StopGamepad  = "gamepad"  // the gamepad's stop button
	StopBoard    = "board"    // the board went silent (the driver latched), or another latch the driver made itself
	StopKill     = "kill"     // the driver died; the supervisor wrote the stop frame (timed by the next driver)
)

// Stop confidence: whether a stop's numbers may be held against its limit. Only ConfidenceOK counts; the
// others are kept and shown, never flagged.
const (
	ConfidenceOK         = "ok"
	ConfidenceCrawl      = "crawl"       // too slow at the trigger for a stop to be measured (below the judge's moving speed)
	ConfidenceTurning    = "turning"     // turning at the trigger: a linear limit does not apply
	ConfidenceDegenerate = "degenerate"  // the LiDAR odometry could not see the motion (refused, never "still")
	ConfidenceNoData     = "no data"     // the judge's samples had a hole or never came
	ConfidenceInterrupt  = "interrupted" // another event (a new command, an enable, a shutdown) ended the window
)

// Stop monitor levels (StopRecord.Level, StopMonitor.Level).
const (
	StopLevelOK    = "ok"
	StopLevelWarn  = "warn"  // this stop is past its limit
	StopLevelError = "error" // the trend: the last stops are past the limit (StopMonitor says which rule)
)

// StopRecord is one stop the driver made, timed from its trigger to still by the proofs' judges. Times are
// on the driver's monotonic clock (UptimeS, StillS); Wall is for people and may step.
type StopRecord struct {
	// Seq numbers the records of one stop log from 1, across driver restarts (the log's last Seq + 1).
	Seq uint64 `json:"seq"`
	// Boot identifies the driver process that timed it (its start, RFC 3339 with nanoseconds, and pid).
	Boot string `json:"boot"`
	// Wall is the trigger's wall time; UptimeS the trigger on the driver's monotonic clock since its start.
	Wall    time.Time `json:"wall"`
	UptimeS float64   `json:"uptime_s"`
	// Kind is one of the Stop* kinds; Reason the driver's own words ("estop request from pid 812 (teleop)").
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
	// BodyVel is the velocity the board was told at the trigger [vx, vy, wz]; Speed its planar speed (m/s);
	// Direction "fwd", "back", "left", "right", "turn" or "mixed".
	BodyVel   [3]float64 `json:"body_vel"`
	Speed     float64    `json:"speed"`
	Direction string     `json:"direction"`
	// StillS is the time from the trigger to still (null: not measured); StillFrom which judge said it
	// ("board gyro vibration" (judge/vibration), "LiDAR odometry" (judge/odometry)).
	StillS    *float64 `json:"still_s"`
	StillFrom string   `json:"still_from,omitempty"`
	// TravelM is the travel after the trigger from the LiDAR odometry (null: no odometry, or a turn).
	TravelM *float64 `json:"travel_m"`
	// Outcome is the judge's word (PASS, FAIL, NOT JUDGED, ...); Confidence one of the Confidence* values.
	Outcome    string `json:"outcome"`
	Confidence string `json:"confidence"`
	// Limit is the limit the stop was held against (null: none for its kind and speed); Level the monitor's
	// verdict on this stop (StopLevel*), "" when not counted.
	Limit *StopLimit `json:"limit,omitempty"`
	Level string     `json:"level,omitempty"`
	Notes []string   `json:"notes,omitempty"`
}

// StopLimit is the limit of one stop kind in one speed band, with where it came from.
type StopLimit struct {
	Kind string `json:"kind"`
	// The band is MinSpeed <= speed <= MaxSpeed (m/s); Direction "" for any.
	MinSpeed  float64 `json:"min_speed"`
	MaxSpeed  float64 `json:"max_speed"`
	Direction string  `json:"direction,omitempty"`
	// MaxStillS and MaxTravelM (0: no limit on it).
	MaxStillS  float64 `json:"max_still_s,omitempty"`
	MaxTravelM float64 `json:"max_travel_m,omitempty"`
	// Source is where the numbers come from: "campaign floor-envelope-80 (cell estop/fwd/0.35, bound at R
	// 0.8 C 0.8)", "envelope ...", "config".
	Source string `json:"source"`
}

// StopMonitor is the stop-performance monitor's state, in the state record and on every surface.
type StopMonitor struct {
	// Mode is "off", "warn" (flags only) or "hold" (an ERROR refuses enable until acknowledged).
	Mode  string `json:"mode"`
	Level string `json:"level"` // StopLevel*
	// Why says, in words, what the level is from ("3 of the last 5 e-stops past 0.45 s"); empty when ok.
	Why string `json:"why,omitempty"`
	// Holding is true while enable is refused for an unacknowledged ERROR (Mode hold).
	Holding bool `json:"holding"`
	// Stops counts the stops timed since start; Counted those held against a limit; LastSeq the last logged.
	Stops   uint64 `json:"stops"`
	Counted uint64 `json:"counted"`
	LastSeq uint64 `json:"last_seq"`
	// Acked says who acknowledged the last ERROR and when ("" when never).
	Acked string `json:"acked,omitempty"`
	// LimitsSource says where the limits came from (a file and its campaign), "none" when there are none.
	LimitsSource string `json:"limits_source"`
	// LogErr is the stop log's last error ("" when it writes): a monitor that cannot keep its records says so.
	LogErr string `json:"log_err,omitempty"`
}

// FollowStops calls fn with each stop record the driver publishes on TopicStops (the live side of the stop
// log; the log itself is read with driver/stoplog, with or without a driver).
func (c *Client) FollowStops(ctx context.Context, fn func(StopRecord) error) error {
	return followJSON(ctx, c, TopicStops, "stop record", fn)
}
