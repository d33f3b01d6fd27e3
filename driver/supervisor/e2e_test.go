//go:build !race

package supervisor_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/supervisor"
)

// killBound is the generous assertion bound for "a stop frame within a few milliseconds" (measured figures are
// logged); a 2-core CI machine shared with other jobs gets two orders of magnitude of headroom.
const killBound = 100 * time.Millisecond

// TestDriverKillStopFrame: SIGKILL of the driver child, 25 times: each time a stop frame reaches the board
// within killBound, and the driver comes back (a new pid) by itself.
func TestDriverKillStopFrame(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", "", "--restart-delay", "200ms")
	const kills = 25
	var lat []time.Duration
	pid := 0
	for i := 0; i < kills; i++ {
		st := s.waitStatus(5*time.Second, "a new driver", func(st supervisor.Status) bool {
			return st.DriverPID != 0 && st.DriverPID != pid
		})
		pid = st.DriverPID
		quietBeforeKill(b, 150*time.Millisecond)
		t0 := time.Now()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		a, ok := b.waitFrame(t0, time.Second, isStop)
		if !ok {
			t.Fatalf("kill %d: no stop frame within 1 s of SIGKILL of driver pid %d", i+1, pid)
		}
		lat = append(lat, a.at.Sub(t0))
	}
	t.Logf("SIGKILL of the driver -> stop frame on the board, %d kills: median %s, p99 %s, max %s", kills,
		ms(percentile(lat, 50)), ms(percentile(lat, 99)), ms(percentile(lat, 100)))
	if m := percentile(lat, 100); m > killBound {
		t.Errorf("slowest stop frame after SIGKILL took %s, bound %s", ms(m), ms(killBound))
	}
	st := s.waitStatus(5*time.Second, "last driver back", func(st supervisor.Status) bool {
		return st.DriverPID != 0 && st.DriverPID != pid
	})
	if st.DriverStarts != kills+1 || !strings.Contains(st.LastStop, "SIGKILL") && !strings.Contains(st.DriverLastExit, "SIGKILL") {
		t.Errorf("status after %d kills: %d driver starts, last exit %q, last stop %q", kills, st.DriverStarts, st.DriverLastExit, st.LastStop)
	}
}

// quietBeforeKill waits until the driver has run for a while and the last frame it wrote has been read, so
// that a stop frame read after the kill cannot be one the driver wrote before it.
func quietBeforeKill(b *fakeBoard, settle time.Duration) {
	time.Sleep(settle)
	fr := b.snapshot()
	if len(fr) > 0 {
		if since := time.Since(fr[len(fr)-1].at); since < 20*time.Millisecond {
			time.Sleep(20*time.Millisecond - since)
		}
	}
}

// TestKillNegativeControl: the detector above must be able to fail. With the supervisor stopped (SIGSTOP), a
// SIGKILL of the driver produces no stop frame; after SIGCONT the supervisor reaps it and the stop frame comes.
func TestKillNegativeControl(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", "")
	st, _ := s.status()
	quietBeforeKill(b, 150*time.Millisecond)
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_ = syscall.Kill(st.DriverPID, syscall.SIGKILL)
	if a, ok := b.waitFrame(t0, 300*time.Millisecond, isStop); ok {
		t.Fatalf("stop frame %s after the kill with the supervisor stopped: the detector cannot tell", ms(a.at.Sub(t0)))
	}
	t1 := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	if a, ok := b.waitFrame(t1, time.Second, isStop); !ok {
		t.Fatal("no stop frame after SIGCONT")
	} else {
		t.Logf("negative control: no stop frame for 300 ms while the supervisor was stopped; %s after SIGCONT", ms(a.at.Sub(t1)))
	}
}

// TestSupervisorKillPdeathsig: SIGKILL of the supervisor: the driver child gets its parent-death signal, writes
// the stop frame and exits; the LiDAR reader exits too. Nothing is left running.
func TestSupervisorKillPdeathsig(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", filepath.Join(dir, "lidar"))
	st := s.waitStatus(3*time.Second, "reader running", func(st supervisor.Status) bool { return st.ReaderPID != 0 })
	quietBeforeKill(b, 150*time.Millisecond)
	t0 := time.Now()
	_ = s.cmd.Process.Kill()
	a, ok := b.waitFrame(t0, time.Second, isStop)
	if !ok {
		t.Fatalf("no stop frame within 1 s of SIGKILL of the supervisor (driver pid %d)", st.DriverPID)
	}
	t.Logf("SIGKILL of the supervisor -> stop frame from the driver's parent-death signal: %s", ms(a.at.Sub(t0)))
	if d := a.at.Sub(t0); d > killBound {
		t.Errorf("pdeathsig stop frame took %s, bound %s", ms(d), ms(killBound))
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(st.DriverPID) || alive(st.ReaderPID) {
		if time.Now().After(deadline) {
			t.Fatalf("children still alive 3 s after the supervisor died: %v", procsRunning(bin()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSIGINTShutdown: SIGINT to the supervisor (systemd's KillSignal): children stopped, stop frames, exit 0,
// no process left.
func TestSIGINTShutdown(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", filepath.Join(dir, "lidar"))
	st := s.waitStatus(3*time.Second, "reader running", func(st supervisor.Status) bool { return st.ReaderPID != 0 })
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	code, ok := s.wait(10 * time.Second)
	el := time.Since(t0)
	if !ok {
		t.Fatalf("supervisor still running 10 s after SIGINT")
	}
	if code != 0 {
		t.Errorf("exit code %d after SIGINT, want 0", code)
	}
	time.Sleep(50 * time.Millisecond)
	if n := b.countStops(t0); n < 2 {
		t.Errorf("%d stop frames after SIGINT, want at least 2", n)
	}
	for _, pid := range []int{st.DriverPID, st.ReaderPID} {
		if alive(pid) {
			t.Errorf("child %d still alive after the supervisor exited", pid)
		}
	}
	if left := procsRunning(bin()); len(left) > 0 {
		t.Errorf("leftover processes: %v", left)
	}
	fin, err := s.status()
	if err != nil || fin.Port != supervisor.PortClosed {
		t.Errorf("final status %+v (%v), want port closed", fin, err)
	}
	t.Logf("SIGINT -> supervisor exit 0 in %s with %d stop frames; no leftover processes", ms(el), b.countStops(t0))
}

// TestExclusive: while the supervisor owns the port, an unprivileged second opener is refused (TIOCEXCL), a
// second `rosorin-base run` as root is refused by the flock and names the holder. Negative control: without the
// supervisor the same unprivileged open succeeds.
func TestExclusive(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the unprivileged opener runs as uid/gid 65534 via SysProcAttr.Credential")
	}
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	openAs := func() (int, string) {
		c := exec.Command(filepath.Join(binDir, "opener"))
		c.Env = []string{openerEnv + "=" + b.dev()}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := c.CombinedOutput()
		return c.ProcessState.ExitCode(), strings.TrimSpace(string(out))
	}
	if code, out := openAs(); code != 0 {
		t.Fatalf("negative control: unprivileged open without an owner failed (%d: %s); the test cannot tell TIOCEXCL from permissions", code, out)
	}
	s := startService(t, dir, b.link, "--lidar", "")
	if code, out := openAs(); code != 3 {
		t.Errorf("unprivileged second open while the supervisor owns the port: exit %d (%s), want EBUSY", code, out)
	}
	st, _ := s.status()
	c := exec.Command(bin(), "run", "--device", b.link, "--socket", filepath.Join(dir, "other.sock"), "--lidar", "")
	out, _ := c.CombinedOutput()
	msg := string(out)
	if c.ProcessState.ExitCode() != 1 || !strings.Contains(msg, "busy") || !strings.Contains(msg, "pid "+strconv.Itoa(st.PID)) {
		t.Errorf("second run as root: exit %d, output %q; want exit 1 naming pid %d", c.ProcessState.ExitCode(), msg, st.PID)
	}
	t.Logf("second run: %s", strings.TrimSpace(msg))
}
