package serialport

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/tty"
)

func nativeOpen(path string, o Options) (*os.File, error) {
	if !tty.SupportedBaud(o.Baud) {
		return nil, fmt.Errorf("port %s: %w", path, &tty.BaudError{Baud: o.Baud})
	}
	mode := unix.O_RDWR
	if o.ReadOnly {
		mode = unix.O_RDONLY
	}
	// O_NONBLOCK: open must not wait for carrier, and Go's poller then owns the descriptor (Close interrupts
	// Read, deadlines work). CLOCAL below makes the modem lines irrelevant afterwards.
	fd, err := unix.Open(path, mode|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, mode|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		if err == unix.EBUSY { // TIOCEXCL held by another opener (we are not root)
			return nil, &BusyError{Path: path, Holders: nativeHolders(path), Err: err}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	fail := func(op string, err error) (*os.File, error) {
		unix.Close(fd)
		return nil, &os.PathError{Op: op, Path: path, Err: err}
	}
	if o.Listen && !o.Exclusive {
		if err := flock(fd, unix.LOCK_SH); err != nil {
			unix.Close(fd)
			if err == unix.EWOULDBLOCK {
				return nil, &BusyError{Path: path, Holders: nativeHolders(path), Err: err}
			}
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
	}
	if o.Exclusive {
		// flock first: it is the layer root cannot bypass, so it decides who owns the port.
		if err := flockNB(fd); err != nil {
			unix.Close(fd)
			if err == unix.EWOULDBLOCK {
				return nil, &BusyError{Path: path, Holders: nativeHolders(path), Err: err}
			}
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
		if err := unix.IoctlSetInt(fd, unix.TIOCEXCL, 0); err != nil {
			return fail("ioctl TIOCEXCL", fmt.Errorf("%w (is it a serial device?)", err))
		}
	}
	if err := tty.SetRaw(fd, o.Baud); err != nil {
		return fail("set raw termios", fmt.Errorf("%w (is it a serial device?)", err))
	}
	if !o.KeepInput {
		if err := unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH); err != nil {
			return fail("flush input", err)
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

func flockNB(fd int) error { return flock(fd, unix.LOCK_EX) }

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		if err != unix.EINTR {
			return err
		}
	}
}

// Drain waits until everything written to f has been transmitted (tcdrain).
func Drain(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	if err := rc.Control(func(fd uintptr) { ioErr = unix.IoctlSetInt(int(fd), unix.TCSBRK, 1) }); err != nil {
		return err
	}
	return ioErr
}

func nativeHolders(path string) []Holder {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return nil
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []Holder
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name() + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			var fst unix.Stat_t
			if unix.Stat(dir+"/"+fd.Name(), &fst) != nil {
				continue
			}
			if fst.Mode&unix.S_IFMT == unix.S_IFCHR && fst.Rdev == st.Rdev {
				comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
				out = append(out, Holder{PID: pid, Comm: strings.TrimSpace(string(comm))})
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
