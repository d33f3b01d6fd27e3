//go:build ros2 && linux && cgo

package ros2_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2"

	"github.com/rosorin/rosorin/ros2/dds"
	"go.uber.org/goleak"
)

// TestMain pins every participant of the test binary and its children to 127.0.0.1 (nothing leaves the
// machine) in a domain of its own, before any test or benchmark runs; after them, every bridge, reader,
// stream and peer goroutine the tests started must be gone (goleak).
func TestMain(m *testing.M) {
	os.Setenv("CYCLONEDDS_URI", dds.LoopbackConfig)
	os.Setenv("ROS_DOMAIN_ID", strconv.Itoa(150+os.Getpid()%80))
	os.Unsetenv("ROS_LOCALHOST_ONLY")
	// The tests that call ~/enable and ~/reset_estop over the graph (TestPeerEndToEnd's peer and goPeer,
	// TestOneShotEStop's service calls, the proofs' target) run their bridges with both allowed; the refusal
	// without them is TestGraphEnableResetRefused's, which unsets them.
	os.Setenv(ros2.AllowGraphEnableEnv, "1")
	os.Setenv(ros2.AllowGraphResetEnv, "1")
	code := m.Run()
	testkit.Cleanup()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
