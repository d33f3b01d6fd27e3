package serialport_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/tty"
	"github.com/rosorin/rosorin/serialport"
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
	e := &serialport.BusyError{Path: "/dev/ttyACM0", Holders: []serialport.Holder{{PID: 812, Comm: "rosorin-base"}}, Err: unix.EWOULDBLOCK}
	want := "port /dev/ttyACM0 busy (held by pid 812: rosorin-base); stop the other owner or pass --device"
	if e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
	if !errors.Is(e, unix.EWOULDBLOCK) || !serialport.IsBusy(e) {
		t.Error("unwrap/IsBusy")
	}
}

// TestExclusiveTwice: a second exclusive open fails even for root (flock), and the raw settings are applied.
func TestExclusiveTwice(t *testing.T) {
	link := newPty(t)
	f, err := serialport.OpenBoard(link)
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
	_, err = serialport.OpenBoard(link)
	if !serialport.IsBusy(err) || !strings.Contains(err.Error(), "busy") {
		t.Fatalf("second exclusive open: %v, want busy", err)
	}
	// stop-motors' shared open takes no lock (root passes TIOCEXCL): it works while the driver owns the port.
	if os.Geteuid() == 0 {
		g, err := serialport.OpenShared(link, serialport.BoardBaud)
		if err != nil {
			t.Fatalf("shared open as root: %v", err)
		}
		g.Close()
	}
	f.Close()
	g, err := serialport.OpenBoard(link)
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
	if _, err := serialport.OpenShared(p, serialport.BoardBaud); err == nil || !strings.Contains(err.Error(), "serial device") {
		t.Errorf("regular file: %v", err)
	}
	var be *tty.BaudError
	if _, err := serialport.Open(p, serialport.Options{Baud: 12345}); !errors.As(err, &be) || be.Baud != 12345 || !strings.Contains(err.Error(), "unsupported baud rate 12345") {
		t.Errorf("odd baud: %v", err)
	}
	if _, err := serialport.OpenBoard(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing device: %v", err)
	}
}

// TestReadOnlyLidar: the LiDAR port is opened read-only; a write fails.
func TestReadOnlyLidar(t *testing.T) {
	link := newPty(t)
	f, err := serialport.OpenLidar(link)
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
	owner, err := serialport.OpenBoard(link)
	if err != nil {
		t.Fatal(err)
	}
	_, err = serialport.Open(link, serialport.Options{Baud: serialport.BoardBaud, ReadOnly: true, Listen: true})
	if !serialport.IsBusy(err) {
		t.Fatalf("listen while owned: %v, want busy", err)
	}
	owner.Close()
	l, err := serialport.Open(link, serialport.Options{Baud: serialport.BoardBaud, ReadOnly: true, Listen: true})
	if err != nil {
		t.Fatalf("listen on a free port: %v", err)
	}
	l2, err := serialport.Open(link, serialport.Options{Baud: serialport.BoardBaud, ReadOnly: true, Listen: true})
	if err != nil {
		t.Fatalf("a second listener: %v", err)
	}
	l2.Close()
	if _, err := serialport.OpenBoard(link); !serialport.IsBusy(err) {
		t.Fatalf("exclusive open while listened to: %v, want busy", err)
	}
	l.Close()
}
