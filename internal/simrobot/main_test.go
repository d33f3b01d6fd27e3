package simrobot

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests (a service's waiter after a failed start).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
