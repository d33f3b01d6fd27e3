package api_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/driver/api"
)

// TestMain: every server, stream and client goroutine the tests started must be gone at the end. With
// api.AsClientEnv set, this binary is instead the client of the role tests, re-run under another uid
// (access_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(api.AsClientEnv) != "" {
		os.Exit(api.RunAsClient())
	}
	goleak.VerifyTestMain(m)
}
