package childproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/rawio"
)

// File descriptors of a driver child started by the supervisor, and the environment variables that name the
// optional ones. A descriptor number is trusted only when the parent says it passed one (the sd_listen_fds
// pattern): fd 5 in a process started by hand may be anything.
const (
	// BoardInFD is the read end of a pipe carrying every byte the board sends (the supervisor is the port's
	// only reader). It ends (EOF) when the supervisor dies.
	BoardInFD = 3
	// BoardOutFD is the board's serial port itself (the same open file as the supervisor's), for writing.
	BoardOutFD = 4
	// HeartbeatFD is the write end of the driver child's heartbeat pipe (Heartbeat); HeartbeatEnv names it.
	HeartbeatFD  = 5
	HeartbeatEnv = "ROSORIN_HEARTBEAT_FD"
	// TxTapFD is the tx tap's write end (OpenTxTap); TxTapEnv names it, set only under --capture.
	TxTapFD  = 6
	TxTapEnv = "ROSORIN_TX_TAP_FD"
	// StartLatchedEnv carries the e-stop reason a driver child starts latched with (driver.Options.StartLatched):
	// set by the supervisor for every driver it restarts after one that did not exit cleanly or exited latched.
	StartLatchedEnv = "ROSORIN_START_LATCHED"
)

// Board returns the board descriptors a driver child inherits from the supervisor: in (BoardInFD, the pipe of
// board bytes) and out (BoardOutFD, the port). It fails with a clear message when the process was not started
// by `rosorin-base run`.
func Board() (in, out *os.File, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(BoardInFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, nil, errors.New("no board pipe on fd 3: the driver child is started by `rosorin-base run`, not by hand")
	}
	if err := unix.Fstat(BoardOutFD, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return nil, nil, errors.New("no board port on fd 4: the driver child is started by `rosorin-base run`, not by hand")
	}
	return os.NewFile(BoardInFD, "board-in"), os.NewFile(BoardOutFD, "board-out"), nil
}

// StartLatched returns the e-stop reason this driver child must start latched with ("" for none) and removes
// StartLatchedEnv from the environment, so nothing this process starts inherits it.
func StartLatched() string {
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

// EnvSafe makes a reason fit an environment variable's value (the supervisor's side of StartLatchedEnv): no
// NUL (exec would fail with EINVAL and the driver would never start), no other control characters, at most
// 512 bytes.
func EnvSafe(s string) string {
	b := []byte(s)
	if len(b) > 512 {
		b = b[:512]
	}
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = ' '
		}
	}
	return string(b)
}

// HeartbeatWriter is the driver child's end of its heartbeat pipe (HeartbeatFD). Write never blocks: it is one
// raw write(2) on a non-blocking pipe, not Go's poller (which would park the calling goroutine, the control
// loop, on a full pipe). A full pipe means the supervisor is not reading (stopped or gone): the write fails and
// the driver counts it.
type HeartbeatWriter struct{ fd int }

var _ io.Writer = (*HeartbeatWriter)(nil)

// Heartbeat returns the heartbeat pipe the supervisor passed to this driver child, or nil (and no error) when
// it passed none (HeartbeatEnv unset: an older supervisor, or the watchdog is someone else's business). It
// removes HeartbeatEnv from the environment, so nothing this process starts believes it owns the pipe.
func Heartbeat() (*HeartbeatWriter, error) {
	fd, ok, err := childPipe(HeartbeatEnv, "heartbeat pipe")
	if !ok || err != nil {
		return nil, err
	}
	return &HeartbeatWriter{fd: fd}, nil
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

// rawWrite is one write(2) of p on a non-blocking child pipe, retried only when a signal interrupted it:
// a full pipe is EAGAIN at once, a pipe whose reader is gone EPIPE.
func rawWrite(fd int, p []byte) (int, error) {
	n, errno := rawio.Write(uintptr(fd), p)
	if errno != 0 {
		return 0, errno
	}
	return n, nil
}

// RawPath returns the raw tee socket of a driver control socket: every byte the board sends, exactly as read,
// for tools that look at the board "from below the driver" (capture, stopproof's IMU judge). It is served by
// the supervisor, so it keeps streaming while the driver child is dead or restarting.
func RawPath(socket string) string { return socket + ".raw" }
