package api_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain: every server, stream and client goroutine the tests started must be gone at the end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
