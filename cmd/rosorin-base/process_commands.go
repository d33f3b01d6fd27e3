package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// processCommands returns run (the supervisor), the hidden driver and lidar-reader child commands, and
// stop-motors and supervisor-status.
func processCommands() []*cli.Command {
	return []*cli.Command{runCommand(), driverCommand(), lidarReaderCommand(), stopMotorsCommand(), supervisorStatusCommand()}
}

func configFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "config", Usage: "ROS-style parameter file(s), later files override earlier ones (repeat the flag; default " + defaultConfig + " if it exists)"}
}

func stateDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "state-dir", Usage: "where the driver keeps plugged.json and the battery logs (default $XDG_STATE_HOME/rosorin)"}
}

// procLogger logs text lines to stderr (the journal under systemd) tagged with the process's role and pid:
// the supervisor and its children share one journal stream.
func procLogger(role string) *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, nil)).With("proc", role, "pid", os.Getpid())
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the driver service: hold the board port, run the driver and the LiDAR reader, stop the wheels whenever the driver dies",
		Description: "The supervisor opens the board exclusively (TIOCEXCL plus flock), writes a stop frame, and runs the driver and\n" +
			"the LiDAR reader as child processes of this same binary. When the driver exits for any reason, a stop frame\n" +
			"follows within milliseconds and the driver restarts with its e-stop latched (rosorin-base reset, then enable;\n" +
			"only the first driver of the service, or the successor of one that exited cleanly and unlatched, starts merely\n" +
			"disabled). A driver that is alive but hung (its control loop sends no heartbeat for --driver-watchdog) is\n" +
			"killed: stop frame at once, again after the reap, restart latched. Board bytes are also served raw on\n" +
			"SOCKET.raw, status in SOCKET.status. SIGINT/SIGTERM: children stopped, two stop frames, exit 0.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Usage: "board serial device (overrides the config's device)"},
			&cli.StringFlag{Name: "lidar", Value: "/dev/lidar", Usage: `LiDAR serial device, overrides the config's lidar_device ("" runs no reader: the scan gate then holds software commands)`},
			socketFlag(),
			configFlag(),
			stateDirFlag(),
			&cli.BoolFlag{Name: "no-lidar-respawn", Usage: "leave a dead LiDAR reader dead (negative control for the scan-gate proof)"},
			&cli.DurationFlag{Name: "restart-delay", Value: 500 * time.Millisecond, Usage: "pause before a dead driver restarts"},
			&cli.BoolFlag{Name: "test-no-pdeathsig", Hidden: true,
				Usage: "TEST ONLY: start the driver without its parent-death signal (negative control of the supervisor-death test)"},
			&cli.BoolFlag{Name: "test-driver-holds-board-eof", Hidden: true,
				Usage: "TEST ONLY: the driver ignores the end of its board pipe (so the parent-death signal is its only news of the supervisor's death)"},
			&cli.DurationFlag{Name: "driver-watchdog", Value: supervisor.DefaultWatchdogTimeout,
				Usage: "a driver whose control loop sends no heartbeat for this long is hung: stop frame, SIGKILL, restart latched (0 = off: a hung driver leaves the wheels turning)"},
		},
		Action: func(c *cli.Context) error {
			log := procLogger("supervisor")
			wdog := c.Duration("driver-watchdog")
			if wdog < 0 {
				return cli.Exit("rosorin-base run: --driver-watchdog must be 0 (off) or positive", 1)
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			// The configuration is checked here, before the port: a wrong type is a clear error at start, not a
			// driver child that exits and restarts forever.
			configs := resolveConfigs(c, log)
			cfg, err := loadConfig(configs, log)
			if err != nil {
				return cli.Exit("rosorin-base run: "+err.Error(), 1)
			}
			device, lidarDev := cfg.Device, cfg.LidarDevice
			if c.IsSet("device") {
				device = c.String("device")
			}
			if c.IsSet("lidar") {
				lidarDev = c.String("lidar")
			}
			sock := c.String("socket")
			common := []string{"--socket", sock}
			for _, f := range configs {
				common = append(common, "--config", f)
			}
			dargs := append([]string{"driver", "--supervisor-pid", strconv.Itoa(os.Getpid())}, common...)
			if d := c.String("state-dir"); d != "" {
				dargs = append(dargs, "--state-dir", d)
			}
			if c.Bool("test-driver-holds-board-eof") {
				dargs = append(dargs, "--test-hold-board-eof")
			}
			var rargs []string
			if lidarDev != "" {
				rargs = append([]string{"lidar-reader", "--lidar", lidarDev}, common...)
			} else {
				log.Warn("no LiDAR reader (--lidar \"\"): the scan gate holds software commands; only gamepad driving moves the wheels")
			}
			noRespawn := c.Bool("no-lidar-respawn") || !cfg.LidarRespawn
			if c.Bool("test-no-pdeathsig") {
				log.Warn("TEST ONLY --test-no-pdeathsig: the driver has no parent-death signal")
			}
			if c.Bool("test-driver-holds-board-eof") {
				log.Warn("TEST ONLY --test-driver-holds-board-eof: the driver ignores the end of its board pipe")
			}
			if wdog == 0 {
				log.Warn("driver watchdog OFF (--driver-watchdog 0): a hung driver leaves the wheels at their last speed")
			} else if wdog < 60*time.Millisecond {
				// Three ticks at 50 Hz: below that a GC pause or a busy CPU would kill healthy drivers.
				log.Warn("driver watchdog below 3 control ticks: expect healthy drivers to be killed", "driver_watchdog", wdog)
			}
			err = supervisor.Run(ctx, supervisor.Config{
				Device: device, Socket: sock, DriverArgs: dargs, ReaderArgs: rargs,
				RestartDelay: c.Duration("restart-delay"), ReaderRespawnDelay: cfg.LidarRespawnDelay(),
				NoReaderRespawn: noRespawn, WatchdogTimeout: wdog, NoWatchdog: wdog == 0, Log: log,
				NoDriverPdeathsig: c.Bool("test-no-pdeathsig"),
			})
			if err != nil {
				return cli.Exit("rosorin-base run: "+err.Error(), 1)
			}
			return nil
		},
	}
}

func driverCommand() *cli.Command {
	return &cli.Command{
		Name:   "driver",
		Hidden: true,
		Usage:  "the driver child process (started by `rosorin-base run`; the board arrives on fds 3 and 4)",
		Flags: []cli.Flag{
			socketFlag(), configFlag(), stateDirFlag(),
			&cli.IntFlag{Name: "supervisor-pid", Usage: "the supervisor's pid, for the state record"},
			&cli.BoolFlag{Name: "test-hold-board-eof", Hidden: true, Usage: "TEST ONLY: see run --test-driver-holds-board-eof"},
		},
		Action: func(c *cli.Context) error {
			supervisor.SetProcName("rosorin-driver")
			log := procLogger("driver")
			in, out, err := supervisor.ChildBoard()
			if err != nil {
				return cli.Exit("rosorin-base driver: "+err.Error(), 2)
			}
			// The control loop's heartbeat for the supervisor's watchdog. A nil *HeartbeatWriter must stay a
			// nil io.Writer (no heartbeat), not a non-nil interface holding nil.
			var heartbeat io.Writer
			if hb, err := supervisor.ChildHeartbeat(); err != nil {
				return cli.Exit("rosorin-base driver: "+err.Error(), 2)
			} else if hb != nil {
				heartbeat = hb
			}
			// Every later non-stop write is refused once halted: the stop frame written on a signal is the last
			// thing the board hears, even if the control loop had one more motor frame in flight.
			hw := supervisor.NewHaltWriter(out)
			ctx, cancel := context.WithCancel(c.Context)
			defer cancel()
			ppid := os.Getppid()
			sigs := make(chan os.Signal, 1)
			// SIGTERM is also the parent-death signal (PR_SET_PDEATHSIG): the supervisor is gone, and with it the
			// crash-stop path; this process is the last one that can stop the wheels, so it does it first.
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			go func() {
				select {
				case s := <-sigs:
					herr := hw.Halt()
					why := "stop requested"
					if s == syscall.SIGTERM && parentGone(ppid, 50*time.Millisecond) {
						why = "supervisor died (parent-death signal)"
					}
					if herr != nil {
						log.Error("signal: stop frame FAILED", "signal", s, "why", why, "err", herr)
					} else {
						log.Warn("signal: stop frame written; stopping", "signal", s, "why", why)
					}
					cancel()
				case <-ctx.Done():
				}
			}()
			var boardIn io.Reader = in
			if c.Bool("test-hold-board-eof") {
				boardIn = heldEOF{r: in, ctx: ctx}
			}
			runErr := runDriver(ctx, driverParams{
				in: boardIn, out: hw, heartbeat: heartbeat, socket: c.String("socket"), configs: c.StringSlice("config"),
				stateDir: c.String("state-dir"), supervisorPID: c.Int("supervisor-pid"), log: log,
				// A restart after a crash, kill, hang or USB drop (or of a latched driver) starts latched.
				startLatched: supervisor.ChildStartLatched(),
			})
			if herr := hw.Halt(); herr != nil {
				log.Error("final stop frame failed", "err", herr)
			}
			if runErr != nil && ctx.Err() == nil {
				return cli.Exit("rosorin-base driver: "+runErr.Error(), 1)
			}
			return nil
		},
	}
}

// heldEOF hides the end of the board input until ctx ends. TEST ONLY (--test-hold-board-eof): the driver has
// two ways of noticing that its supervisor died, the parent-death signal and its board pipe's end of file
// (the supervisor holds the only write end); holding the second back lets a test see the first alone, or,
// with --test-no-pdeathsig as well, neither (the negative control: the wheels keep their last speed).
type heldEOF struct {
	r   io.Reader
	ctx context.Context
}

func (h heldEOF) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err != nil && n == 0 {
		<-h.ctx.Done()
	}
	if n > 0 {
		err = nil
	}
	return n, err
}

// parentGone reports whether this process's parent is no longer ppid, waiting up to wait for it to change. Why
// wait: the parent-death signal is sent when the supervisor's forking thread exits, and the kernel first
// hands its children to a sibling thread of the same, still dying process; getppid changes only when the
// supervisor's last thread is gone, a moment later. Asked at once, a driver whose supervisor was killed
// mostly read its old parent and logged "stop requested". The stop frame is written before this wait.
func parentGone(ppid int, wait time.Duration) bool {
	for end := time.Now().Add(wait); ; time.Sleep(time.Millisecond) {
		if os.Getppid() != ppid {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

type driverParams struct {
	in            io.Reader
	out           io.Writer
	heartbeat     io.Writer // nil: none
	socket        string
	configs       []string
	stateDir      string
	supervisorPID int
	startLatched  string // "": disabled only
	log           *slog.Logger
}

func lidarReaderCommand() *cli.Command {
	return &cli.Command{
		Name:   "lidar-reader",
		Hidden: true,
		Usage:  "the LiDAR reader child process (started by `rosorin-base run`)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lidar", Value: "/dev/lidar", Usage: "LiDAR serial device"},
			socketFlag(), configFlag(),
		},
		Action: func(c *cli.Context) error {
			// The name is half of what lets the driver take our scans (api.ReaderComm; the other half is our
			// parent, the supervisor): see driver/scanauth.go.
			supervisor.SetProcName(api.ReaderComm)
			log := procLogger("lidar-reader")
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			cfg, _, err := config.Load(c.StringSlice("config")...)
			if err != nil {
				return cli.Exit("rosorin-base lidar-reader: "+err.Error(), 1)
			}
			scfg := coind6.ScanConfig{Bins: coind6.DefaultBins, Clockwise: cfg.Clockwise, OffsetDeg: cfg.AngleOffsetDeg,
				RangeMin: cfg.RangeMin, RangeMax: cfg.RangeMax}
			cl := api.NewClient(c.String("socket"))
			fw := lidar.NewForwarder(func(ctx context.Context) (lidar.ScanStream, error) {
				return cl.StreamScans(ctx)
			}, cfg.LidarFrameID, log)
			r := lidar.New(lidar.Config{Device: c.String("lidar"), Scan: scfg, Silence: cfg.ReopenAfterSilence(), Log: log})
			fwDone := make(chan struct{})
			fctx, fcancel := context.WithCancel(context.Background())
			go func() { defer close(fwDone); _ = fw.Run(fctx) }()
			err = r.Run(ctx, fw.Offer)
			fcancel()
			<-fwDone
			st := r.Stats()
			sent, dropped, _ := fw.Counts()
			log.Info("LiDAR reader stopped", "scans", st.Scans, "sent", sent, "dropped", dropped, "reopens", st.Reopens,
				"bad_checksum", st.Parser.BadChecksum)
			if err != nil {
				// The supervisor respawns us in about 2 s; meanwhile the driver's scan gate holds the wheels.
				return cli.Exit("rosorin-base lidar-reader: "+err.Error()+"; exiting for a respawn", 1)
			}
			return nil
		},
	}
}

func stopMotorsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stop-motors",
		Usage: "write the stop frame to the board directly (systemd ExecStopPost; the last resort when the driver is gone)",
		Description: "Opens the board port without lock or exclusivity (it must not lock out the driver systemd starts next),\n" +
			"retries every 0.2 s while the device is missing or busy, writes three stop frames and says how long it took.\n" +
			"While a non-root driver owns the port this cannot open it: it is a tool for when the driver is gone.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Usage: "board serial device"},
			&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "keep retrying the open this long (a USB drop re-enumerates in seconds)"},
		},
		Action: func(c *cli.Context) error {
			ctx, cancel := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer cancel()
			el, err := supervisor.StopMotors(ctx, supervisor.StopMotorsConfig{
				Device: c.String("device"), Wait: c.Duration("wait"), Warn: os.Stderr,
			})
			if err != nil {
				return cli.Exit("stop-motors: "+err.Error(), 1)
			}
			fmt.Printf("stop-motors: stop frame sent x3 (after %.1f s)\n", el.Seconds())
			return nil
		},
	}
}

func supervisorStatusCommand() *cli.Command {
	return &cli.Command{
		Name:  "supervisor-status",
		Usage: "print the supervisor's status (board port open or GONE, driver and reader pids, stop frames); works while the driver is down",
		Flags: []cli.Flag{socketFlag(), &cli.BoolFlag{Name: "json", Usage: "print the JSON record"}},
		Action: func(c *cli.Context) error {
			st, err := supervisor.ReadStatus(c.String("socket"))
			if err != nil {
				return cli.Exit("rosorin-base supervisor-status: "+err.Error(), 1)
			}
			if c.Bool("json") {
				b, _ := json.MarshalIndent(st, "", "  ")
				fmt.Println(string(b))
				return nil
			}
			age := time.Since(st.Updated).Seconds()
			fmt.Printf("supervisor pid %d, board %s %s since %s; driver pid %d (%d starts, last exit: %s); lidar reader pid %d (%d starts); %d stop frames (last: %s); status %.1f s old\n",
				st.PID, st.Device, st.Port, st.PortSince.Format(time.RFC3339), st.DriverPID, st.DriverStarts,
				orNone(st.DriverLastExit), st.ReaderPID, st.ReaderStarts, st.StopFrames, orNone(st.LastStop), age)
			hbAge := "none yet"
			if !st.LastHeartbeatAt.IsZero() {
				hbAge = fmt.Sprintf("%.0f ms before the status", st.Updated.Sub(st.LastHeartbeatAt).Seconds()*1000)
			}
			if st.DriverStartLatched != "" {
				fmt.Printf("driver started with the e-stop latched: %s (rosorin-base reset clears it)\n", st.DriverStartLatched)
			}
			fmt.Printf("driver watchdog %s: %d trips (last: %s), %d late wakes; driver heartbeats %d, last %s, longest gap %.1f ms\n",
				st.Watchdog, st.WatchdogTrips, orNone(st.LastWatchdog), st.WatchdogLateWakes, st.DriverHeartbeats, hbAge,
				st.DriverHeartbeatMaxGapMS)
			if st.Warning != "" {
				fmt.Println("WARNING:", st.Warning)
			}
			if st.Port != supervisor.PortClosed && age > 3 {
				fmt.Println("WARNING: the status is stale: the supervisor is not running or is stuck")
			}
			return nil
		},
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// defaultConfig is read by `run` when --config is not given and the file exists; otherwise the built-in
// defaults (chapter 11's parameter table) apply.
const defaultConfig = "/etc/rosorin/base.yaml"

// resolveConfigs returns the parameter files every process of the service loads: the --config list, or the
// default file if it exists.
func resolveConfigs(c *cli.Context, log *slog.Logger) []string {
	if c.IsSet("config") {
		return c.StringSlice("config")
	}
	if _, err := os.Stat(defaultConfig); err == nil {
		return []string{defaultConfig}
	}
	log.Info("no --config and no " + defaultConfig + ": using the built-in defaults (chapter 11's parameter table)")
	return nil
}

// loadConfig loads the files and logs what was ignored (arm keys at info, anything else as a warning).
func loadConfig(paths []string, log *slog.Logger) (config.Config, error) {
	cfg, notes, err := config.Load(paths...)
	if err != nil {
		return cfg, err
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
	return cfg, nil
}

func runDriver(ctx context.Context, p driverParams) error {
	cfg, _, err := config.Load(p.configs...)
	if err != nil {
		return err
	}
	return driver.Run(ctx, driver.Options{
		Config: cfg, BoardIn: p.in, BoardOut: p.out, Heartbeat: p.heartbeat, SocketPath: p.socket,
		SupervisorPID: p.supervisorPID, StateDir: p.stateDir, Log: p.log, StartLatched: p.startLatched,
	})
}
