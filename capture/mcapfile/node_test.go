package mcapfile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// checker is the independent reader: node + @mcap/core (capture/testdata/mcapcheck; npm ci there first).
// Without node or its modules the test skips, unless ROSORIN_REQUIRE_NODE=1 (CI), where it fails.
func checker(t *testing.T) (node, script string) {
	t.Helper()
	script, _ = filepath.Abs(filepath.Join("..", "testdata", "mcapcheck", "check.js"))
	missing := func(why string) {
		if os.Getenv("ROSORIN_REQUIRE_NODE") == "1" {
			t.Fatalf("ROSORIN_REQUIRE_NODE=1 but %s", why)
		}
		t.Skip(why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@mcap", "core")); err != nil {
		missing("@mcap/core is not installed: run npm ci in capture/testdata/mcapcheck")
	}
	return node, script
}

type nodeCounts struct {
	Profile    string            `json:"profile"`
	Statistics int64             `json:"statistics"`
	Topics     map[string]uint64 `json:"topics"`
}

// TestNodeReaderAgrees: @mcap/core's indexed reader opens a cleanly closed file and a recovered one and
// counts the same messages per topic as Describe and the Statistics record.
func TestNodeReaderAgrees(t *testing.T) {
	node, script := checker(t)
	dir := t.TempDir()
	clean := record(t, dir, 500, true)
	part := record(t, t.TempDir(), 500, false)
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mcap.part")
	if err := os.WriteFile(cut, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	recovered := filepath.Join(dir, "recovered.mcap")
	if _, err := RewriteFile(cut, recovered); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{clean, recovered} {
		out, err := exec.Command(node, script, f).Output()
		if err != nil {
			t.Fatalf("%s: node: %v", f, err)
		}
		var got nodeCounts
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v in %s", f, err, out)
		}
		info, err := DescribeFile(f, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got.Profile != "ros2" || got.Statistics != int64(info.Messages) || len(got.Topics) == 0 {
			t.Fatalf("%s: node %+v, Describe %d messages", f, got, info.Messages)
		}
		for _, c := range info.Channels {
			if c.Messages > 0 && got.Topics[c.Topic] != c.Messages {
				t.Fatalf("%s: %s: node %d messages, Describe %d", f, c.Topic, got.Topics[c.Topic], c.Messages)
			}
		}
		t.Logf("%s: %s", filepath.Base(f), out)
	}
}
