package tty

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestUnknownBaud: a rate that is not a line rate is an error naming it and the choices, on every system,
// before the device is touched (fd -1 would fail otherwise).
func TestUnknownBaud(t *testing.T) {
	for _, b := range []int{0, -1, 115201, 250000} {
		err := SetRaw(-1, b)
		var be *BaudError
		if !errors.As(err, &be) || be.Baud != b || SupportedBaud(b) {
			t.Errorf("SetRaw(%d) = %v, want a *BaudError", b, err)
			continue
		}
		if runtime.GOOS == "linux" && !strings.Contains(err.Error(), "1000000") {
			t.Errorf("the error does not list the supported rates: %v", err)
		}
	}
	if runtime.GOOS != "linux" {
		if err := SetRaw(0, 1000000); !errors.Is(err, ErrUnsupported) {
			t.Fatalf("SetRaw on %s: %v, want ErrUnsupported", runtime.GOOS, err)
		}
	}
}
