// Package rawio reads and writes non-blocking descriptors (the board's and the LiDAR's ttys, the pipes
// between rosorin-base's processes) with raw system calls under Go's poller.
//
// A read or write of a non-blocking descriptor never blocks: it returns data, room or EAGAIN at once. Go's
// os.File makes each such call through syscall.Syscall, whose entersyscall wakes the runtime's sysmon thread
// when it sleeps, and sysmon then spins in 20 µs sleeps before it sleeps again. At a few hundred reads a
// second that is most of an idle process's thread wake-ups (docs/footprint.md). File makes the same calls
// with RawSyscall and waits for readiness on the poller exactly as os.File does: deadlines, Close and EOF
// behave the same.
//
// Only for descriptors in non-blocking mode: NewFile refuses any other (a blocking read through RawSyscall
// would hold its thread and P without the runtime knowing).
package rawio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// File is an *os.File whose Read and Write are raw system calls; everything else is the os.File's.
type File struct {
	*os.File
	rc syscall.RawConn
}

// ErrBlocking is returned by NewFile for a descriptor not in non-blocking mode.
var ErrBlocking = errors.New("rawio: descriptor is in blocking mode")

// NewFile wraps f, which must be in non-blocking mode (a tty opened by serialport, a pipe made with
// O_NONBLOCK, an inherited descriptor of either). The caller keeps ownership: closing the File closes f.
func NewFile(f *os.File) (*File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("rawio: %s: %w", f.Name(), err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		return nil, fmt.Errorf("rawio: %s: %w", f.Name(), err)
	}
	if ferr != nil {
		return nil, fmt.Errorf("rawio: %s: %w", f.Name(), ferr)
	}
	if flags&unix.O_NONBLOCK == 0 {
		return nil, fmt.Errorf("%w: %s", ErrBlocking, f.Name())
	}
	return &File{File: f, rc: rc}, nil
}

// Read is os.File's Read: it waits on the poller until data, end of file, the read deadline or Close.
func (f *File) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := f.rc.Read(func(fd uintptr) bool {
		n, errno = Read(fd, b)
		return errno != unix.EAGAIN
	})
	switch {
	case err != nil:
		return 0, f.wrap("read", err)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write is os.File's Write: all of b, waiting on the poller for room, unless the write deadline passes, Close
// comes or the descriptor fails.
func (f *File) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		var n int
		var errno syscall.Errno
		err := f.rc.Write(func(fd uintptr) bool {
			n, errno = Write(fd, b[done:])
			return errno != unix.EAGAIN
		})
		switch {
		case err != nil:
			return done, f.wrap("write", err)
		case errno != 0:
			return done, &os.PathError{Op: "write", Path: f.Name(), Err: errno}
		}
		done += n
	}
	return done, nil
}

// wrap gives a poller error os.File's form: a passed deadline stays os.ErrDeadlineExceeded, a closed file is
// os.ErrClosed.
func (f *File) wrap(op string, err error) error {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		if _, serr := f.File.Stat(); errors.Is(serr, os.ErrClosed) {
			err = os.ErrClosed
		}
	}
	return &os.PathError{Op: op, Path: f.Name(), Err: err}
}

// Read is one read(2) of the non-blocking descriptor fd with RawSyscall, retried only on EINTR: data, 0 at
// end of file, or an errno (EAGAIN: nothing yet).
func Read(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	for {
		r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e != unix.EINTR {
			if e != 0 {
				return 0, e
			}
			return int(r), 0
		}
	}
}

// Write is one write(2) of the non-blocking descriptor fd with RawSyscall, retried only on EINTR: bytes
// written (possibly fewer than len(b)) or an errno (EAGAIN: no room, EPIPE: no reader).
func Write(fd uintptr, b []byte) (int, syscall.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	for {
		r, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e != unix.EINTR {
			if e != 0 {
				return 0, e
			}
			return int(r), 0
		}
	}
}
