// Command rosorin-base is the ROSOrin board driver: the only program that owns the controller board's port.
// `rosorin-base run` starts the supervisor, which holds the port, runs the driver and the LiDAR reader as
// child processes and writes a stop frame whenever the driver dies. The other subcommands are clients of the
// driver's local control socket, and the last-resort stop-motors tool.
package main

import (
	"fmt"
	"os"

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
		Commands:             append(append(processCommands(), clientCommands()...), ros2Command(), doctorCommand(), stopsCommand()),
		EnableBashCompletion: true,
	}
}

func main() {
	app := newApp()
	if len(os.Args) > 1 { // run, driver, lidar-reader: a profile per process, when ROSORIN_PPROF_DIR asks
		pprofenv.Start(os.Args[1])
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
