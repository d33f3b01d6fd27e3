package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/rig"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "bring-up checks: the board's device, permissions, who holds the port, the board and LiDAR talking, the service, ROS 2, the clock, the disk; PASS/WARN/FAIL with the fix",
		Description: `Each check in the order a person would look, with what it measured and, short of PASS, the fix. The
doctor only listens: it opens a free board port read-only and never writes a frame. A port the driver holds is
judged from the driver's own counters instead (--socket).

Exit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 the doctor could not run.

   rosorin-base doctor                                  (the robot: /dev/ttyACM0, /dev/lidar, the service)
   rosorin-base doctor --device /tmp/sim/ttyACM0 --lidar /tmp/sim/lidar --unit ""   (the simulator's ptys)
   rosorin-base doctor --json > doctor.json
   rosorin-base doctor --rig /etc/rosorin/rig.yaml                (the rig file's devices; flags beside it override it)`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rig", Usage: "the robot's rig `FILE` (docs/rigs.md): its board, lidar, socket and service unit; flags given beside it override it"},
			&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Usage: "the board's serial device"},
			&cli.StringFlag{Name: "lidar", Value: "/dev/lidar", Usage: `the LiDAR's device ("" = none)`},
			socketFlag(),
			&cli.StringFlag{Name: "unit", Value: "rosorin-base", Usage: `the systemd unit to ask about ("" = don't)`},
			&cli.BoolFlag{Name: "ros2", EnvVars: []string{"ROSORIN_ROS2"}, Usage: "also check the ROS 2 bridge (" + service.BridgeName + ") and its library"},
			&cli.StringFlag{Name: "ros2-bridge", Usage: "the bridge binary to check (default: beside this executable, then $PATH)"},
			&cli.StringFlag{Name: "state-dir", Usage: "the driver's state folder, whose free space is checked (default $XDG_STATE_HOME/rosorin)"},
			&cli.StringSliceFlag{Name: "disk", Usage: "another folder whose free space matters (the capture folder; repeat)"},
			&cli.DurationFlag{Name: "listen", Value: 2 * time.Second, Usage: "how long to listen to a free port"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return cli.Exit("rosorin-base doctor: no arguments expected (flags only), got "+c.Args().First(), 2)
			}
			if err := applyRig(c); err != nil {
				return err
			}
			if c.Duration("listen") <= 0 || c.Duration("listen") > time.Minute {
				return cli.Exit(fmt.Sprintf("rosorin-base doctor: --listen %s: between 0 and 1m", c.Duration("listen")), 2)
			}
			o := doctor.Options{
				Device: c.String("device"), Lidar: c.String("lidar"), Socket: c.String("socket"),
				Unit: c.String("unit"), Listen: c.Duration("listen"),
			}
			if c.Bool("ros2") || c.String("ros2-bridge") != "" {
				o.BridgeBinary = service.BridgeName
				if b := c.String("ros2-bridge"); b != "" {
					o.BridgeBinary = b
				}
			}
			state := c.String("state-dir")
			if state == "" {
				state = driver.DefaultStateDir()
			}
			if state != "" {
				o.DiskDirs = append(o.DiskDirs, state)
			}
			for _, d := range c.StringSlice("disk") {
				o.DiskDirs = append(o.DiskDirs, filepath.Clean(d))
			}
			if o.Device == "" {
				return cli.Exit("rosorin-base doctor: --device is empty", 2)
			}
			r := doctor.Run(o)
			var err error
			if c.Bool("json") {
				err = r.JSON(os.Stdout)
			} else {
				err = r.Text(os.Stdout)
			}
			if err != nil {
				return cli.Exit("rosorin-base doctor: "+err.Error(), 2)
			}
			if code := r.ExitCode(); code != 0 {
				return cli.Exit("", code)
			}
			return nil
		},
	}
}

// applyRig sets the flags --rig names (board, lidar, socket, unit) that the command line did not give. A sim
// rig has no devices of its own until stopproof starts the simulator: it is refused with the command that does.
func applyRig(c *cli.Context) error {
	path := c.String("rig")
	if path == "" {
		return nil
	}
	r, err := rig.Load(path)
	if err != nil {
		return cli.Exit("rosorin-base doctor: "+err.Error(), 2)
	}
	if r.IsSim() {
		return cli.Exit(fmt.Sprintf("rosorin-base doctor: %s is a sim rig: its devices exist once the simulator runs; stopproof doctor --rig %s starts it and checks it", path, path), 2)
	}
	for _, f := range r.Flags() {
		if !slices.ContainsFunc(c.Command.Flags, func(fl cli.Flag) bool { return slices.Contains(fl.Names(), f.Name) }) || c.IsSet(f.Name) {
			continue
		}
		if err := c.Set(f.Name, f.Value); err != nil {
			return cli.Exit(fmt.Sprintf("rosorin-base doctor: %s: --%s: %v", path, f.Name, err), 2)
		}
	}
	return nil
}
