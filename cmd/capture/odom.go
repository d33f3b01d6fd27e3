package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
)

// lidarTopic is the raw LiDAR channel of an MCAP capture (docs/capture.md).
const lidarTopic = "/serial/lidar/rx"

// mcapSilence: a silence longer than this between two chunks of the LiDAR channel breaks the revolution in
// progress (the driver reopens the port after its own 0.5 s of silence and starts a new revolution too).
const mcapSilence = 500 * time.Millisecond

// revPeriod is the COIN-D6's revolution at 10 Hz: a raw capture carries no times, so revolution k is taken
// at k x 0.1 s.
const revPeriod = 100 * time.Millisecond

func odomCommand() *cli.Command {
	return &cli.Command{
		Name:      "odom",
		Usage:     "run the LiDAR odometry (package scanmatch) over a LiDAR capture (raw COIN-D6 bytes or MCAP): one JSON line per revolution",
		ArgsUsage: "FILE (- for stdin)",
		Description: "Reads a raw LiDAR capture as `capture decode --kind lidar` does, or an MCAP capture (recognised by its\n" +
			"magic) from its " + lidarTopic + " channel, bins each revolution as the driver does\n" +
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
				"log times stepping back); the revolution under way at each was dropped\n", name, res.Breaks, mcapSilence)
		}
		return nil
	}
	return Odom(br, w)
}

// Odom runs the odometry over the raw capture in r and writes one JSON line per complete revolution to w.
func Odom(r io.Reader, w io.Writer) error {
	out, err := newOdomOut(w)
	if err != nil {
		return err
	}
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	epoch := time.Unix(0, 0).UTC()
	revs := -1 // revolution starts seen, minus one: the revolution in progress
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
		return out.scan(s)
	})
	return err
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

// OdomResult is what OdomMCAP read.
type OdomResult struct {
	Revolutions int   // complete revolutions handed to the odometry (a line each)
	Breaks      int   // lost chunks (sequence gaps), silences over mcapSilence, log times stepping back: the revolution under way at each is dropped
	Good        int64 // bytes of the file read up to the last complete record
	Cut         error // why reading stopped before the end of the file (a cut file); nil when complete
}

// OdomMCAP runs the odometry over the LiDAR channel of the MCAP capture in r (complete or cut) and writes
// one JSON line per complete revolution to w. Each packet is timed by the log time of the chunk that
// completed it, as the driver times it by its read. The channel is lidarTopic, else the first raw channel
// whose kind is lidar; a file without one is an error.
func OdomMCAP(r io.Reader, w io.Writer) (OdomResult, error) {
	var res OdomResult
	out, err := newOdomOut(w)
	if err != nil {
		return res, err
	}
	dec, err := capture.NewDecoder(capture.Lidar)
	if err != nil {
		return res, err
	}
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	schemas := map[uint16]string{}
	var topics []string
	chosen, have := uint16(0), false
	var now, last time.Time
	var lastSeq uint32
	haveSeq := false
	var ferr error
	emit := func(rec capture.Record) {
		lr, ok := rec.(*capture.LidarRecord)
		if !ok || lr.Err != nil || ferr != nil {
			return
		}
		if s, done := asm.Add(lr.Packet, now); done {
			res.Revolutions++
			ferr = out.scan(s)
		}
	}
	walk, err := mcapfile.Read(r, mcapfile.Visitor{
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Channel: func(c *mcap.Channel) error {
			topics = append(topics, c.Topic)
			if schemas[c.SchemaID] != mcapfile.RawSchemaName {
				return nil
			}
			if c.Topic == lidarTopic || !have && c.Metadata["kind"] == string(capture.Lidar) {
				chosen, have = c.ID, true
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			if !have || m.ChannelID != chosen {
				return nil
			}
			seq, data, err := mcapfile.DecodeRaw(m.Data)
			if err != nil {
				return nil // a foreign message on the channel: its bytes are unknown, as a lost chunk's
			}
			now = time.Unix(0, int64(m.LogTime)).UTC()
			if haveSeq && (seq != lastSeq+1 || now.Sub(last) > mcapSilence || now.Before(last)) {
				// Bytes lost or time broken: the revolution in progress is not one scan.
				asm.Reset()
				res.Breaks++
			}
			lastSeq, last, haveSeq = seq, now, true
			dec.Feed(data, emit)
			return ferr
		},
	})
	res.Good, res.Cut = walk.Good, walk.Cut
	if err != nil {
		return res, err
	}
	if !have && walk.Cut != nil {
		return res, fmt.Errorf("cut at byte %d (%v) before a raw LiDAR channel (%s): nothing to read", walk.Good, walk.Cut, lidarTopic)
	}
	if !have {
		return res, fmt.Errorf("no raw LiDAR channel (%s, or kind lidar) among the channels %q", lidarTopic, topics)
	}
	return res, nil
}
