// Package service is `rosorin-base run` and the signals of the client commands: it turns the command line
// into the supervisor's configuration (driver/supervisor) and the two child command lines (the driver,
// driver.RunChild, and the LiDAR reader, lidar.RunProcess), and checks what a wrong flag would make unsafe
// before the port is touched.
package service

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// DefaultConfig is read when no --config is given and the file exists; otherwise the built-in defaults
// (chapter 11's parameter table) apply.
const DefaultConfig = "/etc/rosorin/base.yaml"

// Options are `rosorin-base run`'s flags. Device and Lidar override the configuration's device and
// lidar_device when set (nil: the configuration's).
type Options struct {
	Device, Lidar  *string
	Socket         string
	Configs        []string // nil: DefaultConfig if it exists
	StateDir       string
	NoLidarRespawn bool
	RestartDelay   time.Duration
	// Watchdog is the driver watchdog's timeout (0 = off).
	Watchdog time.Duration
	// TestNoPdeathsig and TestDriverHoldsBoardEOF are the negative controls of the supervisor-death test.
	TestNoPdeathsig, TestDriverHoldsBoardEOF bool
	// Capture, when set (--capture DIR), makes the supervisor and the LiDAR reader record their ports.
	Capture *segment.SegmentOptions
	// Contact is the driver's contact reflex mode (act, log, off; "" = the driver's default, act).
	Contact string
	// ObserveGroups, DriveGroups and SafetyGroups are the control socket's roles, passed to the driver (nil:
	// the driver's defaults, api.DefaultAccess).
	ObserveGroups, DriveGroups, SafetyGroups []string
	// ROS2 runs the ROS 2 bridge child (ros2.go); it takes the ROS variables from the environment.
	ROS2 bool
	// ROS2Bridge is --ros2-bridge: the bridge binary ("" = FindBridge's choice: beside rosorin-base, or $PATH).
	ROS2Bridge string
	// ROS2User is --ros2-user: the bridge runs as this user (name or uid) with its groups ("" = the service's
	// own). The service needs CAP_SETUID and CAP_SETGID for it (deploy/ros2.conf).
	ROS2User string
	// BridgeParams are the bridge's own parameters (config.BridgeKeys) from `run --ros-args` (-p, params
	// files), which win over the --config files' values.
	BridgeParams map[string]bool
	// BridgeArgs are added to the bridge child's command line (the ROS arguments' namespace, node name and
	// remaps: cmd/rosorin-base ros_args.go).
	BridgeArgs []string
	Log        *slog.Logger
	// Clock is the service's time: the supervisor's and the bridge's (clock.Real{}).
	Clock clock.Full
}

// clk is o.Clock, or clock.Real{}.
func (o Options) clk() clock.Full {
	if o.Clock == nil {
		return clock.Real{}
	}
	return o.Clock
}

// ErrWatchdog is returned for a negative watchdog timeout.
var ErrWatchdog = errors.New("--driver-watchdog must be 0 (off) or positive")

// Run is the service until SIGINT, SIGTERM or SIGHUP (or ctx): the supervisor and its two children. The
// configuration is checked here, before the port: a wrong type is a clear error at start, not a driver child
// that exits and restarts forever.
func Run(ctx context.Context, o Options) error {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	if o.Watchdog < 0 {
		return ErrWatchdog
	}
	ctx, stop := SignalContext(ctx, syscall.SIGHUP)
	defer stop()
	configs := ResolveConfigs(o.Configs, log)
	cfg, notes, err := loadConfig(configs, log)
	if err != nil {
		return err
	}
	if o.ROS2 {
		o.BridgeArgs = append(o.BridgeArgs, BridgeParamArgs(o.BridgeParams, notes.BridgeParams())...)
	}
	device, lidarDev := cfg.Device, cfg.LidarDevice
	if o.Device != nil {
		device = *o.Device
	}
	if o.Lidar != nil {
		lidarDev = *o.Lidar
	}
	if o.Capture != nil {
		if err := checkCaptureDir(o.Capture.Dir); err != nil {
			return err
		}
		o.Capture.Metadata = captureMetadata(cfg, configs)
		o.Capture.Static = captureStatic(cfg)
		log.Info("capture: recording the board and the LiDAR", "dir", o.Capture.Dir)
	}
	dargs, rargs := ChildArgs(o, configs, lidarDev, os.Getpid())
	if rargs == nil {
		log.Warn("no LiDAR reader (--lidar \"\"): the scan gate holds software commands; only gamepad driving moves the wheels")
	}
	if o.TestNoPdeathsig {
		log.Warn("TEST ONLY --test-no-pdeathsig: the driver has no parent-death signal")
	}
	if o.TestDriverHoldsBoardEOF {
		log.Warn("TEST ONLY --test-driver-holds-board-eof: the driver ignores the end of its board pipe")
	}
	if o.Watchdog == 0 {
		log.Warn("driver watchdog OFF (--driver-watchdog 0): a hung driver leaves the wheels at their last speed")
	} else if o.Watchdog < 60*time.Millisecond {
		// Three ticks at 50 Hz: below that a GC pause or a busy CPU would kill healthy drivers.
		log.Warn("driver watchdog below 3 control ticks: expect healthy drivers to be killed", "driver_watchdog", o.Watchdog)
	}
	var bridge func() *supervisor.BridgeStatus
	if o.ROS2 {
		var feed *bridgeLog
		log, feed = teeToBridge(ctx, log) // the supervisor's lines on /rosout (ros2log.go)
		var wait func()
		wait, bridge = startBridge(ctx, o, log, feed)
		defer wait()
	}
	return supervisor.Run(ctx, supervisor.Config{
		Device: device, Socket: o.Socket, DriverArgs: dargs, ReaderArgs: rargs,
		RestartDelay: o.RestartDelay, ReaderRespawnDelay: cfg.LidarRespawnDelay(),
		NoReaderRespawn: o.NoLidarRespawn || !cfg.LidarRespawn, WatchdogTimeout: o.Watchdog, NoWatchdog: o.Watchdog == 0,
		Log: log, NoDriverPdeathsig: o.TestNoPdeathsig, Capture: o.Capture, Bridge: bridge, Clock: o.clk(),
	})
}

// ChildArgs returns the command lines (after the program name) of the driver child and the LiDAR reader
// child (nil: no reader, lidarDev is ""), which load the same parameter files as the service.
func ChildArgs(o Options, configs []string, lidarDev string, supervisorPID int) (driver, reader []string) {
	common := []string{"--socket", o.Socket}
	for _, f := range configs {
		common = append(common, "--config", f)
	}
	driver = append([]string{"driver", "--supervisor-pid", strconv.Itoa(supervisorPID)}, common...)
	if o.StateDir != "" {
		driver = append(driver, "--state-dir", o.StateDir)
	}
	if o.TestDriverHoldsBoardEOF {
		driver = append(driver, "--test-hold-board-eof")
	}
	if o.Contact != "" {
		driver = append(driver, "--contact", o.Contact)
	}
	for _, g := range []struct {
		flag   string
		groups []string
	}{{"--observe-group", o.ObserveGroups}, {"--drive-group", o.DriveGroups}, {"--safety-group", o.SafetyGroups}} {
		for _, n := range g.groups {
			driver = append(driver, g.flag, n)
		}
	}
	if lidarDev != "" {
		reader = append(append([]string{"lidar-reader", "--lidar", lidarDev}, common...), captureArgs(o.Capture)...)
	}
	return driver, reader
}

// SignalContext ends on SIGINT or SIGTERM (and the extra signals), so that long-running commands (the
// service, followers, drive, stop-motors) end cleanly.
func SignalContext(parent context.Context, extra ...os.Signal) (context.Context, context.CancelFunc) {
	if parent == nil {
		parent = context.Background()
	}
	return signal.NotifyContext(parent, append([]os.Signal{os.Interrupt, syscall.SIGTERM}, extra...)...)
}

// ResolveConfigs returns the parameter files every process of the service loads: the given list, or
// DefaultConfig if it exists.
func ResolveConfigs(configs []string, log *slog.Logger) []string {
	if configs != nil {
		return configs
	}
	if _, err := os.Stat(DefaultConfig); err == nil {
		return []string{DefaultConfig}
	}
	log.Info("no --config and no " + DefaultConfig + ": using the built-in defaults (chapter 11's parameter table)")
	return nil
}

// LoadConfig loads the files and logs what was ignored (arm keys at info, anything else as a warning).
func LoadConfig(paths []string, log *slog.Logger) (config.Config, error) {
	cfg, _, err := loadConfig(paths, log)
	return cfg, err
}

func loadConfig(paths []string, log *slog.Logger) (config.Config, config.Notes, error) {
	cfg, notes, err := config.Load(paths...)
	if err != nil {
		return cfg, notes, err
	}
	for _, n := range notes {
		if n.Warning() {
			log.Warn("config: " + n.String())
		} else {
			log.Debug("config: " + n.String())
		}
	}
	if ign := notes.Ignored(); len(ign) > 0 {
		log.Info("config: arm parameters ignored (the arm is not this driver's business)", "count", len(ign))
	}
	return cfg, notes, nil
}

// BridgeParamArgs returns the bridge's command-line flags for its parameters (config.BridgeKeys) set true:
// those of the ROS arguments (ros, from `run --ros-args`, which win) over those of the --config files. A
// parameter set false adds nothing: false is the bridge's default.
func BridgeParamArgs(ros, files map[string]bool) []string {
	var args []string
	for _, k := range []string{"allow_graph_enable", "allow_graph_reset"} {
		v, ok := ros[k]
		if !ok {
			v = files[k]
		}
		if v {
			args = append(args, "--"+strings.ReplaceAll(k, "_", "-"))
		}
	}
	return args
}

// ProcLogger logs text lines to stderr (the journal under systemd) tagged with the process's role and pid:
// the supervisor and its children share one journal stream.
func ProcLogger(role string) *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel})).With("proc", role, "pid", os.Getpid())
}
