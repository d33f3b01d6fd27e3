package supervisor

// What the supervisor asks of the operating system, behind one small interface: open the board, start the
// children with their descriptors, signal and reap them. Everything else (restart backoff, reopen, the
// watchdog's judgement, shutdown order) is plain Go on timers and channels, so the virtual-time tests
// (virtual_test.go) run the real loop in a testing/synctest bubble against in-memory fakes of these, and the
// real-time end-to-end tests keep what only the kernel can show (signals, pdeathsig, pidfds, the tty).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/internal/rawio"
	"github.com/rosorin/rosorin/serialport"
)

// osys is the supervisor's operating system.
type osys interface {
	// openBoard opens the board's serial port exclusively (a *port.BusyError when someone holds it).
	openBoard(device string) (boardPort, error)
	// startDriver starts the driver child with the board (its pipe of board bytes and port, which stays the
	// caller's) and its heartbeat pipe; with tap, also the tx tap (a failure there leaves driverIO.tap nil and
	// sets tapErr).
	startDriver(argv, env []string, port boardPort, tap bool, pdeathsig syscall.Signal) (driverIO, error)
	// startReader starts the LiDAR reader child.
	startReader(argv, env []string) (process, int, error)
	// close releases what the starts needed; called once, when no child is alive.
	close()
}

// boardPort is the board's serial port as the pump, the stopper and the driver's start use it.
type boardPort interface {
	io.ReadWriteCloser
	SetWriteDeadline(t time.Time) error
}

// process is a started child (proc, spawn_linux.go).
type process interface {
	signal(sig syscall.Signal) error
	wait() (syscall.WaitStatus, error)
	release()
}

// heartbeatSource is the supervisor's end of a driver's heartbeat pipe (watchHeartbeat).
type heartbeatSource interface {
	io.ReadCloser
	SetReadDeadline(t time.Time) error
	// readNow reads what is already in the pipe, without waiting and whatever the deadline says (rawRead).
	readNow(buf []byte) (n int, eof bool)
}

// driverIO is a started driver child and the supervisor's ends of its pipes.
type driverIO struct {
	p         process
	pid       int
	board     boardFeed       // the pipe of board bytes (childproc.BoardInFD)
	heartbeat heartbeatSource // childproc.HeartbeatFD
	tap       *os.File        // the tx tap (childproc.TxTapFD); nil without capture or when tapErr
	tapErr    error
}

// realSys is the operating system: a spawner thread, pidfds, pipes.
type realSys struct{ sp *spawner }

var _ osys = (*realSys)(nil)

func (r *realSys) openBoard(device string) (boardPort, error) {
	f, err := serialport.OpenBoard(device)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (r *realSys) spawner() *spawner {
	if r.sp == nil {
		r.sp = newSpawner()
	}
	return r.sp
}

func (r *realSys) startDriver(argv, env []string, bp boardPort, tap bool, pdeathsig syscall.Signal) (driverIO, error) {
	childEnd, w, err := boardPipe()
	if err != nil {
		return driverIO{}, err
	}
	hbEnd, hb, err := heartbeatPipe()
	if err != nil {
		unix.Close(childEnd)
		w.Close()
		return driverIO{}, err
	}
	portFD := -1
	if f, ok := bp.(*os.File); ok {
		portFD, err = dupCloexec(f)
	} else {
		err = errors.New("not a file")
	}
	if err != nil {
		err = fmt.Errorf("dup board port: %w", err)
		unix.Close(childEnd)
		w.Close()
		unix.Close(hbEnd)
		hb.Close()
		return driverIO{}, err
	}
	fds := []uintptr{0, 1, 2, uintptr(childEnd), uintptr(portFD), uintptr(hbEnd)}
	feed, err := newPipeFeed(w)
	if err != nil {
		unix.Close(childEnd)
		w.Close()
		unix.Close(portFD)
		unix.Close(hbEnd)
		hb.Close()
		return driverIO{}, err
	}
	d := driverIO{board: feed, heartbeat: newFileHeartbeat(hb)}
	if tap {
		tapEnd, tr, err := heartbeatPipe() // the same kind of pipe: non-blocking, the child's end writes
		if err != nil {
			d.tapErr = err
		} else {
			d.tap = tr
			fds = append(fds, uintptr(tapEnd))
			env = append(env, childproc.TxTapEnv+"="+strconv.Itoa(childproc.TxTapFD))
			defer unix.Close(tapEnd)
		}
	}
	pid, err := r.spawner().start(argv, env, fds, pdeathsig)
	unix.Close(childEnd)
	unix.Close(portFD)
	// The supervisor keeps no write end: when the driver dies, the watcher reads EOF.
	unix.Close(hbEnd)
	if err != nil {
		w.Close()
		hb.Close()
		if d.tap != nil {
			d.tap.Close()
		}
		return driverIO{}, err
	}
	d.p, d.pid = newProc(pid), pid
	return d, nil
}

func (r *realSys) startReader(argv, env []string) (process, int, error) {
	pid, err := r.spawner().start(argv, env, []uintptr{0, 1, 2}, childDeathSignal)
	if err != nil {
		return nil, 0, err
	}
	return newProc(pid), pid, nil
}

func (r *realSys) close() {
	if r.sp != nil {
		r.sp.close()
	}
}

// fileHeartbeat is a heartbeat pipe's read end under Go's poller, read with raw system calls (rawio) when
// the pipe is non-blocking, as heartbeatPipe makes it.
type fileHeartbeat struct {
	*os.File
	raw *rawio.File // nil: f.File's own reads
}

func newFileHeartbeat(f *os.File) fileHeartbeat {
	raw, _ := rawio.NewFile(f)
	return fileHeartbeat{File: f, raw: raw}
}

func (f fileHeartbeat) Read(b []byte) (int, error) {
	if f.raw != nil {
		return f.raw.Read(b)
	}
	return f.File.Read(b)
}

func (f fileHeartbeat) readNow(buf []byte) (int, bool) { return rawRead(f.File, buf) }
