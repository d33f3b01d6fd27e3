package serialport

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rosorin/rosorin/internal/tty"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// Baud rates of the robot's devices, defined by their protocols.
const (
	BoardBaud = board.Baud
	LidarBaud = coind6.Baud
)

// Options say how to open a port.
type Options struct {
	// Baud is the line rate; one of the standard Linux rates (see SupportedBaud).
	Baud int
	// ReadOnly opens O_RDONLY (the LiDAR reader sends nothing); otherwise O_RDWR.
	ReadOnly bool
	// Exclusive sets TIOCEXCL and takes flock(LOCK_EX|LOCK_NB); a port already held gives a *BusyError.
	Exclusive bool
	// Listen takes flock(LOCK_SH|LOCK_NB) and no TIOCEXCL: a passive listener (capture record). An exclusive
	// owner's lock refuses it with a *BusyError, and while it listens an exclusive owner is refused in turn:
	// two readers of one tty would each miss the bytes the other read. Ignored with Exclusive.
	Listen bool
	// KeepInput keeps bytes that arrived before the open; by default they are flushed (stale data from
	// before this owner is not telemetry of now).
	KeepInput bool
}

// SupportedBaud reports whether b is a line rate Open accepts (a standard Linux rate; none elsewhere).
func SupportedBaud(b int) bool { return tty.SupportedBaud(b) }

// ErrUnsupported is returned on systems without the Linux tty ioctls.
var ErrUnsupported = errors.New("port: serial ports are only supported on Linux")

// Open opens path as a raw serial port with o. The file is non-blocking under Go's poller (deadlines work,
// Close interrupts Read). Whoever calls Open closes the file.
func Open(path string, o Options) (*os.File, error) {
	f, err := nativeOpen(path, o)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpenBoard opens the controller board: read-write, exclusive, raw 8N1 at board.Baud.
func OpenBoard(path string) (*os.File, error) {
	return Open(path, Options{Baud: BoardBaud, Exclusive: true})
}

// OpenLidar opens the LiDAR: read-only, exclusive, raw 8N1 at coind6.Baud.
func OpenLidar(path string) (*os.File, error) {
	return Open(path, Options{Baud: LidarBaud, ReadOnly: true, Exclusive: true})
}

// OpenShared opens the board read-write with no lock and no exclusivity, for stop-motors: it must never lock
// out the driver that starts next (chapter 11). It still fails with EBUSY while a non-root owner holds
// TIOCEXCL: it is a tool for when the driver is gone, not a second way in.
func OpenShared(path string, baud int) (*os.File, error) {
	return Open(path, Options{Baud: baud})
}

// Holder is a process that has the port open.
type Holder struct {
	PID  int
	Comm string // /proc/PID/comm, "" if unreadable
}

func (h Holder) String() string {
	if h.Comm == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d: %s", h.PID, h.Comm)
}

// BusyError says the port is held by someone else (TIOCEXCL refused the open, or the flock is taken).
type BusyError struct {
	Path    string
	Holders []Holder // may be empty: other users' processes are invisible to a non-root caller
	Err     error    // the underlying EBUSY or EWOULDBLOCK
}

func (e *BusyError) Error() string {
	held := ""
	if len(e.Holders) > 0 {
		hs := make([]string, len(e.Holders))
		for i, h := range e.Holders {
			hs[i] = h.String()
		}
		held = " (held by " + strings.Join(hs, ", ") + ")"
	}
	return fmt.Sprintf("port %s busy%s; stop the other owner or pass --device", e.Path, held)
}

func (e *BusyError) Unwrap() error { return e.Err }

// IsBusy reports whether err says the port is held by someone else.
func IsBusy(err error) bool {
	var b *BusyError
	return errors.As(err, &b)
}

// Holders lists the processes that have path (or the device it points to) open, found by comparing device
// numbers in /proc/*/fd. The calling process is left out. Unreadable entries are skipped silently: the list
// is a hint for an error message, not a guarantee.
func Holders(path string) []Holder { return nativeHolders(path) }
