package supervisor_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
)

// arrival is one board frame the fake board received, stamped when the pty master's read returned.
type arrival struct {
	at    time.Time
	frame []byte
}

func (a arrival) isStop() bool { return board.IsStopFrame(a.frame) }

// fakeBoard is the board end of a pseudo-terminal behind a symlink (the "device path" the supervisor opens).
// It records every frame written to the board with its arrival time. Close unplugs it (master closed, symlink
// removed: the tty hangs up like a USB serial device that vanished). The USB drop itself is shown against the
// sim (driver/simtest), whose board can come back.
type fakeBoard struct {
	t    *testing.T
	link string

	mu       sync.Mutex
	master   *os.File
	slave    *os.File // held so the master never reads EIO between owners
	slaveDev string
	frames   []arrival
	notify   chan struct{}
	wg       sync.WaitGroup
}

func newFakeBoard(t *testing.T, link string) *fakeBoard {
	t.Helper()
	b := &fakeBoard{t: t, link: link, notify: make(chan struct{})}
	b.plug()
	t.Cleanup(b.close)
	return b
}

func (b *fakeBoard) plug() {
	b.t.Helper()
	m, s, err := openPty()
	if err != nil {
		b.t.Fatalf("pty: %v", err)
	}
	// The unprivileged-opener test needs TIOCEXCL to be the only barrier, not the pts's 0620 mode.
	if err := os.Chmod(s.Name(), 0o666); err != nil {
		b.t.Fatalf("chmod pts: %v", err)
	}
	_ = os.Remove(b.link)
	if err := os.Symlink(s.Name(), b.link); err != nil {
		b.t.Fatalf("symlink: %v", err)
	}
	b.mu.Lock()
	b.master, b.slave, b.slaveDev = m, s, s.Name()
	b.mu.Unlock()
	b.wg.Add(1)
	go b.read(m)
}

func (b *fakeBoard) read(m *os.File) {
	defer b.wg.Done()
	var p board.Parser
	buf := make([]byte, 4096)
	for {
		n, err := m.Read(buf)
		at := time.Now()
		if n > 0 {
			p.Feed(buf[:n], func(f board.Frame) {
				raw, _ := board.EncodeFrame(f.Func, f.Payload)
				b.mu.Lock()
				b.frames = append(b.frames, arrival{at: at, frame: raw})
				close(b.notify)
				b.notify = make(chan struct{})
				b.mu.Unlock()
			})
		}
		if err != nil {
			if errors.Is(err, syscall.EIO) { // no slave open at this instant
				time.Sleep(2 * time.Millisecond)
				continue
			}
			return
		}
	}
}

// openPty is pty.Open with the master back under Go's poller. creack/pty calls Fd() on the master, which puts
// it in blocking mode: a goroutine blocked reading it then keeps the descriptor open through Close, the slave
// never hangs up, and an "unplugged" device would look alive to its owner.
func openPty() (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	// CLOEXEC: a master inherited by the service under test would keep the pty alive through "unplug".
	nfd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	m.Close()
	if err == nil {
		err = unix.SetNonblock(nfd, true)
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(nfd), "/dev/ptmx"), s, nil
}

// unplug closes the master and removes the device path: the owner's reads end, its writes fail with EIO.
func (b *fakeBoard) unplug() {
	b.mu.Lock()
	m, s := b.master, b.slave
	b.master, b.slave = nil, nil
	b.mu.Unlock()
	if m != nil {
		m.Close()
	}
	if s != nil {
		s.Close()
	}
	_ = os.Remove(b.link)
}

func (b *fakeBoard) close() {
	b.unplug()
	b.wg.Wait()
}

// send writes bytes from the board to its owner.
func (b *fakeBoard) send(p []byte) error {
	b.mu.Lock()
	m := b.master
	b.mu.Unlock()
	if m == nil {
		return errors.New("unplugged")
	}
	_, err := m.Write(p)
	return err
}

func (b *fakeBoard) dev() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.slaveDev
}

func (b *fakeBoard) snapshot() []arrival {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]arrival(nil), b.frames...)
}

// waitFrame returns the first frame after since that satisfies ok, waiting up to timeout (widened under -race:
// the waits of this package's helpers are not bounds, the assertions that follow them are).
func (b *fakeBoard) waitFrame(since time.Time, timeout time.Duration, ok func(arrival) bool) (arrival, bool) {
	deadline := time.After(testkit.Bound(timeout))
	for {
		b.mu.Lock()
		for _, a := range b.frames {
			if a.at.After(since) && ok(a) {
				b.mu.Unlock()
				return a, true
			}
		}
		ch := b.notify
		b.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			return arrival{}, false
		}
	}
}

func (b *fakeBoard) countStops(since time.Time) int {
	n := 0
	for _, a := range b.snapshot() {
		if a.at.After(since) && a.isStop() {
			n++
		}
	}
	return n
}

func isStop(a arrival) bool { return a.isStop() }

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
