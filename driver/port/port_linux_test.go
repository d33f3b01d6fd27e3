package port_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/port"
	"github.com/rosorin/rosorin/internal/tty"
)

func newPty(t *testing.T) string {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	link := filepath.Join(t.TempDir(), "ttyACM0")
	if err := os.Symlink(s.Name(), link); err != nil {
		t.Fatal(err)
	}
	return link
}

func TestBusyErrorMessage(t *testing.T) {
	e := &port.BusyError{Path: "/dev/ttyACM0", Holders: []port.Holder{{PID: 812, Comm: "rosorin-base"}}, Err: unix.EWOULDBLOCK}
	want := "port /dev/ttyACM0 busy (held by pid 812: rosorin-base); stop the other owner or pass --device"
	if e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
	if !errors.Is(e, unix.EWOULDBLOCK) || !port.IsBusy(e) {
		t.Error("unwrap/IsBusy")
	}
}

// TestExclusiveTwice: a second exclusive open fails even for root (flock), and the raw settings are applied.
func TestExclusiveTwice(t *testing.T) {
	link := newPty(t)
	f, err := port.OpenBoard(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, _ := f.SyscallConn()
	var tio *unix.Termios
	_ = rc.Control(func(fd uintptr) { tio, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) })
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&(unix.ICANON|unix.ECHO) != 0 || tio.Cflag&unix.CSIZE != unix.CS8 || tio.Cc[unix.VMIN] != 1 ||
		tio.Cflag&unix.CBAUD != unix.B1000000 || tio.Oflag != 0 || tio.Iflag != 0 {
		t.Errorf("not raw 8N1 1M VMIN 1: %+v", tio)
	}
	_, err = port.OpenBoard(link)
	if !port.IsBusy(err) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("second exclusive open: %v, want busy", err)
	}
	// stop-motors' shared open takes no lock (root passes TIOCEXCL): it works while the driver owns the port.
	if os.Geteuid() == 0 {
		g, err := port.OpenShared(link, port.BoardBaud)
		if err != nil {
			t.Fatalf("shared open as root: %v", err)
		}
		g.Close()
	}
	f.Close()
	g, err := port.OpenBoard(link)
	if err != nil {
		t.Fatalf("exclusive open after the owner closed: %v", err)
	}
	g.Close()
}

func TestNotATty(t *testing.T) {
	p := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := port.OpenShared(p, port.BoardBaud); err == nil || !strings.Contains(err.Error(), "serial device") {
		t.Errorf("regular file: %v", err)
	}
	var be *tty.BaudError
	if _, err := port.Open(p, port.Options{Baud: 12345}); !errors.As(err, &be) || be.Baud != 12345 || !strings.Contains(err.Error(), "unsupported baud rate 12345") {
		t.Errorf("odd baud: %v", err)
	}
	if _, err := port.OpenBoard(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing device: %v", err)
	}
}

// TestReadOnlyLidar: the LiDAR port is opened read-only; a write fails.
func TestReadOnlyLidar(t *testing.T) {
	link := newPty(t)
	f, err := port.OpenLidar(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte{1}); err == nil {
		t.Error("write to the read-only LiDAR port succeeded")
	}
}

// TestListenAgainstOwner: a passive listener (capture record) is refused while an exclusive owner holds the
// port, and while it listens an exclusive owner is refused in turn, even as root (flock).
func TestListenAgainstOwner(t *testing.T) {
	link := newPty(t)
	owner, err := port.OpenBoard(link)
	if err != nil {
		t.Fatal(err)
	}
	_, err = port.Open(link, port.Options{Baud: port.BoardBaud, ReadOnly: true, Listen: true})
	if !port.IsBusy(err) {
		t.Fatalf("listen while owned: %v, want busy", err)
	}
	owner.Close()
	l, err := port.Open(link, port.Options{Baud: port.BoardBaud, ReadOnly: true, Listen: true})
	if err != nil {
		t.Fatalf("listen on a free port: %v", err)
	}
	l2, err := port.Open(link, port.Options{Baud: port.BoardBaud, ReadOnly: true, Listen: true})
	if err != nil {
		t.Fatalf("a second listener: %v", err)
	}
	l2.Close()
	if _, err := port.OpenBoard(link); !port.IsBusy(err) {
		t.Fatalf("exclusive open while listened to: %v, want busy", err)
	}
	l.Close()
}
