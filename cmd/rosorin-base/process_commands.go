package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/rosorin/rosorin/judge/contact"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// processCommands returns run (the supervisor), the hidden driver and lidar-reader child commands, and
// stop-motors and supervisor-status.
func processCommands() []*cli.Command {
	return []*cli.Command{runCommand(), driverCommand(), lidarReaderCommand(), stopMotorsCommand(), supervisorStatusCommand()}
}

func configFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "config", Usage: "ROS-style parameter file(s), later files override earlier ones (repeat the flag; default " + service.DefaultConfig + " if it exists)"}
}

func stateDirFlag() cli.Flag {
	return &cli.StringFlag{Name: "state-dir", Usage: "where the driver keeps the e-stop latch (estop.json: a restart stays latched), runtime limits, plugged.json and the battery logs (default $XDG_STATE_HOME/rosorin)"}
}

// accessFlags are the control socket's roles (driver/api/access.go, docs/driver.md "Roles").
func accessFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "observe-group", Usage: "group whose members may read the state and streams (repeat; default: anyone who can connect to the socket)"},
		&cli.StringSliceFlag{Name: "drive-group", Usage: "group whose members may drive, enable and disable (repeat; default " + api.DefaultDriveGroup + "; the service's user and root hold every role)"},
		&cli.StringSliceFlag{Name: "safety-group", Usage: "group whose members may also reset the e-stop, switch the contact reflex and loosen limits (repeat; default " + api.DefaultSafetyGroup + ")"},
	}
}

// accessGroups returns the three role lists of c's flags (nil: not set, the default).
func accessGroups(c *cli.Context) (observe, drive, safety []string) {
	get := func(name string) []string {
		if !c.IsSet(name) {
			return nil
		}
		v := c.StringSlice(name)
		if v == nil {
			v = []string{}
		}
		return v
	}
	return get("observe-group"), get("drive-group"), get("safety-group")
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
		Flags: append([]cli.Flag{
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
			contactFlag(),
			&cli.DurationFlag{Name: "driver-watchdog", Value: supervisor.DefaultWatchdogTimeout,
				Usage: "a driver whose control loop sends no heartbeat for this long is hung: stop frame, SIGKILL, restart latched (0 = off: a hung driver leaves the wheels turning)"},
			ros2Flag(),
			ros2BridgeFlag(),
			ros2UserFlag(),
		}, append(accessFlags(), captureFlags(false)...)...),
		Action: func(c *cli.Context) error {
			o := service.Options{
				Socket: c.String("socket"), StateDir: c.String("state-dir"), NoLidarRespawn: c.Bool("no-lidar-respawn"),
				RestartDelay: c.Duration("restart-delay"), Watchdog: c.Duration("driver-watchdog"),
				TestNoPdeathsig: c.Bool("test-no-pdeathsig"), TestDriverHoldsBoardEOF: c.Bool("test-driver-holds-board-eof"),
				Log: service.ProcLogger("supervisor"), Contact: c.String("contact"), ROS2: c.Bool("ros2"),
				ROS2Bridge: c.String("ros2-bridge"), ROS2User: c.String("ros2-user"),
			}
			o.ObserveGroups, o.DriveGroups, o.SafetyGroups = accessGroups(c)
			if _, err := contact.ParseMode(o.Contact); err != nil {
				return cli.Exit("rosorin-base run: --contact: "+err.Error(), 2)
			}
			if c.IsSet("config") {
				o.Configs = c.StringSlice("config")
			}
			var err error
			if o.Capture, err = captureOptions(c); err != nil {
				return cli.Exit("rosorin-base run: "+err.Error(), 2)
			}
			if c.IsSet("device") {
				o.Device = ptr(c.String("device"))
			}
			if c.IsSet("lidar") {
				o.Lidar = ptr(c.String("lidar"))
			}
			cleanup, err := applyRunROSArgs(&o)
			defer cleanup()
			if err != nil {
				return cli.Exit("rosorin-base run: "+err.Error(), 2)
			}
			if err := service.Run(c.Context, o); err != nil {
				return cli.Exit("rosorin-base run: "+err.Error(), 1)
			}
			return nil
		},
	}
}

func ptr[T any](v T) *T { return &v }

func contactFlag() cli.Flag {
	return &cli.StringFlag{Name: "contact", Value: "act",
		Usage: "the contact reflex (wheels commanded, the LiDAR odometry sees no motion): act (latch the e-stop), log (report only) or off; docs/contact.md"}
}

func driverCommand() *cli.Command {
	return &cli.Command{
		Name:   "driver",
		Hidden: true,
		Usage:  "the driver child process (started by `rosorin-base run`; the board arrives on fds 3 and 4)",
		Flags: append([]cli.Flag{
			socketFlag(), configFlag(), stateDirFlag(),
			&cli.IntFlag{Name: "supervisor-pid", Usage: "the supervisor's pid, for the state record"},
			&cli.BoolFlag{Name: "test-hold-board-eof", Hidden: true, Usage: "TEST ONLY: see run --test-driver-holds-board-eof"},
			contactFlag(),
		}, accessFlags()...),
		Action: func(c *cli.Context) error {
			co := driver.ChildOptions{
				Socket: c.String("socket"), Configs: c.StringSlice("config"), StateDir: c.String("state-dir"),
				SupervisorPID: c.Int("supervisor-pid"), HoldBoardEOF: c.Bool("test-hold-board-eof"),
				Log: service.ProcLogger("driver"), Contact: c.String("contact"),
			}
			co.ObserveGroups, co.DriveGroups, co.SafetyGroups = accessGroups(c)
			err := driver.RunChild(c.Context, co)
			switch {
			case driver.IsSetupError(err):
				return cli.Exit("rosorin-base driver: "+err.Error(), 2)
			case err != nil:
				return cli.Exit("rosorin-base driver: "+err.Error(), 1)
			}
			return nil
		},
	}
}

func lidarReaderCommand() *cli.Command {
	return &cli.Command{
		Name:   "lidar-reader",
		Hidden: true,
		Usage:  "the LiDAR reader child process (started by `rosorin-base run`)",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "lidar", Value: "/dev/lidar", Usage: "LiDAR serial device"},
			socketFlag(), configFlag(),
		}, captureFlags(true)...),
		Action: func(c *cli.Context) error {
			capt, err := captureOptions(c)
			if err != nil {
				return cli.Exit("rosorin-base lidar-reader: "+err.Error(), 2)
			}
			err = lidar.RunProcess(c.Context, lidar.ProcessConfig{Device: c.String("lidar"), Socket: c.String("socket"),
				Configs: c.StringSlice("config"), Capture: capt, Log: service.ProcLogger("lidar-reader")})
			if err != nil {
				return cli.Exit("rosorin-base lidar-reader: "+err.Error(), 1)
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
			ctx, cancel := service.SignalContext(c.Context)
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
			printCaptureStatus(st.Capture)
			if b := st.Bridge; b != nil {
				if p := b.Problem(); p != "" {
					fmt.Println("WARNING:", p)
				} else {
					fmt.Printf("ROS 2 bridge pid %d running since %s (%d starts, last exit: %s)\n", b.PID,
						b.Since.Format(time.RFC3339), b.Starts, orNone(b.LastExit))
				}
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
