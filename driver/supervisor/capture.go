package supervisor

// Recording by the supervisor (`rosorin-base run --capture DIR`): it owns the board port, so it records what
// the port gives (/serial/board/rx, from the pump), what it writes itself (its stop frames) and what the
// driver child writes (/serial/board/tx, through the tx tap, txtap.go). Nothing here may make a stop wait for
// the disk: every producer hands its bytes to a segment.Queue, which never blocks and drops (counted) when
// full. Figures: docs/capture.md, "Recording by the driver".

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// The supervisor's channels of the board's recording (indexes into boardChannels). The queue adds the
// decoded channels of the two raw streams after them (capture.DecodedChannels: /imu, /battery, /joy from rx,
// /wheel_twist from tx); only the state, contact and stops channels are the supervisor's own.
const (
	capRx = iota
	capTx
	capState
	capContact
	capStops
)

var boardChannels = []segment.ChannelSpec{
	capRx:      segment.Raw(capture.Board, capture.FromDevice),
	capTx:      segment.Raw(capture.Board, capture.ToDevice),
	capState:   segment.Message("/rosorin/state", (*rosmsg.String)(nil)),
	capContact: segment.Message("/rosorin/contact", (*rosmsg.String)(nil)),
	capStops:   segment.Message(TopicCaptureStops, (*rosmsg.String)(nil)),
}

// TopicCaptureStops is the recording's channel of the driver's stop records (api.TopicStops, issue 35).
const TopicCaptureStops = "/rosorin/stops"

// startCapture starts the board's recording queue (nil when cfg.Capture is nil). The files are opened by the
// queue's goroutine, so the supervisor's first stop frame does not wait for the disk; the raw streams are
// decoded there too (one capture.Decoded per direction: a frame may be split across reads or writes).
func startCapture(cfg *Config, log *slog.Logger) *segment.Queue {
	if cfg.Capture == nil {
		return nil
	}
	o := *cfg.Capture
	o.Prefix = "board"
	md := map[string]string{"device": cfg.Device, "baud": "1000000", "kind": "board",
		"recorder": "rosorin-base run (supervisor): rx from the port, tx = the driver's writes and the supervisor's stop frames"}
	for k, v := range o.Metadata {
		md[k] = v
	}
	o.Metadata = segment.Metadata(md)
	o.Log = log
	return segment.StartQueue(segment.QueueOptions{Segments: o, Channels: boardChannels})
}

// CaptureStatus is the recording's part of the status record.
type CaptureStatus struct {
	segment.QueueStatus
	// TxTapLost counts driver writes whose copy a full tap pipe dropped (the write itself went out).
	TxTapLost uint64 `json:"tx_tap_lost"`
}

// followContact records the contact reflex's events (driver/api.TopicContact: the decision with the last
// seconds of command, gyro and odometry) on /rosorin/contact as std_msgs/msg/String JSON, beside the frames.
func (s *supervisor) followContact(ctx context.Context) {
	defer s.wg.Done()
	// The stops follower is started here, beside the contact events', so that the recording's channels and
	// their followers stay in this file (the supervisor starts the state and contact followers).
	s.wg.Add(1)
	go s.followStops(ctx)
	s.follow(ctx, api.TopicContact, capContact)
}

// followStops records each stop the driver timed (driver/api.TopicStops: one api.StopRecord, once its judge
// has spoken) on /rosorin/stops as std_msgs/msg/String JSON, the line `rosorin-base stops --follow --json`
// prints, so a capture holds the driver's own verdict beside the frames of the stop.
func (s *supervisor) followStops(ctx context.Context) {
	defer s.wg.Done()
	s.follow(ctx, api.TopicStops, capStops)
}

// readTap records one driver's tap until the driver is gone.
func (s *supervisor) readTap(r *os.File) {
	defer s.wg.Done()
	defer r.Close()
	lost, err := childproc.ReadTxTap(r, func(at time.Time, data []byte) { s.capture.Put(capTx, at, data) })
	s.tapLost.Add(lost)
	if err != nil {
		s.log.Warn("capture: tx tap ended", "err", err)
	}
}

// stateFollowRetry is the pause before the state follower reconnects to a driver that is gone or restarting.
const stateFollowRetry = 200 * time.Millisecond

// followState records the driver's state record (10 Hz, JSON, the line `rosorin-base state --follow` gets)
// on /rosorin/state as std_msgs/msg/String, so a capture shows what the software believed next to the frames
// the board got. It is an ordinary follower of the driver's socket (the driver never blocks on one) and
// reconnects to each new driver until ctx ends.
func (s *supervisor) followState(ctx context.Context) {
	defer s.wg.Done()
	s.follow(ctx, api.TopicState, capState)
}

// follow records each JSON line of a driver topic on channel ch, reconnecting to each new driver until ctx
// ends.
func (s *supervisor) follow(ctx context.Context, topic string, ch int) {
	cl := api.NewClient(s.cfg.Socket)
	for ctx.Err() == nil {
		_ = cl.Follow(ctx, topic, func(line []byte) error {
			s.capture.PutMessage(ch, s.clk.Now(), &rosmsg.String{Data: string(line)})
			return nil
		})
		cl.CloseIdle()
		select {
		case <-ctx.Done():
		case <-s.clk.After(stateFollowRetry):
		}
	}
}
