package supervisor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/protocol/board"
)

// ChildBoard returns the board descriptors a driver child inherits from the supervisor: in (BoardInFD, the
// pipe of board bytes) and out (BoardOutFD, the port). It fails with a clear message when the process was not
// started by `rosorin-base run`.
func ChildBoard() (in, out *os.File, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(BoardInFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, nil, errors.New("no board pipe on fd 3: the driver child is started by `rosorin-base run`, not by hand")
	}
	if err := unix.Fstat(BoardOutFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return nil, nil, errors.New("no board port on fd 4: the driver child is started by `rosorin-base run`, not by hand")
	}
	return os.NewFile(BoardInFD, "board-in"), os.NewFile(BoardOutFD, "board-out"), nil
}

// StartLatchedEnv names the environment variable by which the supervisor starts a driver child with its
// e-stop latched (driver.Options.StartLatched): set, with the reason, for every driver it restarts after one
// that did not exit cleanly or exited latched (restartLatch in supervisor.go).
const StartLatchedEnv = "ROSORIN_START_LATCHED"

// ChildStartLatched returns the e-stop reason this driver child must start latched with ("" for none) and
// removes StartLatchedEnv from the environment, so nothing this process starts inherits it.
func ChildStartLatched() string {
	v, ok := os.LookupEnv(StartLatchedEnv)
	if !ok {
		return ""
	}
	_ = os.Unsetenv(StartLatchedEnv)
	if v == "" {
		// Set but empty: the supervisor meant "latched" (it never sets an empty reason); keep it latched.
		return "driver restarted (reason lost)"
	}
	return v
}

// ErrHalted is returned by HaltWriter.Write after Halt: nothing but stop frames reaches the board any more.
var ErrHalted = errors.New("board output halted: only stop frames pass")

// HaltWriter guards the driver's board output. Halt writes the stop frame and latches: every later write
// except a stop frame is refused. So the stop frame written on SIGTERM/SIGINT (the supervisor's death signal,
// or shutdown) is the last thing the board hears, even if the control loop was about to send one more motor
// frame before it noticed the cancellation.
type HaltWriter struct {
	mu     sync.Mutex
	w      io.Writer
	halted bool
	stop   []byte
}

// NewHaltWriter wraps w, which the caller keeps owning.
func NewHaltWriter(w io.Writer) *HaltWriter { return &HaltWriter{w: w, stop: board.StopFrame()} }

// Write passes p on, unless halted (then only a stop frame passes).
func (h *HaltWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.halted && !board.IsStopFrame(p) {
		return 0, ErrHalted
	}
	return h.w.Write(p)
}

// Halt writes the stop frame and refuses every later non-stop write. It may be called more than once (each
// call writes the frame again).
func (h *HaltWriter) Halt() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.halted = true
	if _, err := h.w.Write(h.stop); err != nil {
		return fmt.Errorf("stop frame: %w", err)
	}
	return nil
}

// Halted reports whether Halt was called.
func (h *HaltWriter) Halted() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.halted
}

// HeartbeatWriter is the driver child's end of its heartbeat pipe (HeartbeatFD). Write never blocks: it is one
// raw write(2) on a non-blocking pipe, not Go's poller (which would park the calling goroutine, the control
// loop, on a full pipe). A full pipe means the supervisor is not reading (stopped or gone): the write fails and
// the driver counts it.
type HeartbeatWriter struct{ fd int }

var _ io.Writer = (*HeartbeatWriter)(nil)

// ChildHeartbeat returns the heartbeat pipe the supervisor passed to this driver child, or nil (and no error)
// when it passed none (HeartbeatEnv unset: an older supervisor, or the watchdog is someone else's business). It
// removes HeartbeatEnv from the environment, so nothing this process starts believes it owns the pipe.
func ChildHeartbeat() (*HeartbeatWriter, error) {
	fd, ok, err := childPipe(HeartbeatEnv, "heartbeat pipe")
	if !ok || err != nil {
		return nil, err
	}
	return &HeartbeatWriter{fd: fd}, nil
}

// childPipe takes over the pipe the supervisor passed under env (what names it in errors): ok is false (and
// err nil) when env is unset. It removes env from the environment, so nothing this process starts believes
// it owns the pipe, and returns the descriptor close-on-exec and non-blocking (written with one raw
// write(2), never through Go's poller).
func childPipe(env, what string) (fd int, ok bool, err error) {
	v, ok := os.LookupEnv(env)
	if !ok {
		return -1, false, nil
	}
	_ = os.Unsetenv(env)
	fd, err = strconv.Atoi(v)
	if err != nil || fd < 3 {
		return -1, true, fmt.Errorf("%s=%q is not a descriptor number; the supervisor and the driver are different builds?", env, v)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return -1, true, fmt.Errorf("%s=%d but fd %d is not a pipe: the driver child is started by `rosorin-base run`", env, fd, fd)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		return -1, true, fmt.Errorf("%s: %w", what, err)
	}
	return fd, true, nil
}

// Write writes p to the heartbeat pipe without blocking.
func (h *HeartbeatWriter) Write(p []byte) (int, error) {
	n, err := rawWrite(h.fd, p)
	switch {
	case err == unix.EAGAIN:
		return 0, errors.New("heartbeat pipe full: the supervisor is not reading it (stopped?)")
	case err != nil:
		return 0, fmt.Errorf("heartbeat pipe: %w", err)
	}
	return n, nil
}

// rawWrite is one write(2) of p on a non-blocking child pipe, retried only when a signal interrupted it:
// a full pipe is EAGAIN at once, a pipe whose reader is gone EPIPE.
func rawWrite(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Write(fd, p)
		if err == unix.EINTR {
			continue
		}
		return n, err
	}
}
