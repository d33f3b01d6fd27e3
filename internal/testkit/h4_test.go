package testkit

import "testing"

func TestLockedBufferFrom(t *testing.T) {
	var b LockedBuffer
	b.Write([]byte("before "))
	off := b.Len()
	b.Write([]byte("mine"))
	for _, tc := range []struct {
		off  int
		want string
	}{{off, "mine"}, {0, "before mine"}, {b.Len(), ""}, {b.Len() + 1, ""}, {-1, ""}} {
		if got := b.From(tc.off); got != tc.want {
			t.Errorf("From(%d) = %q, want %q", tc.off, got, tc.want)
		}
	}
}

func TestQuickExitGORACE(t *testing.T) {
	t.Setenv("GORACE", "halt_on_error=1")
	if got := QuickExitGORACE(); got != "halt_on_error=1 atexit_sleep_ms=0" {
		t.Fatalf("QuickExitGORACE() = %q", got)
	}
}
