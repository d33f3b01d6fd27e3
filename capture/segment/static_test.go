package segment

import (
	"os"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TestSegmentsStartWithStatic: every segment, the first and each rotation's, has the static message once, at
// its start, on its own channel, and it decodes to what Msg made for that start.
func TestSegmentsStartWithStatic(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	static := []StaticMessage{{Topic: "/tf_static", Type: "tf2_msgs/msg/TFMessage", Msg: func(t time.Time) rosmsg.Message {
		return &rosmsg.TFMessage{Transforms: []rosmsg.TransformStamped{{Header: rosmsg.Header{
			Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"}, ChildFrameID: "laser"}}}
	}}}
	s, err := OpenSegments(SegmentOptions{Dir: dir, Prefix: "board", RotateTime: time.Minute, Clock: clk, Static: static}, rotateSpecs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		clk.add(90 * time.Second)
		if err := s.Write(0, clk.now(), []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := segFiles(t, dir, "board-*.mcap")
	if len(files) != 4 {
		t.Fatalf("%d segments, want 4", len(files))
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		var tfCh uint16
		var first *mcap.Message
		n := 0
		_, err = mcapfile.Read(f, mcapfile.Visitor{
			Channel: func(c *mcap.Channel) error {
				if c.Topic == "/tf_static" {
					tfCh = c.ID
				}
				return nil
			},
			Message: func(m *mcap.Message) error {
				if first == nil {
					c := *m
					c.Data = append([]byte(nil), m.Data...)
					first = &c
				}
				if m.ChannelID == tfCh {
					n++
				}
				return nil
			},
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 || first == nil || first.ChannelID != tfCh {
			t.Fatalf("%s: %d /tf_static messages, first message %+v; want one, first", name, n, first)
		}
		var m rosmsg.TFMessage
		if err := cdr.Unmarshal(first.Data, &m); err != nil || len(m.Transforms) != 1 || m.Transforms[0].ChildFrameID != "laser" ||
			m.Transforms[0].Header.Stamp.Nanos() != int64(first.LogTime) {
			t.Fatalf("%s: /tf_static %+v (%v), log time %d", name, m, err, first.LogTime)
		}
	}
	// A static message of a type without a schema is an error at the start, not a segment without it.
	_, err = OpenSegments(SegmentOptions{Dir: t.TempDir(), Prefix: "board", Clock: clk,
		Static: []StaticMessage{{Topic: "/x", Type: "nope/msg/Nope", Msg: func(time.Time) rosmsg.Message { return &rosmsg.Bool{} }}}}, rotateSpecs)
	if err == nil {
		t.Fatal("a static message without a schema was accepted")
	}
}
