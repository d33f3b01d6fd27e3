package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/live"
)

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "record a serial device passively (read-only) into a crash-safe MCAP capture",
		Description: "Opens DEVICE read-only with a shared lock, sets raw mode and BAUD, and records every read as one\n" +
			"message on /serial/KIND/rx (KIND board also gets decoded IMU frames on /imu,\n" +
			"sensor_msgs/msg/Imu, and battery reports on /battery, sensor_msgs/msg/BatteryState). Until it stops\n" +
			"the data is in OUT.part, flushed every 100 ms and fsync'd every second; on SIGINT/SIGTERM, --duration or\n" +
			"the device closing, OUT.part is finished into OUT (indexed, with statistics). After a SIGKILL or power\n" +
			"loss run `capture recover OUT.part OUT`. A port held exclusively (the supervisor's TIOCEXCL or flock) is\n" +
			"refused, naming the holder; while it records, an exclusive owner is refused in turn. Linux only.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Required: true, Usage: "serial device or pty to read"},
			&cli.IntFlag{Name: "baud", Usage: "line speed (default: the kind's, board 1000000, lidar 230400)"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "MCAP file to write (OUT.part while recording)"},
			&cli.StringFlag{Name: "kind", Value: "board", Usage: "what the device carries: board or lidar"},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until SIGINT/SIGTERM)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return fmt.Errorf("record takes no arguments (got %q): use --device, --baud and --out", c.Args().Slice())
			}
			kind, err := capture.ParseKind(c.String("kind"))
			if err != nil {
				return err
			}
			_, err = live.RecordMain(live.RecordOptions{Device: c.String("device"), Baud: c.Int("baud"),
				Kind: kind, Out: c.String("out"), Until: c.Duration("duration"), Log: c.App.ErrWriter})
			return err
		},
	}
}
