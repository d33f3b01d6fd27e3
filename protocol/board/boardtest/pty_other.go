//go:build !linux

package boardtest

import (
	"runtime"
	"testing"
)

// OpenPTY skips the test: pseudo-terminals for the fake board are Linux only (internal/pty).
func OpenPTY(t testing.TB, o Options) *Board {
	t.Helper()
	t.Skipf("no pseudo-terminal for the fake board on %s", runtime.GOOS)
	return nil
}
