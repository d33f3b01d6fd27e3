//go:build ros2 && linux && cgo

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2"
)

var ros2Once sync.Once

// stopproofROS2 builds stopproof with the ros2 tag into binDir (once) and runs it like stopproof does.
func stopproofROS2(t *testing.T, timeout time.Duration, args ...string) (string, int) {
	t.Helper()
	// The ROS 2 target resets and enables through ~/reset_estop and ~/enable: the --sim service's bridge
	// inherits the parameters that allow them (off by default: docs/ros2.md, "Who may do what on the graph").
	t.Setenv(ros2.AllowGraphEnableEnv, "1")
	t.Setenv(ros2.AllowGraphResetEnv, "1")
	bin := filepath.Join(binDir, "stopproof-ros2")
	var berr error
	ros2Once.Do(func() {
		args := []string{"build", "-tags", "ros2", "-o", bin}
		if testkit.RaceEnabled { // as bins does: the proof's recorders and triggers race-checked
			args = append(args, "-race")
		}
		if o, err := exec.Command("go", append(args, "github.com/rosorin/rosorin/cmd/stopproof")...).CombinedOutput(); err != nil {
			berr = err
			t.Logf("%s", o)
		}
	})
	if berr != nil {
		t.Fatal(berr)
	}
	return runStopproof(t, commandOf(t, bin, "", args...), timeout)
}

// TestProveSimROS2IgnoreMotorFails is the negative control of the proof over ROS 2: the e-stop goes out on
// the graph, the bridge latches the driver, the stop frame reaches a board that ignores it, and every
// line must FAIL. (The passing run is CI's `stopproof prove --sim --ros2 deadman,estop,disable,kill`.)
func TestProveSimROS2IgnoreMotorFails(t *testing.T) {
	out, code := stopproofROS2(t, 3*time.Minute, "prove", "--sim", "--ros2", "--sim-fault", "ignore-motor", "estop",
		"--spin", "2s", "--hold", "3s", "--evidence-dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "RESULT: 0/3 passed") {
		t.Fatalf("exit %d, want 1 and RESULT: 0/3 passed", code)
	}
	if !strings.Contains(out, "target: ROS 2 node rosorin_board_driver") {
		t.Error("the output does not name the ROS 2 target")
	}
	assertAllNeverSettled(t, out, 3)
}
