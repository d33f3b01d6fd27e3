package ros2

import (
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

func ptr[T any](v T) *T { return &v }

// healthy is a state record of a driver with nothing wrong: enabled, idle, every stream at its rate.
func healthy() api.State {
	return api.State{
		Stamp: time.Unix(1000, 0), Enabled: true, Blocked: ptr("cmd timeout"), Source: "none",
		ScanAgeS: ptr(0.05), ScansHz: 10, BatteryMV: 12100,
		Link:    api.LinkHealth{BoardAgeS: ptr(0.01), IMUHz: 110, Frames: 5000},
		PIDs:    api.PIDs{Supervisor: 10, Driver: 11, LidarReader: 12},
		Loop:    api.LoopStats{RateHz: 50, TickP50Ms: 20, TickP99Ms: 21},
		Config:  api.ConfigSummary{ScanTimeoutS: 0.5},
		Contact: &api.ContactState{Mode: "act", Configured: "act", Status: "idle: no command"},
		StopMonitor: &api.StopMonitor{Mode: "hold", Level: api.StopLevelOK, Stops: 3, Counted: 2, LastSeq: 41,
			LimitsSource: "campaign floor-envelope-80"},
	}
}

// healthySup is the status file of a supervisor with nothing to report: one driver, watchdog on, recording.
func healthySup() supervisor.Status {
	return supervisor.Status{PID: 10, Port: supervisor.PortOpen, DriverStarts: 1, ReaderStarts: 1, Watchdog: "150ms",
		Updated: time.Unix(999, 500e6), Capture: &supervisor.CaptureStatus{QueueStatus: segment.QueueStatus{
			Recording: true, Dir: "/var/lib/rosorin/capture", Segments: 1, Messages: 100}},
		Bridge: &supervisor.BridgeStatus{Running: true, Healthy: true, PID: 20, Starts: 1}}
}

func statusOf(t *testing.T, st []rosmsg.DiagnosticStatus, task string) rosmsg.DiagnosticStatus {
	t.Helper()
	for _, s := range st {
		if s.Name == NodeName+": "+task {
			return s
		}
	}
	t.Fatalf("no status %q in %+v", task, st)
	return rosmsg.DiagnosticStatus{}
}

func value(s rosmsg.DiagnosticStatus, key string) string {
	for _, kv := range s.Values {
		if kv.Key == key {
			return kv.Value
		}
	}
	return "<missing>"
}

// TestDiagnostics is the table of state -> statuses: each row changes one thing of a healthy record and names
// the task whose level must change (every other task stays OK).
func TestDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(s, prev *api.State, sup *supervisor.Status)
		task  string
		level uint8
		msg   string // a substring of the task's message
	}{
		{"healthy", func(s, p *api.State, sup *supervisor.Status) {}, "", rosmsg.DiagOK, ""},
		{"latched e-stop", func(s, p *api.State, sup *supervisor.Status) {
			s.EStop, s.Blocked = ptr("estop topic (ROS 2)"), ptr("estop: estop topic (ROS 2)")
		}, TaskGate, rosmsg.DiagError, "E-STOP latched: estop topic (ROS 2)"},
		{"latched e-stop, disabled", func(s, p *api.State, sup *supervisor.Status) {
			s.EStop, s.Enabled = ptr("deadman"), false
		}, TaskGate, rosmsg.DiagError, "deadman"},
		{"disabled is normal", func(s, p *api.State, sup *supervisor.Status) { s.Enabled, s.Blocked = false, ptr("disabled") }, TaskGate, rosmsg.DiagOK, "disabled"},
		{"no scan holds commands", func(s, p *api.State, sup *supervisor.Status) { s.Blocked = ptr("no scan") }, TaskGate, rosmsg.DiagWarn, "no scan"},
		{"board silent", func(s, p *api.State, sup *supervisor.Status) {
			s.BoardSilent, s.Warning = true, "no board frame for 0.8 s: the driver cannot stop the wheels"
		}, TaskBoard, rosmsg.DiagError, "cannot stop the wheels"},
		{"no board frame yet", func(s, p *api.State, sup *supervisor.Status) { s.Link.BoardAgeS = nil }, TaskBoard, rosmsg.DiagError, "no board frame"},
		{"checksum errors grew", func(s, p *api.State, sup *supervisor.Status) { s.Link.BadChecksum = 3 }, TaskBoard, rosmsg.DiagWarn, "checksum"},
		{"write errors grew", func(s, p *api.State, sup *supervisor.Status) { s.Link.WriteErrors = 1 }, TaskBoard, rosmsg.DiagError, "writes failing"},
		{"IMU slow", func(s, p *api.State, sup *supervisor.Status) { s.Link.IMUHz = 40 }, TaskIMU, rosmsg.DiagWarn, "40 Hz"},
		{"IMU gone", func(s, p *api.State, sup *supervisor.Status) { s.Link.IMUHz = 0 }, TaskIMU, rosmsg.DiagError, "no IMU"},
		{"gyro calibrating", func(s, p *api.State, sup *supervisor.Status) { s.GyroCalibrating = true }, TaskIMU, rosmsg.DiagWarn, "calibrating"},
		{"scan stale", func(s, p *api.State, sup *supervisor.Status) { s.ScanAgeS = ptr(1.5) }, TaskLidar, rosmsg.DiagError, "scan gate holds"},
		{"no scan since start", func(s, p *api.State, sup *supervisor.Status) { s.ScanAgeS = nil }, TaskLidar, rosmsg.DiagError, "no scan since start"},
		{"no scan, gate off", func(s, p *api.State, sup *supervisor.Status) { s.ScanAgeS, s.Config.ScanTimeoutS = nil, 0 }, TaskLidar, rosmsg.DiagWarn, "gate off"},
		{"LiDAR slow", func(s, p *api.State, sup *supervisor.Status) { s.ScansHz = 5 }, TaskLidar, rosmsg.DiagWarn, "5.0 scans/s"},
		{"no battery report", func(s, p *api.State, sup *supervisor.Status) { s.BatteryMV = 0 }, TaskBattery, rosmsg.DiagWarn, "no battery"},
		{"charger plugged", func(s, p *api.State, sup *supervisor.Status) { s.Plugged = ptr(true) }, TaskBattery, rosmsg.DiagOK, "charger plugged"},
		{"no supervisor", func(s, p *api.State, sup *supervisor.Status) { s.PIDs.Supervisor = 0 }, TaskSupervisor, rosmsg.DiagWarn, "no crash-stop path"},
		{"contact reflex overridden", func(s, p *api.State, sup *supervisor.Status) { s.Contact.Mode = "log" }, TaskContact, rosmsg.DiagWarn, "mode log instead of act"},
		{"contact reflex cannot judge", func(s, p *api.State, sup *supervisor.Status) { s.Contact.Status = "cannot judge: no LiDAR odometry" }, TaskContact, rosmsg.DiagWarn, "cannot judge"},
		{"supervisor status unreadable", nil, TaskSupervisor, rosmsg.DiagWarn, "not readable"},
		{"port gone", func(s, p *api.State, sup *supervisor.Status) {
			sup.Port, sup.Warning = supervisor.PortGone, "NOTHING can stop the wheels"
		}, TaskSupervisor, rosmsg.DiagError, "board port gone: NOTHING"},
		{"watchdog tripped", func(s, p *api.State, sup *supervisor.Status) {
			sup.WatchdogTrips, sup.LastWatchdog, sup.DriverStarts = 1, "driver hung", 2
		}, TaskSupervisor, rosmsg.DiagWarn, "watchdog killed 1 driver(s); last: driver hung"},
		{"driver restarted", func(s, p *api.State, sup *supervisor.Status) {
			sup.DriverStarts, sup.DriverLastExit = 3, "exit status 1"
		}, TaskSupervisor, rosmsg.DiagWarn, "restarted 2 time(s)"},
		{"watchdog off", func(s, p *api.State, sup *supervisor.Status) { sup.Watchdog = "off" }, TaskSupervisor, rosmsg.DiagWarn, "watchdog off"},
		{"supervisor status old", func(s, p *api.State, sup *supervisor.Status) { sup.Updated = s.Stamp.Add(-10 * time.Second) }, TaskSupervisor, rosmsg.DiagWarn, "10 s old"},
		{"recording stopped", func(s, p *api.State, sup *supervisor.Status) {
			sup.Capture.Recording, sup.Capture.Error = false, "no space left on device"
		}, TaskRecording, rosmsg.DiagError, "no space left"},
		{"recording drops", func(s, p *api.State, sup *supervisor.Status) { sup.Capture.Dropped = 5 }, TaskRecording, rosmsg.DiagWarn, "5 messages dropped"},
		{"loop late", func(s, p *api.State, sup *supervisor.Status) { s.Loop.TickP99Ms = 45 }, TaskLoop, rosmsg.DiagWarn, "over 1.5 ticks"},
		{"stop monitor warn", func(s, p *api.State, sup *supervisor.Status) {
			s.StopMonitor.Level, s.StopMonitor.Why = api.StopLevelWarn, "e-stop seq 42 took 0.52 s, past 0.45 s"
		}, TaskStops, rosmsg.DiagWarn, "e-stop seq 42 took 0.52 s"},
		{"stop monitor error, holding", func(s, p *api.State, sup *supervisor.Status) {
			s.StopMonitor.Level, s.StopMonitor.Why, s.StopMonitor.Holding = api.StopLevelError, "3 of the last 5 e-stops past 0.45 s", true
		}, TaskStops, rosmsg.DiagError, "3 of the last 5 e-stops past 0.45 s (enable refused until acknowledged)"},
		{"stop log failing", func(s, p *api.State, sup *supervisor.Status) { s.StopMonitor.LogErr = "no space left on device" }, TaskStops, rosmsg.DiagWarn, "stop log failing: no space left"},
		{"stop monitor unknown level", func(s, p *api.State, sup *supervisor.Status) { s.StopMonitor.Level = "purple" }, TaskStops, rosmsg.DiagWarn, "unknown stop monitor level"},
		{"stop monitor ok", func(s, p *api.State, sup *supervisor.Status) {}, TaskStops, rosmsg.DiagOK, "3 stops timed, 2 held against a limit (campaign floor-envelope-80)"},
		{"bridge restarted", func(s, p *api.State, sup *supervisor.Status) {
			sup.Bridge.Starts, sup.Bridge.LastExit = 2, "pid 19: signal: killed"
		}, TaskBridge, rosmsg.DiagWarn, "restarted; last exit: pid 19: signal: killed"},
		{"bridge failing", func(s, p *api.State, sup *supervisor.Status) {
			sup.Bridge.Healthy, sup.Bridge.Failures, sup.Bridge.LastError = false, 3, "exited at start; last_words: libddsc.so.0: cannot open"
		}, TaskBridge, rosmsg.DiagWarn, "running after 3 failed start(s); last: exited at start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, prev, sup := healthy(), healthy(), healthySup()
			prev.Stamp = s.Stamp.Add(-time.Second)
			prev.Link.Frames = s.Link.Frames - 110
			supp := &sup
			if tc.edit != nil {
				tc.edit(&s, &prev, &sup)
			} else {
				supp = nil
			}
			st := Diagnostics(NodeName, &s, &prev, supp)
			// Without the supervisor's status: no recording and no bridge entry.
			if want := len(diagTasks) - map[bool]int{true: 2}[supp == nil]; len(st) != want {
				t.Fatalf("%d statuses, want %d", len(st), want)
			}
			for _, x := range st {
				want := rosmsg.DiagOK
				if x.Name == NodeName+": "+tc.task {
					want = tc.level
					if !strings.Contains(x.Message, tc.msg) {
						t.Errorf("%s: message %q lacks %q", x.Name, x.Message, tc.msg)
					}
				}
				if x.Level != want {
					t.Errorf("%s: level %d (%s), want %d", x.Name, x.Level, x.Message, want)
				}
			}
		})
	}
}

// TestDiagnosticsValues: the figures a monitor shows, and the hardware ids.
func TestDiagnosticsValues(t *testing.T) {
	s, prev, sup := healthy(), healthy(), healthySup()
	prev.Stamp, prev.Link.Frames = s.Stamp.Add(-time.Second), s.Link.Frames-110
	s.Publishers = []api.Publisher{{PID: 42, Comm: "rosorin-base", Input: "cmd_vel", Streams: 1}}
	st := Diagnostics(NodeName, &s, &prev, &sup)
	b := statusOf(t, st, TaskBoard)
	if value(b, "frames_per_s") != "110" || b.HardwareID != HardwareBoard {
		t.Errorf("board link: frames_per_s %q hardware %q", value(b, "frames_per_s"), b.HardwareID)
	}
	if l := statusOf(t, st, TaskLidar); value(l, "scan_age_s") != "0.050" || l.HardwareID != HardwareLidar {
		t.Errorf("LiDAR: %+v", l)
	}
	g := statusOf(t, st, TaskGate)
	if value(g, "estop") != "none" || value(g, "publishers") != "1" || !strings.Contains(value(g, "publisher_0"), "pid 42") {
		t.Errorf("gate values %+v", g.Values)
	}
	if m := statusOf(t, st, TaskStops); value(m, "mode") != "hold" || value(m, "holding") != "false" || value(m, "stops") != "3" ||
		value(m, "counted") != "2" || value(m, "last_seq") != "41" || value(m, "limits_source") != "campaign floor-envelope-80" || value(m, "log_err") != "" {
		t.Errorf("stop performance values %+v", m.Values)
	}
	// No stop monitor: no such status.
	s.StopMonitor = nil
	for _, x := range Diagnostics(NodeName, &s, nil, nil) {
		if strings.HasSuffix(x.Name, TaskStops) {
			t.Error("a stop performance status without a monitor")
		}
	}
	// No contact reflex: no such status.
	s.Contact = nil
	for _, x := range Diagnostics(NodeName, &s, nil, nil) {
		if strings.HasSuffix(x.Name, TaskContact) {
			t.Error("a contact status without a reflex")
		}
	}
}

// TestDiagnosticsNegative: the mapping fails its test when a latched e-stop is not an ERROR (a mapping that
// ignores the e-stop is caught by the same check TestDiagnostics makes).
func TestDiagnosticsNegative(t *testing.T) {
	s := healthy()
	s.EStop = ptr("contact")
	broken := func(st []rosmsg.DiagnosticStatus) []rosmsg.DiagnosticStatus {
		for i := range st {
			st[i].Level = rosmsg.DiagOK
		}
		return st
	}
	if g := statusOf(t, broken(Diagnostics(NodeName, &s, nil, nil)), TaskGate); g.Level == rosmsg.DiagError {
		t.Fatal("the negative control did not break the mapping")
	}
	if g := statusOf(t, Diagnostics(NodeName, &s, nil, nil), TaskGate); g.Level != rosmsg.DiagError {
		t.Fatalf("a latched e-stop is %d, want ERROR", g.Level)
	}
}

func TestStaleDiagnostics(t *testing.T) {
	st := StaleDiagnostics(NodeName, "driver gone")
	if len(st) != len(diagTasks) {
		t.Fatalf("%d statuses", len(st))
	}
	for _, x := range st {
		if x.Level != rosmsg.DiagStale || x.Message != "driver gone" {
			t.Errorf("%+v", x)
		}
	}
}

func TestROSLevelAndLoggerName(t *testing.T) {
	for l, want := range map[slog.Level]uint8{slog.LevelDebug: 10, slog.LevelInfo: 20, slog.LevelInfo + 2: 20,
		slog.LevelWarn: 30, slog.LevelError: 40, slog.LevelError + 4: 50} {
		if got := ROSLevel(l); got != want {
			t.Errorf("ROSLevel(%v) = %d, want %d", l, got, want)
		}
	}
	for ns, want := range map[string]string{"": "rosorin_board_driver", "/": "rosorin_board_driver",
		"/r1": "r1.rosorin_board_driver", "/a/b": "a.b.rosorin_board_driver"} {
		if got := LoggerName(ns, NodeName); got != want {
			t.Errorf("LoggerName(%q) = %q, want %q", ns, got, want)
		}
	}
}

// TestStaticTransforms: the mounts of the launch files (chapters 12 and 14) with the configured frame ids.
func TestStaticTransforms(t *testing.T) {
	f, err := FramesFrom([]byte(`{"base_frame_id":"base_link","lidar_frame_id":"laser","imu_frame_id":"imu_link","odom_frame_id":"odom","max_linear":0.2}`))
	if err != nil {
		t.Fatal(err)
	}
	m := StaticTransforms(f, time.Unix(1, 0))
	if len(m.Transforms) != 2 {
		t.Fatalf("%d transforms", len(m.Transforms))
	}
	l, i := m.Transforms[0], m.Transforms[1]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if l.Header.FrameID != "base_link" || l.ChildFrameID != "laser" || !near(l.Transform.Translation.X, 0.048156) ||
		!near(l.Transform.Translation.Z, 0.106748) || !near(math.Abs(l.Transform.Rotation.Z), 1) || !near(l.Transform.Rotation.W, 0) {
		t.Errorf("base_link -> laser %+v", l)
	}
	// imu_link: yaw 1.5707, pitch -0.0087266 (tf2_echo on the robot: RPY [-0.000, -0.500, 89.994] degrees).
	q := i.Transform.Rotation
	yaw := math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
	pitch := math.Asin(2 * (q.W*q.Y - q.Z*q.X))
	if i.ChildFrameID != "imu_link" || !near(i.Transform.Translation.X, -0.027258) || math.Abs(yaw*180/math.Pi-89.994) > 0.001 ||
		math.Abs(pitch*180/math.Pi+0.5) > 0.001 {
		t.Errorf("base_link -> imu_link %+v (yaw %.3f pitch %.3f deg)", i, yaw*180/math.Pi, pitch*180/math.Pi)
	}
	if config.LidarMount.Yaw != 3.14159265 {
		t.Error("the LiDAR mount is not the launch file's")
	}
	for _, bad := range []string{`{"base_frame_id":""}`, `[`, `{"lidar_frame_id":3}`} {
		if _, err := FramesFrom([]byte(bad)); err == nil {
			t.Errorf("FramesFrom(%s) accepted", bad)
		}
	}
}

// TestEStopWatchStatus: the watch is OK while it reads; ERROR with the error and for how long while it
// cannot, and ERROR while Cyclone's internals are off.
func TestEStopWatchStatus(t *testing.T) {
	now := time.Unix(2000, 0)
	for _, tc := range []struct {
		name  string
		h     EStopWatchHealth
		level uint8
		says  string
	}{
		{"reading", EStopWatchHealth{Writers: 2}, rosmsg.DiagOK, "watching 2 e-stop writer(s)"},
		{"recovered", EStopWatchHealth{Writers: 1, Errors: 40}, rosmsg.DiagOK, "watching 1"},
		{"read error", EStopWatchHealth{Err: "e-stop reader 0: dds: bad parameter", Since: now.Add(-1500 * time.Millisecond), Errors: 75},
			rosmsg.DiagError, "cannot read the e-stop writers' state for 1.5 s: a lost e-stop sample is not detected"},
		{"internals off", EStopWatchHealth{Off: "the loaded libddsc is Cyclone DDS 0.10.3"}, rosmsg.DiagError, "catch-up off"},
	} {
		st := EStopWatchStatus(NodeName, tc.h, now)
		if st.Level != tc.level || !strings.Contains(st.Message, tc.says) || st.Name != NodeName+": "+TaskEStopWatch {
			t.Errorf("%s: %d %q (%s); want level %d saying %q", tc.name, st.Level, st.Message, st.Name, tc.level, tc.says)
		}
		if tc.h.Err != "" && !strings.Contains(st.Message, tc.h.Err) {
			t.Errorf("%s: the error is not in the message: %q", tc.name, st.Message)
		}
	}
}
