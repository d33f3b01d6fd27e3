package boardtest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests (a Read left blocked).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
