// Package tty puts a terminal device into the raw mode the robot's serial links use (cfmakeraw plus 8N1,
// receiver on, modem lines ignored, VMIN 1 / VTIME 0, the seed's tcsetattr). It is the one implementation
// for the driver's ports (serialport) and the simulator's pseudo-terminals (sim). Linux only: elsewhere
// SetRaw returns ErrUnsupported.
package tty

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrUnsupported is returned on systems without the Linux termios ioctls.
var ErrUnsupported = errors.New("tty: raw serial settings are only supported on Linux")

// SupportedBaud reports whether b is a line rate SetRaw accepts.
func SupportedBaud(b int) bool { _, ok := bauds[b]; return ok }

// Bauds lists the accepted rates, ascending.
func Bauds() []int {
	out := make([]int, 0, len(bauds))
	for b := range bauds {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// BaudError says a rate is not one of the supported line rates.
type BaudError struct{ Baud int }

func (e *BaudError) Error() string {
	if len(bauds) == 0 {
		return fmt.Sprintf("baud rate %d: %v", e.Baud, ErrUnsupported)
	}
	s := make([]string, 0, len(bauds))
	for _, b := range Bauds() {
		s = append(s, strconv.Itoa(b))
	}
	return fmt.Sprintf("unsupported baud rate %d; use one of %s", e.Baud, strings.Join(s, ", "))
}

// SetRaw sets fd raw at baud. An unsupported baud is a *BaudError, never a silent fallback.
func SetRaw(fd int, baud int) error {
	speed, ok := bauds[baud]
	if !ok {
		return &BaudError{Baud: baud}
	}
	return nativeSetRaw(fd, speed)
}
