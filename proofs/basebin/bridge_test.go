package basebin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With ROSORIN_ROS2 set (stopproof --ros2 --sim), the tree's bridge is built beside the tree's rosorin-base,
// where `run --ros2` looks for it; without, it is not built.
func TestFindBuildsTheBridgeBesideForROS2(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rosorin-base and rosorin-ros2")
	}
	for _, on := range []string{"", "1"} {
		t.Setenv("ROSORIN_ROS2", on)
		dir := t.TempDir()
		b, err := Find(context.Background(), "", dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(filepath.Join(dir, "rosorin-ros2"))
		if built := err == nil; built != (on == "1") {
			t.Errorf("ROSORIN_ROS2=%q: bridge built %v (%v)", on, built, err)
		}
		if says := strings.Contains(b.How, "rosorin-ros2"); says != (on == "1") {
			t.Errorf("ROSORIN_ROS2=%q: how %q", on, b.How)
		}
	}
}
