package lidar_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests: every Reader and Forwarder a test starts
// must have stopped (their Run returned) by the end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
