package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/live"
)

func tapCommand() *cli.Command {
	return &cli.Command{
		Name:  "tap",
		Usage: "relay a serial device through a pty and record both directions (a man-in-the-middle for any program)",
		Description: "Opens DEVICE exclusively (raw, BAUD), creates a pty whose slave is published at LINK, and relays every\n" +
			"byte both ways: start the program (the robot's original driver, rosorin-base run --device LINK, minicom)\n" +
			"on LINK instead of DEVICE. Both directions are recorded into OUT (/serial/KIND/rx device->program,\n" +
			"/serial/KIND/tx program->device, one message per read with its receive time and a sequence number) with\n" +
			"the decoded channels (/imu, /battery, /joy, /wheel_twist; /scan for a LiDAR). The relay never waits for the\n" +
			"disk: the recorder has its own queue (a stalled disk loses recording, counted, never relaying). While no\n" +
			"program has LINK open the device's bytes are recorded, not relayed (no stale bytes at the next open). On\n" +
			"SIGINT/SIGTERM OUT.part is finished into OUT; after a SIGKILL run `capture recover OUT.part OUT`.\n" +
			"A pty has no line rate: the program's own baud setting on LINK is ignored. Linux only.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Required: true, Usage: "the real serial device"},
			&cli.StringFlag{Name: "link", Required: true, Usage: "path of the pty for the program (a symlink, replaced)"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "MCAP file to write (OUT.part while recording)"},
			&cli.IntFlag{Name: "baud", Usage: "line speed of DEVICE (default: the kind's, board 1000000, lidar 230400)"},
			&cli.StringFlag{Name: "kind", Value: "board", Usage: "what the device carries: board or lidar"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return fmt.Errorf("tap takes no arguments (got %q): use --device, --link and --out", c.Args().Slice())
			}
			kind, err := capture.ParseKind(c.String("kind"))
			if err != nil {
				return err
			}
			_, err = live.TapMain(live.TapOptions{Device: c.String("device"), Link: c.String("link"),
				Out: c.String("out"), Baud: c.Int("baud"), Kind: kind, Log: c.App.ErrWriter})
			return err
		},
	}
}
