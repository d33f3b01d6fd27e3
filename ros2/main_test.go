//go:build ros2 && linux && cgo

package ros2_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"

	"github.com/rosorin/rosorin/ros2/dds"
)

// TestMain pins every participant of the test binary and its children to 127.0.0.1 (nothing leaves the
// machine) in a domain of its own, before any test or benchmark runs.
func TestMain(m *testing.M) {
	os.Setenv("CYCLONEDDS_URI", dds.LoopbackConfig)
	os.Setenv("ROS_DOMAIN_ID", strconv.Itoa(150+os.Getpid()%80))
	os.Unsetenv("ROS_LOCALHOST_ONLY")
	code := m.Run()
	removePeers()
	testkit.Cleanup()
	os.Exit(code)
}
