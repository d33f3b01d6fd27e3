package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
)

// revPeriod is the COIN-D6's revolution at 10 Hz: a raw capture carries no times, so revolution k is taken
// at k x 0.1 s.
const revPeriod = 100 * time.Millisecond

func odomCommand() *cli.Command {
	return &cli.Command{
		Name:      "odom",
		Usage:     "run the LiDAR odometry (package scanmatch) over a raw COIN-D6 capture: one JSON line per revolution",
		ArgsUsage: "FILE (- for stdin)",
		Description: "Reads a raw LiDAR capture as `capture decode --kind lidar` does, bins each revolution as the driver\n" +
			"does (coind6.DefaultScanConfig), takes revolution k at t = k x 0.1 s, and prints for each complete\n" +
			"revolution {\"t\": s, \"x\": m, \"y\": m, \"yaw\": rad, \"degenerate\": bool, \"valid\": bins}: the robot base's\n" +
			"pose relative to its pose at the first revolution (x forward, y left, yaw counter-clockwise; the LiDAR\n" +
			"mounted as chapter 14 measured it: x +0.048 m, native 180 degrees forward). t is the estimate's time\n" +
			"(mid-sweep) since the first one's. A revolution the odometry cannot use prints {\"t\", \"valid\", \"error\"}.\n" +
			"The revolution still open at the end of the file is not printed.",
		Action: odomAction,
	}
}

// odomLine is one revolution's output line.
type odomLine struct {
	T          float64  `json:"t"`
	X          *float64 `json:"x,omitempty"`
	Y          *float64 `json:"y,omitempty"`
	Yaw        *float64 `json:"yaw,omitempty"`
	Degenerate *bool    `json:"degenerate,omitempty"`
	Valid      int      `json:"valid"`
	Error      string   `json:"error,omitempty"`
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
	return Odom(in, w)
}

// Odom runs the odometry over the raw capture in r and writes one JSON line per complete revolution to w.
func Odom(r io.Reader, w io.Writer) error {
	odo, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		return err
	}
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	epoch := time.Unix(0, 0).UTC()
	enc := json.NewEncoder(w)
	revs := -1 // revolution starts seen, minus one: the revolution in progress
	var first time.Time
	_, err = capture.Decode(r, capture.Lidar, func(rec capture.Record) error {
		lr, ok := rec.(*capture.LidarRecord)
		if !ok || lr.Err != nil {
			return nil
		}
		if lr.Packet.RingStart() {
			revs++
		}
		if revs < 0 {
			return nil
		}
		s, done := asm.Add(lr.Packet, epoch.Add(time.Duration(revs)*revPeriod))
		if !done {
			return nil
		}
		e, err := odo.Add(s, scanmatch.Aux{})
		line := odomLine{Valid: e.Valid}
		var se *scanmatch.ScanError
		switch {
		case errors.As(err, &se):
			mid := s.Stamp.Add(s.ScanTime / 2)
			if first.IsZero() {
				first = mid
			}
			line.T, line.Valid, line.Error = mid.Sub(first).Seconds(), s.ValidCount(), se.Error()
		case err != nil:
			return err
		default:
			if first.IsZero() {
				first = e.Time
			}
			x, y, yaw, deg := e.Pose.X, e.Pose.Y, e.Pose.Yaw, e.Degenerate
			line.T, line.X, line.Y, line.Yaw, line.Degenerate = e.Time.Sub(first).Seconds(), &x, &y, &yaw, &deg
		}
		line.T = math.Round(line.T*1e6) / 1e6
		return enc.Encode(line)
	})
	return err
}
