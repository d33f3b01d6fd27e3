package harness

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// errPortHeld means another process owns the port (its exclusive open or its advisory lock).
var errPortHeld = errors.New("port held by another process")

// openPortReadOnly opens the board's port for reading only, without taking it: no TIOCEXCL and no lock, so
// stop-motors and a restarting supervisor can still open it. It refuses (errPortHeld) when another process
// holds the port. The tty is put in raw mode at 1,000,000 baud before any byte is read: a port left in
// cooked mode with echo on would write every received byte back to the board.
func openPortReadOnly(device string) (*os.File, error) {
	if held, who := portLocked(device); held {
		return nil, fmt.Errorf("%s: %w (%s)", device, errPortHeld, who)
	}
	fd, err := unix.Open(device, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.EBUSY) {
			return nil, fmt.Errorf("%s: %w (opened exclusively)", device, errPortHeld)
		}
		return nil, fmt.Errorf("open %s: %w", device, err)
	}
	if err := makeRaw(fd); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("%s: raw mode: %w", device, err)
	}
	// A non-blocking descriptor is registered with the runtime poller, so read deadlines work.
	return os.NewFile(uintptr(fd), device), nil
}

// makeRaw is cfmakeraw plus 1,000,000 baud 8N1, the board's line settings.
func makeRaw(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CSTOPB | unix.CRTSCTS | unix.CBAUD
	t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL | unix.B1000000
	t.Ispeed, t.Ospeed = unix.B1000000, unix.B1000000
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

// portLocked reports whether /proc/locks lists an advisory lock (flock or POSIX) on the device's inode, and
// whose. Reading /proc/locks takes no lock itself: testing with flock(LOCK_NB) would, for an instant, make
// a starting supervisor's own lock attempt fail.
func portLocked(device string) (bool, string) {
	var st unix.Stat_t
	if err := unix.Stat(device, &st); err != nil {
		return false, ""
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false, ""
	}
	defer f.Close()
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 14275 fe:00:9980689 0 EOF"; blocked waiters are listed as "1: -> FLOCK ...".
		fs := strings.Fields(sc.Text())
		for i, x := range fs {
			if x == want && i > 0 {
				pid, _ := strconv.Atoi(fs[i-1])
				return true, fmt.Sprintf("locked by pid %d", pid)
			}
		}
	}
	return false, ""
}
