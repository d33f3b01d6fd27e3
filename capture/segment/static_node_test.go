package segment

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TestStaticNodeReader: @mcap/core's indexed reader (capture/testdata/mcapcheck, independent of the Go
// library) finds the /tf_static message of each segment, with its schema and QoS. Skips without node or
// @mcap/core unless ROSORIN_REQUIRE_NODE=1.
func TestStaticNodeReader(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("..", "testdata", "mcapcheck", "check.js"))
	node, err := exec.LookPath("node")
	_, merr := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@mcap", "core"))
	if err != nil || merr != nil {
		if os.Getenv("ROSORIN_REQUIRE_NODE") == "1" {
			t.Fatalf("ROSORIN_REQUIRE_NODE=1 but node (%v) or @mcap/core (%v) is missing", err, merr)
		}
		t.Skip("node or @mcap/core missing: npm ci --prefix capture/testdata/mcapcheck")
	}
	dir := t.TempDir()
	clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	static := []StaticMessage{{Topic: "/tf_static", Type: (*rosmsg.TFMessage)(nil).ROSType(),
		Msg: func(t time.Time) rosmsg.Message { return config.Default().StaticTransforms(t) }}}
	s, err := OpenSegments(SegmentOptions{Dir: dir, Prefix: "board", RotateTime: time.Minute, Clock: clk, Static: static}, rotateSpecs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		clk.add(90 * time.Second)
		if err := s.WriteMessage(1, clk.now(), &rosmsg.Imu{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := segFiles(t, dir, "board-*.mcap")
	if len(files) != 3 {
		t.Fatalf("%d segments", len(files))
	}
	for _, f := range files {
		out, err := exec.Command(node, script, f).Output()
		if err != nil {
			t.Fatalf("node %s: %v", f, err)
		}
		var got struct {
			Topics     map[string]uint64 `json:"topics"`
			NoSchema   []string          `json:"noSchema"`
			QoSMissing []string          `json:"qosMissing"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if got.Topics["/tf_static"] != 1 || len(got.NoSchema) != 0 || len(got.QoSMissing) != 0 {
			t.Fatalf("%s: node reader %s", filepath.Base(f), out)
		}
	}
}
