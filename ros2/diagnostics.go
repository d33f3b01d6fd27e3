package ros2

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// /diagnostics: the driver's state record as diagnostic_updater's statuses (docs/ros2.md, "/diagnostics").

const typeDiagnostics = "diagnostic_msgs/msg/DiagnosticArray"

// Hardware ids of the statuses: the controller board and the LiDAR; the software's own tasks have none.
const (
	HardwareBoard = "rosorin-board"
	HardwareLidar = "coin-d6-lidar"
)

// Diagnostic task names, after "<node>: ".
const (
	TaskBoard      = "board link"
	TaskIMU        = "IMU"
	TaskLidar      = "LiDAR"
	TaskBattery    = "battery"
	TaskGate       = "motion gate"
	TaskSupervisor = "supervisor"
	TaskBridge     = "ROS 2 bridge"
	TaskContact    = "contact reflex"
	TaskLoop       = "control loop"
	TaskRecording  = "recording"
	TaskStops      = "stop performance"
)

// diagTasks are the statuses in order (TaskContact only when the driver has the reflex).
// (TaskStops only when the driver has the stop monitor).
var diagTasks = []string{TaskBoard, TaskIMU, TaskLidar, TaskBattery, TaskGate, TaskSupervisor, TaskBridge, TaskContact, TaskLoop, TaskRecording, TaskStops}

// MinIMUHz is the IMU rate below which the IMU status warns (the board sends about 110 Hz).
const MinIMUHz = 80

// MinScanHz is the scan rate below which the LiDAR status warns (the COIN-D6 turns at 10 Hz).
const MinScanHz = 8

type kvs []rosmsg.KeyValue

func (k *kvs) add(key string, v any) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case *float64:
		if x == nil {
			s = "none"
		} else {
			s = strconv.FormatFloat(*x, 'f', 3, 64)
		}
	case *string:
		if x == nil {
			s = "none"
		} else {
			s = *x
		}
	case *bool:
		if x == nil {
			s = "unknown"
		} else {
			s = strconv.FormatBool(*x)
		}
	default:
		s = fmt.Sprint(v)
	}
	*k = append(*k, rosmsg.KeyValue{Key: key, Value: s})
}

// Diagnostics maps the driver's state record to the node's statuses (named "<node>: <task>"). prev is the
// record of the previous report (nil: none), for the rates and the counters that grew since. sup is the
// supervisor's status file (nil: none, a driver without `rosorin-base run`, or unreadable): restarts, the
// watchdog and the recording.
func Diagnostics(node string, s, prev *api.State, sup *supervisor.Status) []rosmsg.DiagnosticStatus {
	var out []rosmsg.DiagnosticStatus
	add := func(task, hw string, level uint8, msg string, v kvs) {
		out = append(out, rosmsg.DiagnosticStatus{Level: level, Name: node + ": " + task, Message: msg, HardwareID: hw, Values: v})
	}
	grew := func(get func(*api.State) uint64) bool { return prev != nil && get(s) > get(prev) }

	// Board link.
	{
		l := &s.Link
		var v kvs
		if prev != nil && s.Stamp.After(prev.Stamp) && l.Frames >= prev.Link.Frames {
			v.add("frames_per_s", float64(l.Frames-prev.Link.Frames)/s.Stamp.Sub(prev.Stamp).Seconds())
		}
		v.add("frames", l.Frames)
		v.add("board_age_s", l.BoardAgeS)
		v.add("bad_checksum", l.BadChecksum)
		v.add("unknown_func", l.UnknownFunc)
		v.add("skipped_bytes", l.SkippedBytes)
		v.add("malformed", l.Malformed)
		v.add("motor_frames", l.MotorFrames)
		v.add("stop_frames", l.StopFrames)
		v.add("write_errors", l.WriteErrors)
		v.add("encode_errors", l.EncodeErrors)
		v.add("dropped_msgs", l.DroppedMsgs)
		level, msg := rosmsg.DiagOK, "board frames arriving"
		switch {
		case s.BoardSilent:
			level, msg = rosmsg.DiagError, "board silent"
			if s.Warning != "" {
				msg += ": " + s.Warning
			}
		case l.BoardAgeS == nil:
			level, msg = rosmsg.DiagError, "no board frame since start"
		case grew(func(x *api.State) uint64 { return x.Link.WriteErrors }):
			level, msg = rosmsg.DiagError, "board writes failing"
		case grew(func(x *api.State) uint64 { return x.Link.BadChecksum + x.Link.Malformed }):
			level, msg = rosmsg.DiagWarn, "checksum errors or malformed frames since the last report"
		}
		add(TaskBoard, HardwareBoard, level, msg, v)
	}
	// IMU.
	{
		var v kvs
		v.add("imu_hz", s.Link.IMUHz)
		v.add("gyro_calibrating", s.GyroCalibrating)
		v.add("gyro_bias_tracking", s.GyroBiasTracking)
		v.add("gyro_bias_dps", fmt.Sprintf("%.3f %.3f %.3f", s.GyroBiasDPS[0], s.GyroBiasDPS[1], s.GyroBiasDPS[2]))
		level, msg := rosmsg.DiagOK, fmt.Sprintf("%.0f Hz", s.Link.IMUHz)
		switch {
		case s.Link.IMUHz < 1:
			level, msg = rosmsg.DiagError, "no IMU frames"
		case s.GyroCalibrating:
			level, msg = rosmsg.DiagWarn, "calibrating the gyro bias (keep still; imu/data_raw starts after it)"
		case s.Link.IMUHz < MinIMUHz:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("IMU at %.0f Hz (the board sends about 110)", s.Link.IMUHz)
		}
		add(TaskIMU, HardwareBoard, level, msg, v)
	}
	// LiDAR: the scan gate holds software commands without fresh scans.
	{
		var v kvs
		v.add("scans_hz", s.ScansHz)
		v.add("scan_age_s", s.ScanAgeS)
		v.add("scan_timeout_s", s.Config.ScanTimeoutS)
		gate := s.Config.ScanTimeoutS > 0
		level, msg := rosmsg.DiagOK, fmt.Sprintf("%.1f scans/s", s.ScansHz)
		switch {
		case s.ScanAgeS == nil && gate:
			level, msg = rosmsg.DiagError, "no scan since start: the scan gate holds software commands"
		case s.ScanAgeS == nil:
			level, msg = rosmsg.DiagWarn, "no scan since start (scan gate off)"
		case gate && *s.ScanAgeS > s.Config.ScanTimeoutS:
			level, msg = rosmsg.DiagError, fmt.Sprintf("last scan %.1f s ago (scan_timeout %.1f s): the scan gate holds software commands", *s.ScanAgeS, s.Config.ScanTimeoutS)
		case s.ScansHz < MinScanHz:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("%.1f scans/s (the LiDAR turns at 10 Hz)", s.ScansHz)
		}
		add(TaskLidar, HardwareLidar, level, msg, v)
	}
	// Battery and charger.
	{
		var v kvs
		v.add("battery_mv", s.BatteryMV)
		v.add("voltage", float64(s.BatteryMV)/1000)
		v.add("charger_plugged", s.Plugged)
		level, msg := rosmsg.DiagOK, fmt.Sprintf("%.2f V", float64(s.BatteryMV)/1000)
		if s.BatteryMV == 0 {
			level, msg = rosmsg.DiagWarn, "no battery report yet"
		}
		if s.Plugged != nil && *s.Plugged {
			msg += ", charger plugged"
		}
		add(TaskBattery, HardwareBoard, level, msg, v)
	}
	// The gate: a latched e-stop is an ERROR with its reason.
	{
		var v kvs
		v.add("enabled", s.Enabled)
		v.add("estop", s.EStop)
		v.add("blocked", s.Blocked)
		v.add("source", s.Source)
		v.add("cmd_source", s.CmdSource)
		v.add("cmd_age_s", s.CmdAgeS)
		v.add("trips", s.Trips)
		v.add("publishers", len(s.Publishers))
		for i, p := range s.Publishers {
			v.add(fmt.Sprintf("publisher_%d", i), fmt.Sprintf("%s (pid %d) on %s, %d streams", p.Comm, p.PID, p.Input, p.Streams))
		}
		if s.LastRejected != "" {
			v.add("last_rejected", s.LastRejected)
		}
		v.add("body_vel", fmt.Sprintf("%.3f %.3f %.3f", s.BodyVel[0], s.BodyVel[1], s.BodyVel[2]))
		level, msg := rosmsg.DiagOK, "driving ("+s.Source+")"
		switch {
		case s.EStop != nil:
			level, msg = rosmsg.DiagError, "E-STOP latched: "+*s.EStop+" (reset, then enable)"
		case s.Blocked != nil && *s.Blocked == "no scan":
			level, msg = rosmsg.DiagWarn, "software commands held: no scan"
		case !s.Enabled:
			msg = "motion disabled (~/enable)"
		case s.Blocked != nil:
			msg = "enabled, wheels held: " + *s.Blocked
		}
		add(TaskGate, "", level, msg, v)
	}
	// The supervisor: its pid from the state record; restarts, the watchdog and the port from its status file.
	{
		var v kvs
		v.add("supervisor_pid", s.PIDs.Supervisor)
		v.add("driver_pid", s.PIDs.Driver)
		v.add("lidar_reader_pid", s.PIDs.LidarReader)
		level, msg := rosmsg.DiagOK, fmt.Sprintf("driver under supervisor pid %d", s.PIDs.Supervisor)
		if sup != nil {
			v.add("port", sup.Port)
			v.add("driver_starts", sup.DriverStarts)
			v.add("driver_last_exit", sup.DriverLastExit)
			v.add("reader_starts", sup.ReaderStarts)
			v.add("reader_last_exit", sup.ReaderLastExit)
			v.add("watchdog", sup.Watchdog)
			v.add("watchdog_trips", sup.WatchdogTrips)
			v.add("last_watchdog", sup.LastWatchdog)
			v.add("watchdog_late_wakes", sup.WatchdogLateWakes)
			v.add("heartbeat_max_gap_ms", sup.DriverHeartbeatMaxGapMS)
			v.add("stop_frames", sup.StopFrames)
			v.add("last_stop", sup.LastStop)
		}
		switch {
		case s.PIDs.Supervisor == 0:
			level, msg = rosmsg.DiagWarn, "driver without a supervisor: no crash-stop path (run it with rosorin-base run)"
		case sup == nil:
			level, msg = rosmsg.DiagWarn, "the supervisor's status file is not readable: restarts and watchdog unknown"
		case sup.Port != supervisor.PortOpen:
			level, msg = rosmsg.DiagError, "board port "+sup.Port
			if sup.Warning != "" {
				msg += ": " + sup.Warning
			}
		case sup.Updated.Before(s.Stamp.Add(-5 * time.Second)):
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("the supervisor's status is %.0f s old", s.Stamp.Sub(sup.Updated).Seconds())
		case sup.WatchdogTrips > 0:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("the watchdog killed %d driver(s); last: %s", sup.WatchdogTrips, sup.LastWatchdog)
		case sup.DriverStarts > 1:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("driver restarted %d time(s); last exit: %s", sup.DriverStarts-1, sup.DriverLastExit)
		case sup.Watchdog == "off":
			level, msg = rosmsg.DiagWarn, "driver watchdog off: a hung driver leaves the wheels at their last speed"
		}
		add(TaskSupervisor, "", level, msg, v)
	}
	// This bridge as the service sees it (run --ros2): its restarts and how the last one ended. The bridge that
	// publishes this is up by definition; the service's record may still describe its predecessor (it is
	// written on the supervisor's tick), and a bridge that is down publishes nothing: the one that replaces it
	// says here what happened before it.
	if b := supBridge(sup); b != nil {
		var v kvs
		v.add("pid", b.PID)
		v.add("user", b.User)
		v.add("starts", b.Starts)
		v.add("failures", b.Failures)
		v.add("last_exit", b.LastExit)
		v.add("last_error", b.LastError)
		level, msg := rosmsg.DiagOK, "running"
		switch {
		case b.Failures > 0:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("running after %d failed start(s); last: %s", b.Failures, b.LastError)
		case b.Starts > 1 || (b.Starts == 1 && b.LastExit != "" && b.PID != os.Getpid()):
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("bridge restarted; last exit: %s", b.LastExit)
		}
		add(TaskBridge, "", level, msg, v)
	}
	// The board's recording (--capture), from the supervisor's status.
	if sup != nil && sup.Capture != nil {
		c := sup.Capture
		var v kvs
		v.add("recording", c.Recording)
		v.add("file", c.File)
		v.add("segments", c.Segments)
		v.add("messages", c.Messages)
		v.add("bytes", c.Bytes)
		v.add("dropped", c.Dropped)
		v.add("tx_tap_lost", c.TxTapLost)
		level, msg := rosmsg.DiagOK, "recording to "+c.Dir
		switch {
		case !c.Recording:
			level, msg = rosmsg.DiagError, "recording stopped: "+c.Error
		case c.Dropped > 0 || c.TxTapLost > 0:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("recording, %d messages dropped and %d tx copies lost", c.Dropped, c.TxTapLost)
		}
		add(TaskRecording, "", level, msg, v)
	}
	// The contact reflex.
	if c := s.Contact; c != nil {
		var v kvs
		v.add("mode", c.Mode)
		v.add("configured", c.Configured)
		v.add("status", c.Status)
		v.add("contacts", c.Contacts)
		v.add("override_s", c.OverrideS)
		last := "none"
		if e := c.LastContact; e != nil {
			last = fmt.Sprintf("%s at uptime %.1f s (latched %v)", e.Reason, e.UptimeS, e.Latched)
		}
		v.add("last_contact", last)
		level, msg := rosmsg.DiagOK, c.Mode+": "+c.Status
		switch {
		case c.Mode != c.Configured:
			level, msg = rosmsg.DiagWarn, fmt.Sprintf("mode %s instead of %s: %s", c.Mode, c.Configured, c.Status)
		case c.Mode == "off":
			level = rosmsg.DiagWarn
		case strings.HasPrefix(c.Status, "cannot judge"):
			level = rosmsg.DiagWarn
		}
		add(TaskContact, "", level, msg, v)
	}
	// The stop-performance monitor (issue 35): its level as the status's, its why as the message.
	if m := s.StopMonitor; m != nil {
		level, msg, v := stopMonitorStatus(m)
		add(TaskStops, "", level, msg, v)
	}
	// The control loop's timing.
	{
		var v kvs
		v.add("rate_hz", s.Loop.RateHz)
		v.add("tick_p50_ms", s.Loop.TickP50Ms)
		v.add("tick_p99_ms", s.Loop.TickP99Ms)
		v.add("tick_max_ms", s.Loop.TickMaxMs)
		v.add("overruns", s.Loop.Overruns)
		level, msg := rosmsg.DiagOK, fmt.Sprintf("%.0f Hz, p99 tick %.1f ms", s.Loop.RateHz, s.Loop.TickP99Ms)
		if s.Loop.RateHz > 0 && s.Loop.TickP99Ms > 1500/s.Loop.RateHz {
			level = rosmsg.DiagWarn
			msg += " (over 1.5 ticks)"
		}
		add(TaskLoop, "", level, msg, v)
	}
	return out
}

// stopMonitorStatus is the stop-performance status of the monitor's state: ERROR for the monitor's ERROR
// (its trend rule), WARN for its WARN and for a stop log that cannot be written (a monitor that cannot keep
// its records), OK otherwise; an unknown level is a WARN that says so, never an OK.
func stopMonitorStatus(m *api.StopMonitor) (uint8, string, kvs) {
	var v kvs
	v.add("mode", m.Mode)
	v.add("level", m.Level)
	v.add("holding", m.Holding)
	v.add("stops", m.Stops)
	v.add("counted", m.Counted)
	v.add("last_seq", m.LastSeq)
	v.add("limits_source", m.LimitsSource)
	v.add("log_err", m.LogErr)
	if m.Acked != "" {
		v.add("acked", m.Acked)
	}
	level, msg := rosmsg.DiagOK, m.Why
	switch m.Level {
	case api.StopLevelError:
		level = rosmsg.DiagError
	case api.StopLevelWarn:
		level = rosmsg.DiagWarn
	case api.StopLevelOK, "":
	default:
		level, msg = rosmsg.DiagWarn, fmt.Sprintf("unknown stop monitor level %q: %s", m.Level, m.Why)
	}
	if msg == "" {
		msg = fmt.Sprintf("%d stops timed, %d held against a limit (%s)", m.Stops, m.Counted, m.LimitsSource)
		if m.Mode == "off" {
			msg = "stop monitor off: stops are timed and logged, never flagged"
		}
	}
	if m.Holding {
		msg += " (enable refused until acknowledged)"
	}
	if m.LogErr != "" {
		level = max(level, rosmsg.DiagWarn)
		msg += "; stop log failing: " + m.LogErr
	}
	return level, msg, v
}

// supBridge is the bridge's entry of the supervisor's status, nil without one.
func supBridge(sup *supervisor.Status) *supervisor.BridgeStatus {
	if sup == nil {
		return nil
	}
	return sup.Bridge
}

// TaskEStopWatch is the bridge's own status: the e-stop watch (estopwatch.go), beside the driver's tasks.
const TaskEStopWatch = "e-stop watch"

// EStopWatchStatus is the e-stop watch's status: ERROR while the watch cannot read the e-stop writers' state
// (a lost e-stop sample is not detected meanwhile: docs/ros2.md, "When the watch cannot read") or its
// Cyclone internals are off (another libddsc release at run time), OK while it reads.
func EStopWatchStatus(node string, h EStopWatchHealth, now time.Time) rosmsg.DiagnosticStatus {
	var v kvs
	v.add("writers", h.Writers)
	v.add("read_errors", h.Errors)
	v.add("internals", map[bool]string{true: "on", false: "off"}[h.Off == ""])
	if h.Err != "" {
		v.add("failing_for_s", now.Sub(h.Since).Round(time.Millisecond).Seconds())
		v.add("last_error", h.Err)
	}
	level, msg := rosmsg.DiagOK, fmt.Sprintf("watching %d e-stop writer(s)", h.Writers)
	switch {
	case h.Err != "":
		level = rosmsg.DiagError
		msg = fmt.Sprintf("cannot read the e-stop writers' state for %.1f s: a lost e-stop sample is not detected (samples that arrive still latch): %s",
			now.Sub(h.Since).Seconds(), h.Err)
	case h.Off != "":
		level = rosmsg.DiagError
		msg = "announced-sample rule and catch-up off (a lost e-stop sample is detected only when its publisher comes and goes within the one-shot time): " + h.Off
	}
	return rosmsg.DiagnosticStatus{Level: level, Name: node + ": " + TaskEStopWatch, Message: msg, Values: v}
}

// StaleDiagnostics are the statuses when no state record arrives: every task STALE with why.
func StaleDiagnostics(node, why string) []rosmsg.DiagnosticStatus {
	out := make([]rosmsg.DiagnosticStatus, 0, len(diagTasks))
	for _, t := range diagTasks {
		hw := ""
		switch t {
		case TaskBoard, TaskIMU, TaskBattery:
			hw = HardwareBoard
		case TaskLidar:
			hw = HardwareLidar
		}
		out = append(out, rosmsg.DiagnosticStatus{Level: rosmsg.DiagStale, Name: node + ": " + t, Message: why, HardwareID: hw})
	}
	return out
}

// diagStaleAfter is how long without a state record (10 Hz) before the statuses go STALE.
const diagStaleAfter = 2 * time.Second

// diagnostics publishes /diagnostics at 1 Hz and at once when a status's level changes.
func (b *Bridge) diagnostics(ctx context.Context) {
	var (
		mu       sync.Mutex
		cur      *api.State
		curAt    time.Time
		prev     *api.State // the record of the last report
		levels   string
		lastPub  time.Time
		changed  = make(chan struct{}, 1)
		reported bool
	)
	go func() {
		for ctx.Err() == nil {
			_ = b.c.FollowState(ctx, func(s api.State) error {
				mu.Lock()
				cur, curAt = &s, b.cfg.Clock.Now()
				mu.Unlock()
				select {
				case changed <- struct{}{}:
				default:
				}
				return nil
			})
			_ = b.cfg.Clock.Sleep(ctx, 200*time.Millisecond)
		}
	}()
	t := b.cfg.Clock.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	name := b.node.Name
	var sup *supervisor.Status
	var supAt time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		case <-changed:
		}
		now := b.cfg.Clock.Now()
		mu.Lock()
		s, at := cur, curAt
		mu.Unlock()
		var st []rosmsg.DiagnosticStatus
		switch {
		case s == nil:
			st = StaleDiagnostics(name, "no state record from the driver yet")
		case now.Sub(at) > diagStaleAfter:
			st = StaleDiagnostics(name, fmt.Sprintf("no state record from the driver for %.0f s (driver gone or restarting)", now.Sub(at).Seconds()))
		default:
			if now.Sub(supAt) >= time.Second {
				supAt, sup = now, nil
				if x, err := supervisor.ReadStatus(b.cfg.Socket); err == nil {
					sup = &x
				}
			}
			st = Diagnostics(name, s, prev, sup)
		}
		// The bridge's own status, whatever the driver's state: it is about the bridge.
		st = append(st, EStopWatchStatus(name, b.WatchHealth(), now))
		lv := diagLevels(st)
		if reported && lv == levels && now.Sub(lastPub) < time.Second {
			continue
		}
		m := &rosmsg.DiagnosticArray{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(now.UnixNano())}, Status: st}
		if err := b.diagPub.Publish(m); err != nil {
			b.Stats.PublishErrors.Add(1)
		} else {
			b.Stats.Published.Add(1)
		}
		reported, levels, lastPub = true, lv, now
		if s != nil {
			prev = s
		}
	}
}

// diagLevels is a key of the statuses' names and levels: a change publishes at once.
func diagLevels(st []rosmsg.DiagnosticStatus) string {
	var sb strings.Builder
	for _, s := range st {
		sb.WriteString(s.Name)
		sb.WriteByte(byte('0' + s.Level))
	}
	return sb.String()
}
