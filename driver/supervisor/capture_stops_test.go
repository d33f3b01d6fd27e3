package supervisor

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// stubDriver serves the control API's topic streams with no driver behind them.
type stubDriver struct{ api.Handler }

// The recording's /rosorin/stops channel: a stop record the driver publishes on api.TopicStops is recorded
// as std_msgs/msg/String JSON with its schema, beside the board's channels, read back with the Go reader and
// with @mcap/core (capture/testdata/mcapcheck; skipped without node unless ROSORIN_REQUIRE_NODE=1).
func TestCaptureRecordsStops(t *testing.T) {
	sockDir, err := os.MkdirTemp("", "capstops")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "base.sock")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := api.Listen(sock, stubDriver{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	cfg := Config{Socket: sock, Capture: &segment.SegmentOptions{Dir: dir, RotateTime: time.Hour}}
	s := &supervisor{cfg: cfg, log: quiet, clk: clock.Real{}}
	s.capture = startCapture(&s.cfg, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.followContact(ctx) // starts the stops follower too
	deadline := time.Now().Add(10 * time.Second)
	for srv.Stats().Subscribers < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d followers, want the contact and the stops followers", srv.Stats().Subscribers)
		}
		time.Sleep(10 * time.Millisecond)
	}
	still, travel := 0.31, 0.04
	want := api.StopRecord{Seq: 12, Boot: "test", Wall: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), Kind: api.StopEStop,
		Reason: "estop request from pid 812 (teleop)", BodyVel: [3]float64{0.3, 0, 0}, Speed: 0.3, Direction: "fwd",
		StillS: &still, StillFrom: "board gyro vibration", TravelM: &travel, Outcome: "PASS", Confidence: api.ConfidenceOK, Level: api.StopLevelOK}
	srv.Publish(api.TopicStops, want)
	for s.capture.Status().Messages < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the stop record was never recorded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	s.wg.Wait()
	if err := s.capture.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "board-*.mcap"))
	if len(files) != 1 {
		t.Fatalf("segments %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ch *mcap.Channel
	schemas := map[uint16]*mcap.Schema{}
	var got []api.StopRecord
	_, err = mcapfile.Read(f, mcapfile.Visitor{
		Schema: func(sc *mcap.Schema) error { schemas[sc.ID] = sc; return nil },
		Channel: func(c *mcap.Channel) error {
			if c.Topic == TopicCaptureStops {
				ch = c
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			if ch == nil || m.ChannelID != ch.ID {
				return nil
			}
			var str rosmsg.String
			if err := cdr.Unmarshal(m.Data, &str); err != nil {
				return err
			}
			var r api.StopRecord
			if err := json.Unmarshal([]byte(str.Data), &r); err != nil {
				return err
			}
			got = append(got, r)
			return nil
		},
	})
	if err != nil || ch == nil {
		t.Fatalf("%s: channel %s: %+v, %v", files[0], TopicCaptureStops, ch, err)
	}
	if sc := schemas[ch.SchemaID]; sc == nil || sc.Name != "std_msgs/msg/String" || len(sc.Data) == 0 {
		t.Fatalf("%s's schema: %+v", TopicCaptureStops, sc)
	}
	if len(got) != 1 || got[0].Seq != want.Seq || got[0].Reason != want.Reason || got[0].StillS == nil || *got[0].StillS != still || !got[0].Wall.Equal(want.Wall) {
		t.Fatalf("recorded stops %+v, want [%+v]", got, want)
	}

	// The independent reader.
	script, _ := filepath.Abs(filepath.Join("..", "..", "capture", "testdata", "mcapcheck", "check.js"))
	node, err := exec.LookPath("node")
	_, merr := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@mcap", "core"))
	if err != nil || merr != nil {
		if os.Getenv("ROSORIN_REQUIRE_NODE") == "1" {
			t.Fatalf("ROSORIN_REQUIRE_NODE=1 but node (%v) or @mcap/core (%v) is missing", err, merr)
		}
		t.Skip("node or @mcap/core missing: npm ci --prefix capture/testdata/mcapcheck")
	}
	out, err := exec.Command(node, script, files[0]).Output()
	if err != nil {
		t.Fatalf("node %s: %v", files[0], err)
	}
	var nr struct {
		Topics     map[string]uint64 `json:"topics"`
		NoSchema   []string          `json:"noSchema"`
		QoSMissing []string          `json:"qosMissing"`
	}
	if err := json.Unmarshal(out, &nr); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if nr.Topics[TopicCaptureStops] != 1 || len(nr.NoSchema) != 0 || len(nr.QoSMissing) != 0 {
		t.Fatalf("@mcap/core reads %s", out)
	}
}
