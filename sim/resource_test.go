package sim

// Real-time end-to-end tests over ptys; under -race their waits are widened with testkit.Bound.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
)

// TestMain doubles as a bare simulator process for TestCPU: with ROSORIN_SIM_CHILD_DIR set it runs a
// floor sim in that directory until SIGTERM. Otherwise it runs the tests and then checks, for the whole
// package, that no goroutine and no file descriptor outlived them (Tailscale's tstest.ResourceCheck):
// every test closes its sims and clients, so what remains is a leak.
func TestMain(m *testing.M) {
	if dir := os.Getenv("ROSORIN_SIM_CHILD_DIR"); dir != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		s, err := Start(ctx, Config{Dir: dir, World: "floor", Seed: 60})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ready")
		<-ctx.Done()
		s.Close()
		os.Exit(0)
	}
	release := testkit.RealTimeAlone()
	ignore, f0, err := resourceBaseline()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if msg := resourcesLeft(ignore, f0, testkit.Bound(3*time.Second)); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
			code = 1
		}
	}
	release()
	os.Exit(code)
}

// resourceBaseline starts and closes one sim first, so that what the runtime and the libraries create
// once on first use (the poller's epoll fd and wake-up eventfd) is in the baseline, then takes the
// goroutines running now as the ones to ignore and counts the fds.
func resourceBaseline() (ignore goleak.Option, fds int, err error) {
	dir, err := os.MkdirTemp("", "rosorin-sim-baseline")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(dir)
	s, err := Start(context.Background(), Config{Dir: dir, World: "stand", Seed: 1})
	if err != nil {
		return nil, 0, fmt.Errorf("baseline sim: %w", err)
	}
	if err := s.Close(); err != nil {
		return nil, 0, fmt.Errorf("baseline sim: %w", err)
	}
	fds, err = countFDs()
	return goleak.IgnoreCurrent(), fds, err
}

// resourcesLeft checks that no goroutine outlived the baseline (goleak, which retries while goroutines
// are still finishing) and waits up to d for the fd count to come back to f0; it describes what is left
// if not ("" when clean).
func resourcesLeft(ignore goleak.Option, f0 int, d time.Duration) string {
	if err := goleak.Find(ignore); err != nil {
		return "resource check FAILED: " + err.Error()
	}
	ok := waitUntil(d, func() bool {
		f, err := countFDs()
		return err == nil && f <= f0
	})
	f1, _ := countFDs()
	if ok {
		fmt.Printf("resource check: no goroutine left, open fds %d -> %d\n", f0, f1)
		return ""
	}
	return fmt.Sprintf("resource check FAILED: open fds %d before the tests, %d after\nfds: %s", f0, f1, fdTargets())
}

// fdTargets lists this process's open fds and what they point at, for a leak report.
func fdTargets() string {
	var fds []string
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		fds = append(fds, e.Name()+"->"+l)
	}
	return strings.Join(fds, " ")
}

// countFDs counts this process's open file descriptors (the /proc/self/fd listing's own fd included,
// every time).
func countFDs() (int, error) {
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, fmt.Errorf("count open fds: %w", err)
	}
	return len(e), nil
}

// TestCPU measures the simulator alone (a child process) at the default rates while both devices are
// read: it must stay well under 5 % of one core. The child's CPU time is what the kernel reports at its
// exit (rusage), over its whole life, start-up included. A pure timing measurement: the race detector's
// own cost would be measured too, so it does not run under -race.
func TestCPU(t *testing.T) {
	testkit.SkipShort(t, "a 5 s CPU measurement")
	testkit.NeedsQuietMachine(t)
	if testkit.RaceEnabled {
		t.Skip("pure CPU measurement: under -race it would measure the race detector")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ROSORIN_SIM_CHILD_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	w0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() time.Duration {
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("child sim: %v", err)
		}
		return time.Since(w0)
	}
	defer func() {
		if !stopped {
			stop()
		}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child sim: %q %v", line, err)
	}
	b := openBoard(t, filepath.Join(dir, BoardLinkName))
	l := openLidar(t, filepath.Join(dir, LidarLinkName))
	t0 := time.Now().Add(time.Second)
	time.Sleep(5500 * time.Millisecond)
	imu := float64(len(b.since(t0, board.FuncIMU))) / time.Since(t0).Seconds()
	scans := len(l.scansSince(t0))
	wall := stop()
	used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	cpu := used.Seconds() / wall.Seconds()
	t.Logf("simulator CPU %.2f %% of one core over its %.1f s life (IMU %.1f Hz, %d scans in %.1f s read meanwhile)", 100*cpu, wall.Seconds(), imu, scans, time.Since(t0).Seconds())
	// A generous bound: it catches a busy loop (a spinning sim takes a whole core), not a figure (3.5-3.7 %
	// on a quiet 2-core VM, 5.0 % once in a fresh-clone CI run; docs/sim.md).
	if cpu > 0.15 {
		t.Errorf("simulator CPU %.1f %% of one core, want under 15 %% (a busy loop?)", 100*cpu)
	}
	if imu < 100 || scans < 30 {
		t.Errorf("the clients were not fed while measuring: IMU %.1f Hz, %d scans", imu, scans)
	}
}

// TestNoLeaks: after Close every goroutine the sim started has exited and every file descriptor it opened
// (pty masters and slaves, inotify watches, the control socket, the truth file) is closed, whatever state
// it was in: clients attached, USB drop and re-plug done, a drop still pending, the firmware hung, an idle
// control connection, the parent context already cancelled, and Start failing half-way. Close is
// idempotent and faults after it say ErrClosed. Not parallel: nothing else runs meanwhile (no test in this
// package is).
func TestNoLeaks(t *testing.T) {
	dir := t.TempDir()
	// Warm-up: the runtime creates its poller (epoll fd, wake-up eventfd) and the serial library its
	// goroutines on first use; take the baseline after one full cycle so only the sim's own resources are
	// compared.
	leakCycleFull(t, filepath.Join(dir, "warm"))
	ignore, f0 := goleak.IgnoreCurrent(), openFDs(t)

	leakCycleFull(t, filepath.Join(dir, "full"))
	leakCycleFaultsPending(t, filepath.Join(dir, "pending"))
	leakCycleStartFails(t, filepath.Join(dir, "fails"))

	goleak.VerifyNone(t, ignore)
	settled := waitUntil(testkit.Bound(3*time.Second), func() bool { return openFDs(t) <= f0 })
	f1 := openFDs(t)
	t.Logf("after 3 sims started and closed (+ 4 failed starts): open fds %d -> %d", f0, f1)
	if !settled {
		t.Errorf("leak: fds %d before, %d after\nfds: %s", f0, f1, fdTargets())
	}
}

// leakCycleFull runs a floor sim with a truth file and both devices read, drops and re-plugs both, leaves
// an idle control connection and the firmware hung, then closes it twice.
func leakCycleFull(t *testing.T, dir string) {
	s, err := Start(context.Background(), Config{Dir: dir, World: "floor", Seed: 61, TruthPath: filepath.Join(dir, "truth.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	b := openBoard(t, s.BoardPath())
	l := openLidar(t, s.LidarPath())
	ctl, err := net.Dial("unix", s.ControlPath())
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	time.Sleep(200 * time.Millisecond)
	s.USBDrop(100 * time.Millisecond)
	s.LidarUnplug(100 * time.Millisecond)
	time.Sleep(400 * time.Millisecond)
	b.close()
	l.close()
	b = openBoard(t, s.BoardPath()) // the re-plugged device, held open across Close
	if err := s.Hang(true); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	closeWithin(t, s, 5*time.Second)
	closeWithin(t, s, time.Second) // idempotent
	if err := s.Hang(true); err != ErrClosed {
		t.Errorf("fault after Close: %v, want ErrClosed", err)
	}
	b.close()
	// The sim's end of the control connection is closed: the client reads EOF.
	ctl.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := ctl.Read(make([]byte, 1)); err == nil {
		t.Errorf("idle control connection still open after Close (read %d bytes)", n)
	}
}

// leakCycleFaultsPending closes a sim whose board is in the middle of a USB drop (no device) and whose
// LiDAR is unplugged, after its parent context was already cancelled.
func leakCycleFaultsPending(t *testing.T, dir string) {
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Config{Dir: dir, World: "stand", Seed: 62, Faults: []string{"usb-drop=30s@100ms", "lidar-unplug=30s"}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if !waitUntil(2*time.Second, func() bool { _, err := os.Lstat(s.BoardPath()); return os.IsNotExist(err) }) {
		t.Error("scheduled USB drop did not happen")
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	closeWithin(t, s, 5*time.Second)
	for _, p := range []string{s.BoardPath(), s.LidarPath(), s.ControlPath()} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after Close: %v", p, err)
		}
	}
}

// leakCycleStartFails makes Start fail at each step that has already opened something.
func leakCycleStartFails(t *testing.T, dir string) {
	s, err := Start(context.Background(), Config{Dir: dir, World: "stand", Seed: 63})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := []Config{
		{Dir: dir, World: "stand"}, // control socket held by s
		{Dir: filepath.Join(dir, "b"), World: "stand", TruthPath: filepath.Join(dir, "missing", "truth.jsonl")},
		{Dir: filepath.Join(dir, "c"), World: "moon"},
		{Dir: filepath.Join(dir, "d"), World: "stand", Faults: []string{"explode"}},
	}
	for _, cfg := range bad {
		if s2, err := Start(context.Background(), cfg); err == nil {
			s2.Close()
			t.Errorf("Start(%+v) succeeded, want an error", cfg)
		}
	}
}

// closeWithin calls s.Close and fails the test, with every goroutine's stack, if it does not return in d:
// a Close that waits forever (a goroutine that never sees the stop) is a leak too, and must not hang the
// test binary until go test's 10 min timeout.
func closeWithin(t *testing.T, s *Sim, d time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(d):
		buf := make([]byte, 1<<16)
		t.Fatalf("Close did not return within %v\n%s", d, buf[:runtime.Stack(buf, true)])
	}
}

func openFDs(t *testing.T) int {
	n, err := countFDs()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
