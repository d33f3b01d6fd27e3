package lidar

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/protocol/coind6"
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
	q := capture.StartQueue(capture.QueueOptions{Segments: so,
		Channels: []capture.ChannelSpec{{Topic: "/serial/lidar/rx", Kind: "lidar"}}})
	return q, func(t time.Time, data []byte) { q.Put(0, t, data) }
}
