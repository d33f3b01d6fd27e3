package main

import (
	"bufio"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/replay"
)

func odomCommand() *cli.Command {
	return &cli.Command{
		Name:      "odom",
		Usage:     "run the LiDAR odometry (package scanmatch) over a LiDAR capture (raw COIN-D6 bytes or MCAP): one JSON line per revolution",
		ArgsUsage: "FILE (- for stdin)",
		Description: "Reads a raw LiDAR capture as `capture decode --kind lidar` does, or an MCAP capture (recognised by its\n" +
			"magic) from its " + replay.LidarTopic + " channel, bins each revolution as the driver does\n" +
			"(coind6.DefaultScanConfig), and prints for each complete revolution {\"t\": s, \"x\": m, \"y\": m,\n" +
			"\"yaw\": rad, \"degenerate\": bool, \"valid\": bins}: the robot base's pose relative to its pose at the first\n" +
			"revolution (x forward, y left, yaw counter-clockwise; the LiDAR mounted as chapter 14 measured it:\n" +
			"x +0.048 m, native 180 degrees forward). t is the estimate's time (mid-sweep) since the first one's.\n" +
			"A raw capture carries no times: revolution k is taken at k x 0.1 s. In an MCAP capture each packet has\n" +
			"the log time (host receive time) of the chunk that completed it, as the driver stamps its scans; a\n" +
			"revolution across a lost chunk (sequence gap) or a silence over 0.5 s is dropped. A revolution the\n" +
			"odometry cannot use prints {\"t\", \"valid\", \"error\"}. The revolution still open at the end is not\n" +
			"printed. A cut MCAP file (SIGKILL, power loss) is read to the cut: the lines up to it, then a message on\n" +
			"standard error, exit status 0.",
		Action: odomAction,
	}
}

func odomAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("odom takes one capture FILE (or - for stdin), got %d arguments", c.NArg())
	}
	name := c.Args().First()
	in, closeIn, err := openInput(c, name)
	if err != nil {
		return err
	}
	defer closeIn()
	w := bufio.NewWriter(c.App.Writer)
	defer w.Flush()
	br := bufio.NewReaderSize(in, 64<<10)
	if head, _ := br.Peek(8); mcapfile.IsMCAP(head) {
		res, err := replay.OdomMCAP(br, w)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if res.Cut != nil {
			fmt.Fprintf(c.App.ErrWriter, "capture odom: %s is cut at byte %d (%v): %d revolutions read up to the cut; "+
				"`capture recover` turns it into a complete file\n", name, res.Good, res.Cut, res.Revolutions)
		}
		if res.Breaks > 0 {
			fmt.Fprintf(c.App.ErrWriter, "capture odom: %s: %d breaks in the LiDAR channel (lost chunks, silences over %v, "+
				"log times stepping back); the revolution under way at each was dropped\n", name, res.Breaks, replay.LidarSilence)
		}
		return nil
	}
	return replay.OdomRaw(br, w)
}
