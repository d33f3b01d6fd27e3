package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// StatusPath returns the supervisor's status file for a driver control socket. The supervisor rewrites it
// atomically on every change and every second; it is how clients learn that the board port is gone or the
// driver is down while the driver's own socket is silent.
func StatusPath(socket string) string { return socket + ".status" }

// Port states in Status.Port.
const (
	PortOpen   = "open"   // held by the supervisor; the driver child writes to it
	PortGone   = "gone"   // the device vanished (USB drop); reopening every 10 ms; NOTHING can stop the wheels
	PortClosed = "closed" // the supervisor has shut down
)

// Status is the supervisor's status record.
type Status struct {
	PID       int       `json:"pid"`
	Device    string    `json:"device"`
	Port      string    `json:"port"`
	PortSince time.Time `json:"port_since"`
	// Warning is set while the board cannot be stopped (port gone), in words for a person.
	Warning string `json:"warning,omitempty"`

	DriverPID      int    `json:"driver_pid"` // 0 while no driver child runs
	DriverStarts   int    `json:"driver_starts"`
	DriverLastExit string `json:"driver_last_exit,omitempty"`
	// DriverStartLatched is the e-stop reason the current driver was started latched with ("": not latched;
	// the first driver of a service never is). See restartLatch in policy.go.
	DriverStartLatched string `json:"driver_start_latched,omitempty"`
	ReaderPID          int    `json:"reader_pid"` // 0 while no LiDAR reader runs
	ReaderStarts       int    `json:"reader_starts"`
	ReaderLastExit     string `json:"reader_last_exit,omitempty"`

	// Watchdog is the driver watchdog's timeout ("150ms") or "off"; WatchdogTrips counts the drivers it killed,
	// LastWatchdog says why it killed the last one.
	Watchdog      string `json:"watchdog"`
	WatchdogTrips uint64 `json:"watchdog_trips"`
	LastWatchdog  string `json:"last_watchdog,omitempty"`
	// WatchdogLateWakes counts the times a silent driver got more time because the supervisor itself woke
	// late (the machine stalled; watchdog.go).
	WatchdogLateWakes uint64 `json:"watchdog_late_wakes"`
	// DriverHeartbeats counts the current driver's control-loop heartbeats (50 per second while it runs);
	// LastHeartbeatAt is when the last one was read; DriverHeartbeatMaxGapMS is the longest interval between
	// two of them (ideal 20 ms): the margin left to the watchdog's timeout on this machine.
	DriverHeartbeats        uint64    `json:"driver_heartbeats"`
	LastHeartbeatAt         time.Time `json:"last_heartbeat_at,omitzero"`
	DriverHeartbeatMaxGapMS float64   `json:"driver_heartbeat_max_gap_ms"`

	// Capture is the board's recording (--capture): recording false with the error once it stopped.
	Capture *CaptureStatus `json:"capture,omitempty"`
	// Bridge is the ROS 2 bridge child (run --ros2; absent without it).
	Bridge *BridgeStatus `json:"ros2_bridge,omitempty"`

	StopFrames uint64    `json:"stop_frames"` // written by the supervisor itself (the driver's are not counted)
	LastStop   string    `json:"last_stop,omitempty"`
	LastStopAt time.Time `json:"last_stop_at,omitzero"`

	BoardBytes         uint64 `json:"board_bytes"`          // read from the board since start
	DriverDroppedBytes uint64 `json:"driver_dropped_bytes"` // board bytes a hung driver did not take
	RawClients         int    `json:"raw_clients"`
	RawDroppedClients  uint64 `json:"raw_dropped_clients"` // disconnected for reading too slowly

	Updated time.Time `json:"updated"`
}

// BridgeStatus is the ROS 2 bridge child as the service sees it: running or not, and why not.
type BridgeStatus struct {
	// Running: a bridge process runs now (PID, since Since, as User); Healthy: it has run for the service's
	// healthy time without exiting.
	Running bool      `json:"running"`
	Healthy bool      `json:"healthy"`
	PID     int       `json:"pid,omitempty"`
	User    string    `json:"user,omitempty"`
	Since   time.Time `json:"since,omitzero"`
	Starts  int       `json:"starts"`
	// Failures counts the starts in a row that did not last (0 once one lasts); LastExit is how the last
	// bridge ended, LastError the failure in words with its last words ("" when none).
	Failures  int    `json:"failures"`
	LastExit  string `json:"last_exit,omitempty"`
	LastError string `json:"last_error,omitempty"`
}

// Problem says what is wrong with the bridge in words for a person, "" when it runs and has lasted.
func (b *BridgeStatus) Problem() string {
	switch {
	case b == nil, !b.Running && b.Starts == 0 && b.LastError == "": // none, or not started yet
		return ""
	case !b.Running && b.LastError != "":
		return fmt.Sprintf("ROS 2 bridge DOWN (%d failures in a row): %s", b.Failures, b.LastError)
	case !b.Running:
		return "ROS 2 bridge DOWN: " + b.LastExit
	case b.Failures > 0 && !b.Healthy:
		return fmt.Sprintf("ROS 2 bridge restarting after %d failures: %s", b.Failures, b.LastError)
	}
	return ""
}

// ReadStatus reads the status file of the supervisor serving socket.
func ReadStatus(socket string) (Status, error) {
	var s Status
	b, err := os.ReadFile(StatusPath(socket))
	if err != nil {
		return s, fmt.Errorf("supervisor status: %w (is `rosorin-base run` running with --socket %s?)", err, socket)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("supervisor status %s: %w", StatusPath(socket), err)
	}
	return s, nil
}

// writeStatus replaces the status file atomically (write a temporary file, rename), so readers never see half a
// record.
func writeStatus(path string, s Status) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

func (s *supervisor) writeStatus() {
	count, last, at := s.stop.stats()
	st := Status{
		PID: os.Getpid(), Device: s.cfg.Device, Port: s.portState, PortSince: s.portSince,
		DriverStarts: s.driverStarts, DriverLastExit: s.driverLastExit, DriverStartLatched: s.startLatched,
		ReaderStarts: s.readerStarts, ReaderLastExit: s.readerExit,
		StopFrames: count, LastStop: last, LastStopAt: at,
		BoardBytes: s.tee.bytes.Load(), DriverDroppedBytes: s.tee.driverDrops.Load(),
		RawClients: int(s.tee.rawSinks.Load()), RawDroppedClients: s.tee.droppedRaw.Load(),
		Updated: s.clk.Now(),
	}
	if s.driver != nil {
		st.DriverPID = s.driver.pid
		st.DriverHeartbeats = s.driver.beats.Load()
		st.DriverHeartbeatMaxGapMS = float64(s.driver.maxGap.Load()/1000) / 1000
		if ns := s.driver.lastBeat.Load(); ns != 0 {
			st.LastHeartbeatAt = time.Unix(0, ns)
		}
	}
	st.Watchdog = "off"
	if !s.cfg.NoWatchdog {
		st.Watchdog = s.cfg.WatchdogTimeout.String()
	}
	st.WatchdogTrips = s.watchdogTrips.Load()
	st.WatchdogLateWakes = s.watchdogLate.Load()
	if w := s.lastWatchdog.Load(); w != nil {
		st.LastWatchdog = *w
	}
	if s.reader != nil {
		st.ReaderPID = s.reader.pid
	}
	if s.capture != nil {
		cs := s.capture.Status()
		st.Capture = &CaptureStatus{QueueStatus: cs, TxTapLost: s.tapLost.Load()}
	}
	if s.cfg.Bridge != nil {
		st.Bridge = s.cfg.Bridge()
	}
	if s.portState == PortGone {
		st.Warning = "board port " + s.cfg.Device + " gone for " +
			strconv.FormatFloat(s.clk.Now().Sub(s.portSince).Seconds(), 'f', 1, 64) +
			" s: the wheels keep their last speed and nothing can stop them until it returns"
	}
	if err := writeStatus(StatusPath(s.cfg.Socket), st); err != nil && s.portState != PortClosed {
		s.log.Debug("status file", "err", err)
	}
}
