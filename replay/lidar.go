package replay

import (
	"fmt"
	"io"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// LidarTopic is the raw LiDAR channel of an MCAP capture (docs/capture.md).
const LidarTopic = "/serial/lidar/rx"

// LidarSilence: a silence longer than this between two chunks of the LiDAR channel breaks the revolution in
// progress (the driver reopens the port after its own 0.5 s of silence and starts a new revolution too).
const LidarSilence = 500 * time.Millisecond

// RawRevPeriod is the COIN-D6's revolution at 10 Hz: a raw capture carries no times, so revolution k is taken
// at k x 0.1 s.
const RawRevPeriod = 100 * time.Millisecond

// LidarScansRaw assembles the revolutions of a raw COIN-D6 capture (the bytes `cat /dev/lidar` records) as
// the driver bins them (coind6.DefaultScanConfig) and hands each complete one to fn, revolution k stamped at
// the Unix epoch plus k x RawRevPeriod. The revolution the capture starts in and the one still open at its
// end are not handed out. fn's error ends the read and is returned.
func LidarScansRaw(r io.Reader, fn func(coind6.Scan) error) error {
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	epoch := time.Unix(0, 0).UTC()
	revs := -1 // revolution starts seen, minus one: the revolution in progress
	_, err := capture.Decode(r, capture.Lidar, func(rec capture.Record) error {
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
		s, done := asm.Add(lr.Packet, epoch.Add(time.Duration(revs)*RawRevPeriod))
		if !done {
			return nil
		}
		return fn(s)
	})
	return err
}

// LidarScansResult is what LidarScans read.
type LidarScansResult struct {
	Revolutions int   // complete revolutions handed to fn
	Breaks      int   // lost chunks (sequence gaps), silences over LidarSilence, log times stepping back: the revolution under way at each is dropped
	Good        int64 // bytes of the file read up to the last complete record
	Cut         error // why reading stopped before the end of the file (a cut file); nil when complete
}

// LidarScans assembles the revolutions on the LiDAR channel of the MCAP capture in r (complete or cut) as the
// driver bins them and hands each complete one to fn. Each packet is timed as the driver's reader times it:
// by the log time of the chunk that brought it, less the line time of the bytes after it in that chunk
// (coind6.PacketClock). The channel is LidarTopic, else the first raw channel whose kind is lidar; a file
// without one is an error. fn's error ends the read and is returned.
func LidarScans(r io.Reader, fn func(coind6.Scan) error) (LidarScansResult, error) {
	var res LidarScansResult
	dec, err := capture.NewDecoder(capture.Lidar)
	if err != nil {
		return res, err
	}
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	schemas := map[uint16]string{}
	var topics []string
	chosen, have := uint16(0), false
	var now, last time.Time
	var clk coind6.PacketClock // as the driver's reader stamps the packets of one read
	var lastSeq uint32
	haveSeq := false
	var ferr error
	emit := func(rec capture.Record) {
		lr, ok := rec.(*capture.LidarRecord)
		if !ok || lr.Err != nil || ferr != nil {
			return
		}
		if s, done := asm.Add(lr.Packet, clk.At(now, lr.Tail)); done {
			res.Revolutions++
			ferr = fn(s)
		}
	}
	walk, err := mcapfile.Read(r, mcapfile.Visitor{
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Channel: func(c *mcap.Channel) error {
			topics = append(topics, c.Topic)
			if schemas[c.SchemaID] != mcapfile.RawSchemaName {
				return nil
			}
			if c.Topic == LidarTopic || !have && c.Metadata["kind"] == string(capture.Lidar) {
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
			if haveSeq && (seq != lastSeq+1 || now.Sub(last) > LidarSilence || now.Before(last)) {
				// Bytes lost or time broken: the revolution in progress is not one scan.
				asm.Reset()
				clk.Reset()
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
		return res, fmt.Errorf("cut at byte %d (%v) before a raw LiDAR channel (%s): nothing to read", walk.Good, walk.Cut, LidarTopic)
	}
	if !have {
		return res, fmt.Errorf("no raw LiDAR channel (%s, or kind lidar) among the channels %q", LidarTopic, topics)
	}
	return res, nil
}
