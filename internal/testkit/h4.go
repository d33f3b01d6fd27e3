package testkit

import (
	"os"
	"strings"
)

// From returns what was written from byte offset off on ("" when off is past the end): the part of a log
// shared by several tests that one test wrote (take Len at its start).
func (l *LockedBuffer) From(off int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if off < 0 || off > l.b.Len() {
		return ""
	}
	return string(l.b.Bytes()[off:])
}

// QuickExitGORACE is the GORACE value (the current one plus atexit_sleep_ms=0) under which a -race binary
// skips the race detector's one-second sleep at exit, so that a child process a test starts exits as fast
// under -race as in the normal run. Set it in the environment the children inherit (os.Setenv in TestMain, or
// t.Setenv).
func QuickExitGORACE() string {
	return strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
}
