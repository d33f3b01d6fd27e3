package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2/dds"
)

// TestRunROS2WithoutTag: a binary built without the ros2 tag refuses `run --ros2` with the build hint,
// before it looks at the board port (the device named here does not exist, and the error is not about it).
func TestRunROS2WithoutTag(t *testing.T) {
	if dds.Available() {
		t.Skip("this test binary has the ros2 tag: the default build's refusal is what is tested")
	}
	bin, err := testkit.Binary("./cmd/rosorin-base") // the same build as the other tests of the package
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "--ros2", "--device", filepath.Join(dir, "no-such-board"), "--lidar", "", "--socket", filepath.Join(dir, "s.sock"), "--state-dir", dir},
		{"ros2", "--socket", filepath.Join(dir, "s.sock")},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err == nil {
			t.Fatalf("%v: exit 0\n%s", args, out)
		}
		if !strings.Contains(string(out), "go build -tags ros2") || strings.Contains(string(out), "no-such-board") {
			t.Errorf("%v: want the build hint and nothing about the port, got:\n%s", args, out)
		}
	}
}
