// Command rosorin-base is the ROSOrin board driver: the only program that owns the controller board's port.
// `rosorin-base run` starts the supervisor, which holds the port, runs the driver and the LiDAR reader as
// child processes and writes a stop frame whenever the driver dies. The other subcommands are clients of the
// driver's local control socket, and the last-resort stop-motors tool.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/internal/cliargs"
	"github.com/rosorin/rosorin/internal/pprofenv"
)

func newApp() *cli.App {
	return &cli.App{
		Name:  "rosorin-base",
		Usage: "ROSOrin board driver: safety gate, telemetry, crash-stop supervisor, LiDAR reader",
		// Process commands (supervisor, driver child, LiDAR reader, stop-motors) and client commands
		// (state, enable, drive, ...) live in their own files.
		Commands:             append(append(processCommands(), clientCommands()...), ros2Command()),
		EnableBashCompletion: true,
	}
}

func main() {
	app := newApp()
	if len(os.Args) > 1 { // run, driver, lidar-reader: a profile per process, when ROSORIN_PPROF_DIR asks
		pprofenv.Start(os.Args[1])
		if serviceProcess[os.Args[1]] {
			oneProc()
		}
	}
	// Flags may follow the arguments (`drive 0.1 0 0 --for 3s`): urfave/cli stops at the first argument.
	args, err := splitROSArgs(os.Args) // ros2 launch's `--ros-args ... [--]` (ros_args.go)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-base:", err)
		os.Exit(2)
	}
	if err := app.Run(cliargs.Reorder(args, app)); err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-base:", err)
		os.Exit(1)
	}
}

// serviceProcess names the subcommands that are the long-running processes of the service.
var serviceProcess = map[string]bool{"run": true, "driver": true, "lidar-reader": true}

// oneProc runs the process's goroutines on one P (GOMAXPROCS=1) unless the environment sets GOMAXPROCS. Each
// process of the service does a few percent of one core's work in several hundred short wake-ups a second;
// with a P per core every wake-up also woke an idle P's thread, which spun for work and parked again (the
// scheduler was half of the driver's CPU profile). Side by side, runs alternating (docs/footprint.md): CPU
// x0.87, context switches x0.73, and the e-stop, deadman and SIGINT stop timings no worse. No goroutine of
// these processes computes for long (a scan match is 0.06 ms), so one P delays none noticeably.
func oneProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
