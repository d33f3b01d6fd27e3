package lidar

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// startCapture starts the reader's recording (--capture): /serial/lidar/rx, one message per read with its
// receive time, and its decoded /scan (capture.DecodedChannels: the raw packets through the same assembler
// as the reader's, 400 bins, in the queue's writer goroutine, so the reader's own scans never wait for it),
// in DIR/lidar-<UTC time>.mcap segments. nil when o is nil.
func startCapture(o *segment.SegmentOptions, device string, log *slog.Logger) (*segment.Queue, func(time.Time, []byte)) {
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
	so.Metadata = segment.Metadata(md)
	so.Log = log
	q := segment.StartQueue(segment.QueueOptions{Segments: so,
		Channels: []segment.ChannelSpec{segment.Raw(capture.Lidar, capture.FromDevice)}})
	return q, func(t time.Time, data []byte) { q.Put(0, t, data) }
}
