package supervisor_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// newFakeBoard is the board behind a pseudo-terminal published at link (the "device path" the supervisor
// opens): boardtest's board, recording every frame written to it with its arrival time. Closing it at the
// test's end unplugs it (pty closed, link removed: the tty hangs up like a USB serial device that vanished).
// The USB drop itself is shown against the sim (driver/simtest), whose board can come back.
func newFakeBoard(t *testing.T, link string) *boardtest.Board {
	t.Helper()
	b := boardtest.OpenPTY(t, boardtest.Options{Link: link})
	// The unprivileged-opener test needs TIOCEXCL to be the only barrier, not the pts's 0620 mode.
	if err := os.Chmod(b.SlaveName(), 0o666); err != nil {
		t.Fatalf("chmod pts: %v", err)
	}
	return b
}

// waitFrame returns the first frame after since that satisfies ok, waiting up to timeout (widened under -race:
// the waits of this package's helpers are not bounds, the assertions that follow them are).
func waitFrame(b *boardtest.Board, since time.Time, timeout time.Duration, ok func(boardtest.Received) bool) (boardtest.Received, bool) {
	r, _, found := b.Wait(0, testkit.Bound(timeout), func(r boardtest.Received) bool { return r.At.After(since) && ok(r) })
	return r, found
}

func countStops(b *boardtest.Board, since time.Time) int {
	n := 0
	for _, r := range b.Received() {
		if r.At.After(since) && r.IsStop() {
			n++
		}
	}
	return n
}

// service is one `rosorin-base run` under test, on internal/stacktest's fixture (the one the sim stacks use),
// ready when the supervisor's status names a running driver.
type service struct {
	t      *testing.T
	svc    *stacktest.Service
	cmd    *exec.Cmd
	socket string
	log    *testkit.LockedBuffer
	done   <-chan struct{}
}

// startService runs `rosorin-base run` with args appended to --device/--socket and waits for its first status.
func startService(t *testing.T, dir, device string, args ...string) *service {
	t.Helper()
	return startServiceWrapped(t, dir, device, nil, args...)
}

// startServiceWrapped is startService with the command run through wrap (a program and its arguments, which
// end with the command to exec: the full-disk test's unshare and mount).
func startServiceWrapped(t *testing.T, dir, device string, wrap []string, args ...string) *service {
	t.Helper()
	if testkit.RaceEnabled && !slices.Contains(args, "--driver-watchdog") {
		args = append(args, "--driver-watchdog", wdTimeout.String())
	}
	svc := stacktest.New(t, stacktest.Options{Bin: rosorinBase, Dir: dir, Device: device, Args: args, Wrap: wrap,
		ReadyTimeout: 5 * time.Second,
		ReadyCheck: func(s *stacktest.Service) error {
			st, err := supervisor.ReadStatus(s.Socket)
			if err == nil && st.DriverPID == 0 {
				err = fmt.Errorf("no driver running yet: %+v", st)
			}
			return err
		}})
	return &service{t: t, svc: svc, cmd: svc.Cmd, socket: svc.Socket, log: svc.Log, done: svc.Done()}
}

// err is the process's exit error once done is closed.
func (s *service) err() error { return s.svc.Err() }

func (s *service) status() (supervisor.Status, error) { return supervisor.ReadStatus(s.socket) }

// waitStatus polls the status file until ok holds.
func (s *service) waitStatus(timeout time.Duration, what string, ok func(supervisor.Status) bool) supervisor.Status {
	s.t.Helper()
	var st supervisor.Status
	if err := testkit.Eventually(testkit.Bound(timeout), func() error {
		var err error
		if st, err = s.status(); err == nil && ok(st) {
			return nil
		}
		select {
		case <-s.done:
			s.t.Fatalf("service exited (%v) while waiting for %s; log:\n%s", s.err(), what, s.log.String())
		default:
		}
		return fmt.Errorf("last status %+v (err %v)", st, err)
	}); err != nil {
		s.t.Fatalf("waiting for %s: %v", what, err)
	}
	return st
}

func (s *service) wait(timeout time.Duration) (exitCode int, ok bool) {
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode(), true
	case <-time.After(testkit.Bound(timeout)):
		return -1, false
	}
}

// procsRunning lists live (non-zombie) processes whose executable is path.
func procsRunning(path string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || strings.TrimSuffix(exe, " (deleted)") != path {
			continue
		}
		if !alive(pid) {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	}
	return out
}

// alive reports whether pid is a process that has not exited (not a zombie).
func alive(pid int) bool {
	st, err := procfs.ReadStat(pid)
	return err == nil && st.Alive()
}
