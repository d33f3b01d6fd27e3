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

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/replay"
	"github.com/rosorin/rosorin/scanmatch"
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
	br := bufio.NewReaderSize(in, 64<<10)
	if head, _ := br.Peek(8); mcapfile.IsMCAP(head) {
		res, err := OdomMCAP(br, w)
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
	return Odom(br, w)
}

// Odom runs the odometry over the raw capture in r (replay.LidarScansRaw) and writes one JSON line per
// complete revolution to w.
func Odom(r io.Reader, w io.Writer) error {
	out, err := newOdomOut(w)
	if err != nil {
		return err
	}
	return replay.LidarScansRaw(r, out.scan)
}

// odomOut runs the odometry over finished scans and writes their lines.
type odomOut struct {
	odo   *scanmatch.Odometry
	enc   *json.Encoder
	first time.Time
	revs  int
}

func newOdomOut(w io.Writer) (*odomOut, error) {
	odo, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return &odomOut{odo: odo, enc: json.NewEncoder(w)}, nil
}

// scan matches one revolution and writes its line. A scan the odometry cannot use (scanmatch.ScanError) or
// whose stamp is not after the previous one (scanmatch.ErrStamp, a host clock step in a recording) gets an
// error line; anything else is returned.
func (o *odomOut) scan(s coind6.Scan) error {
	o.revs++
	e, err := o.odo.Add(s, scanmatch.Aux{})
	line := odomLine{Valid: e.Valid}
	var se *scanmatch.ScanError
	switch {
	case errors.As(err, &se), errors.Is(err, scanmatch.ErrStamp):
		mid := s.Stamp.Add(s.ScanTime / 2)
		if o.first.IsZero() {
			o.first = mid
		}
		line.T, line.Valid, line.Error = mid.Sub(o.first).Seconds(), s.ValidCount(), err.Error()
	case err != nil:
		return err
	default:
		if o.first.IsZero() {
			o.first = e.Time
		}
		x, y, yaw, deg := e.Pose.X, e.Pose.Y, e.Pose.Yaw, e.Degenerate
		line.T, line.X, line.Y, line.Yaw, line.Degenerate = e.Time.Sub(o.first).Seconds(), &x, &y, &yaw, &deg
	}
	line.T = math.Round(line.T*1e6) / 1e6
	return o.enc.Encode(line)
}

// OdomMCAP runs the odometry over the LiDAR channel of the MCAP capture in r (replay.LidarScans: complete or
// cut, each revolution timed by its recorded log time) and writes one JSON line per complete revolution to w.
func OdomMCAP(r io.Reader, w io.Writer) (replay.LidarScansResult, error) {
	out, err := newOdomOut(w)
	if err != nil {
		return replay.LidarScansResult{}, err
	}
	return replay.LidarScans(r, out.scan)
}
