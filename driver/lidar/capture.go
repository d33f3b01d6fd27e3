package lidar

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// startCapture starts the reader's recording (--capture): /serial/lidar/rx, one message per read with its
// receive time, in DIR/lidar-<UTC time>.mcap segments. nil when o is nil.
func startCapture(o *capture.SegmentOptions, device string, log *slog.Logger) (*capture.Queue, func(time.Time, []byte)) {
	if o == nil {
		return nil, nil
	}
	so := *o
	so.Prefix = "lidar"
	md := map[string]string{"device": device, "baud": strconv.Itoa(coind6.Baud), "kind": "lidar",
		"recorder": "rosorin-base run (LiDAR reader)"}
	for k, v := range o.Metadata {
		md[k] = v
	}
	so.Metadata = capture.CaptureMetadata(md)
	so.Log = log
	// The decoded /scan is the raw packets through the same assembler as the reader's (400 bins), in the
	// queue's writer goroutine: the reader's own scans never wait for it.
	dec, _ := capture.NewDecoder(capture.Lidar)
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	q := capture.StartQueue(capture.QueueOptions{Segments: so,
		Channels: []capture.ChannelSpec{{Topic: "/serial/lidar/rx", Kind: "lidar"},
			{Topic: capture.TopicScan, Type: "sensor_msgs/msg/LaserScan"}},
		Decode: func(_ int, t time.Time, data []byte, emit func(int, time.Time, rosmsg.Message)) {
			dec.Feed(data, func(r capture.Record) {
				if lr, ok := r.(*capture.LidarRecord); ok && lr.Err == nil {
					if s, ok := asm.Add(lr.Packet, t); ok {
						emit(1, t, capture.ScanMessage(s, "laser"))
					}
				}
			})
		}})
	return q, func(t time.Time, data []byte) { q.Put(0, t, data) }
}
