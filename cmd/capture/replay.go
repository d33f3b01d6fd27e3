package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/replay"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "play a capture's device-to-host bytes out of ptys at the recorded timing, for any serial program",
		ArgsUsage: "FILE",
		Description: "Publishes a pty per recorded rx stream in DIR (DIR/ttyACM0 for the board, DIR/lidar for the LiDAR) and\n" +
			"writes each recorded read to it at its recorded time (scaled by --rate), so `rosorin-base run --device\n" +
			"DIR/ttyACM0 --lidar DIR/lidar` or any serial program runs against the recording. --start/--end cut a\n" +
			"window (offsets from the first message, e.g. 2s, 1m30s); --loop repeats it until SIGINT/SIGTERM. What\n" +
			"the program writes back is recorded into --out (with the decoded /wheel_twist) and, with --compare,\n" +
			"compared frame by frame with the recorded tx stream (the report says where they first differ). A cut\n" +
			"file plays to its cut. Linux only.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Required: true, Usage: "directory for the ptys (created if missing)"},
			&cli.Float64Flag{Name: "rate", Value: 1, Usage: "time scale (2: twice as fast)"},
			&cli.BoolFlag{Name: "loop", Usage: "start again at the end until SIGINT/SIGTERM"},
			&cli.DurationFlag{Name: "start", Usage: "begin this long after the first message"},
			&cli.DurationFlag{Name: "end", Usage: "stop this long after the first message (0: the end)"},
			&cli.StringFlag{Name: "out", Usage: "record what the program writes back into this MCAP file"},
			&cli.BoolFlag{Name: "compare", Usage: "compare what the program writes with the recorded tx (exit 3 when they differ)"},
			&cli.DurationFlag{Name: "hold", Usage: "keep the ptys open this long after the end (default 1s)"},
			&cli.BoolFlag{Name: "wait", Usage: "start the clock when a program first opens one of the ptys"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("replay takes one capture FILE, got %d arguments; flags such as --dir go before FILE", c.NArg())
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := replay.Run(ctx, replay.Options{File: c.Args().First(), Dir: c.String("dir"), Rate: c.Float64("rate"),
				Loop: c.Bool("loop"), Start: c.Duration("start"), End: c.Duration("end"), Out: c.String("out"),
				Compare: c.Bool("compare"), Hold: c.Duration("hold"), WaitProgram: c.Bool("wait"), Log: c.App.ErrWriter})
			if err != nil {
				return err
			}
			w := c.App.Writer
			fmt.Fprintf(w, "replayed %s: %d passes, %d messages, %d bytes, %d dropped, %d while no program had the pty open, latest write %s behind schedule; %s\n",
				c.Args().First(), res.Passes, res.Messages, res.Bytes, res.Dropped, res.NoProgram, res.MaxLate, res.Why)
			for dev, n := range res.Written {
				fmt.Fprintf(w, "  the program wrote %d bytes to %s\n", n, dev)
			}
			same := true
			for _, cmp := range res.Compared {
				fmt.Fprintln(w, "  compare", cmp)
				same = same && cmp.Same()
			}
			if !same {
				return cli.Exit("what the program wrote differs from the recording", 3)
			}
			return nil
		},
	}
}
