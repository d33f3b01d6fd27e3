package tty

import (
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestSetRaw: a pty slave ends up raw at the asked speed (the two robot rates and one more).
func TestSetRaw(t *testing.T) {
	m, s, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer m.Close()
	defer s.Close()
	for _, b := range []int{1_000_000, 230_400, 115_200} {
		if err := SetRaw(int(s.Fd()), b); err != nil {
			t.Fatal(err)
		}
		tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Cflag&unix.CBAUD != bauds[b] {
			t.Errorf("baud %d: cflag %#o", b, tio.Cflag)
		}
		if tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 || tio.Oflag&unix.OPOST != 0 || tio.Iflag&unix.ICRNL != 0 ||
			tio.Cflag&unix.CSIZE != unix.CS8 || tio.Cc[unix.VMIN] != 1 || tio.Cc[unix.VTIME] != 0 {
			t.Errorf("baud %d: not raw 8N1 VMIN 1: %+v", b, tio)
		}
	}
}
