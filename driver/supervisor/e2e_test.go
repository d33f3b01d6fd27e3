package supervisor_test

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// killBound is the generous assertion bound for "a stop frame within a few milliseconds" (measured figures are
// logged); a 2-core CI machine shared with other jobs gets two orders of magnitude of headroom. Widened under
// -race (testkit.Bound), as are the other bounds of this package's end-to-end tests.
var killBound = testkit.Bound(100 * time.Millisecond)

// The kill tests below judge who wrote the stop frame by what the board was doing before it: a disabled driver
// repeats an all-zero motor frame every 0.2 s, byte for byte the stop frame, so a zero frame alone proves
// nothing. The wheels are driven first (enable and a 20 Hz cmd_vel stream: non-zero motor frames flow, and a
// driving driver writes no zero frame of its own); the judge is the FIRST zero frame after the kill, and the
// motor frame the board received just before it must be a moving one (stopAfterMoving, sim_e2e_test.go).

// TestDriverKillStopFrame is TestSimDriverKillWhileDriving (sim_e2e_test.go): 20 SIGKILLs of the driver while
// the wheels turn. It used to run against a fake board with the driver disabled and could not tell the
// supervisor's stop frame from the driver's refresh.

// TestKillNegativeControl: the kill judge must be able to fail. With the supervisor stopped (SIGSTOP), a
// SIGKILL of the driver while the wheels turn produces no zero frame for 300 ms and the sim's wheels keep
// turning; after SIGCONT the supervisor reaps it and the stop frame comes, after a moving frame.
func TestKillNegativeControl(t *testing.T) {
	s, svc, st, _, seq0 := turningStack(t)
	if err := svc.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer svc.cmd.Process.Signal(syscall.SIGCONT)
	t0 := time.Now()
	_ = syscall.Kill(st.PIDs.Driver, syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	if r, found, _ := stopAfterMoving(s, seq0, t0); found {
		t.Fatalf("a zero frame %s after the kill with the supervisor stopped: the judge cannot tell", testkit.Ms(r.T.Sub(t0)))
	}
	if tr := s.Truth(); tr.TargetRPS == [4]float64{} {
		t.Fatalf("wheel targets zero with the driver dead and the supervisor stopped: %v", tr.TargetRPS)
	}
	t1 := time.Now()
	_ = svc.cmd.Process.Signal(syscall.SIGCONT)
	r, ok := waitStopAfterMoving(t, s, seq0, t0, time.Second)
	if !ok {
		t.Fatal("no stop frame after SIGCONT")
	}
	t.Logf("negative control: no zero frame for 300 ms after the kill while the supervisor was stopped (wheels turning); stop frame %s after SIGCONT",
		testkit.Ms(r.T.Sub(t1)))
}

// The driver has two ways of noticing that its supervisor died: the parent-death signal (SIGTERM), and the
// end of file of its board pipe, whose only write end the supervisor held. Either stops the wheels; the hidden
// test flags take one or both away, so each is shown on its own and the judge can be shown to fail.

// supervisorKillTrial is one SIGKILL of the supervisor while the wheels turn.
type supervisorKillTrial struct {
	stopped   bool          // a zero frame after a moving one reached the board within 1 s
	after     time.Duration // from the kill
	turning   bool          // the sim's wheel targets were still non-zero 1 s after the kill
	viaSignal bool          // the driver logged that it stopped on its parent-death signal
	viaEOF    bool          // the driver logged that its board input ended, before any signal's stop
	scanHeld  bool          // the driver logged that its scan gate held the wheels (no LiDAR scan)
	left      []string      // processes of the service left running 3 s after the kill (then killed)
	driverPID int
}

// turningStack starts the sim stack with args, waits for the driver (with scans) and the reader, and drives
// the wheels at 0.2 m/s until the test ends; seq0 is a moving frame's sequence number at the board.
func turningStack(t *testing.T, args ...string) (s *sim.Sim, svc *service, st api.State, sup supervisor.Status, seq0 int) {
	t.Helper()
	s, svc, cl := startSimStack(t, args...)
	st = waitDriver(t, cl, 0, 10*time.Second)
	sup = svc.waitStatus(3*time.Second, "reader running", func(x supervisor.Status) bool { return x.ReaderPID != 0 })
	t.Cleanup(drive(t, cl, 0.2))
	return s, svc, st, sup, waitMoving(t, s)
}

func runSupervisorKill(t *testing.T, args ...string) supervisorKillTrial {
	t.Helper()
	s, svc, st, sup, seq0 := turningStack(t, args...)
	t0 := time.Now()
	_ = svc.cmd.Process.Kill()
	tr := supervisorKillTrial{driverPID: st.PIDs.Driver}
	if r, ok := waitStopAfterMoving(t, s, seq0, t0, time.Second); ok {
		tr.stopped, tr.after = true, r.T.Sub(t0)
	}
	time.Sleep(time.Until(t0.Add(time.Second)))
	tr.turning = s.Truth().TargetRPS != [4]float64{}
	if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error {
		if alive(st.PIDs.Driver) || alive(sup.ReaderPID) {
			return errors.New("a child is alive")
		}
		return nil
	}); err != nil {
		tr.left = procsRunning(rosorinBase)
		for _, pid := range []int{st.PIDs.Driver, sup.ReaderPID} {
			_ = syscall.Kill(pid, syscall.SIGKILL) // started by the service under test, orphaned by the kill
		}
	}
	svc.wait(5 * time.Second) // the log is complete once every child has closed its end
	log := svc.log.String()
	// Which news stopped the driver first: with --test-driver-holds-board-eof the held end of file is let
	// through once the driver stops (heldEOF), so an end of file logged after the signal's stop is not news.
	sigAt := strings.Index(log, "supervisor died (parent-death signal)")
	eofAt := strings.Index(log, "board input ended")
	tr.viaSignal = sigAt >= 0
	tr.viaEOF = eofAt >= 0 && (sigAt < 0 || eofAt < sigAt)
	tr.scanHeld = strings.Contains(log, "wheels held: no LiDAR scan")
	return tr
}

// judgeSupervisorKill: after the supervisor's death a stop frame reached the board within killBound, after a
// moving frame, the wheels' targets are zero, and no process of the service is left.
func judgeSupervisorKill(tr supervisorKillTrial) error {
	return judgeSupervisorKillWithin(tr, killBound)
}

// judgeSupervisorKillWithin is judgeSupervisorKill with the stop frame's bound given.
func judgeSupervisorKillWithin(tr supervisorKillTrial, killBound time.Duration) error {
	switch {
	case !tr.stopped:
		return fmt.Errorf("no stop frame within 1 s of SIGKILL of the supervisor (wheels still turning: %v)", tr.turning)
	case tr.after > killBound:
		return fmt.Errorf("stop frame %s after the kill, bound %s", testkit.Ms(tr.after), testkit.Ms(killBound))
	case tr.turning:
		return errors.New("wheel targets not zero 1 s after the kill")
	case len(tr.left) > 0:
		return fmt.Errorf("processes still alive 3 s after the supervisor died: %v", tr.left)
	}
	return nil
}

// TestSupervisorKill: SIGKILL of the supervisor while the wheels turn, as deployed (both ways of noticing):
// the wheels stop, every child exits.
func TestSupervisorKill(t *testing.T) {
	tr := runSupervisorKill(t)
	if err := judgeSupervisorKill(tr); err != nil {
		t.Fatal(err)
	}
	t.Logf("SIGKILL of the supervisor while turning -> stop frame %s (driver logged: parent-death signal %v, board input ended %v)",
		testkit.Ms(tr.after), tr.viaSignal, tr.viaEOF)
}

// TestSupervisorKillPdeathsig: the driver's board pipe end is held back (--test-driver-holds-board-eof), so
// its parent-death signal is its only news of the supervisor's death: the stop frame comes from it.
func TestSupervisorKillPdeathsig(t *testing.T) {
	tr := runSupervisorKill(t, "--test-driver-holds-board-eof")
	if err := judgeSupervisorKill(tr); err != nil {
		t.Fatal(err)
	}
	if !tr.viaSignal || tr.viaEOF {
		t.Fatalf("driver log: parent-death signal %v, board input ended %v; want the signal alone", tr.viaSignal, tr.viaEOF)
	}
	t.Logf("SIGKILL of the supervisor while turning -> stop frame from the driver's parent-death signal: %s", testkit.Ms(tr.after))
}

// TestSupervisorKillBoardEOF: the driver started without its parent-death signal (--test-no-pdeathsig): the
// end of its board pipe alone stops the wheels (the second line of defence).
func TestSupervisorKillBoardEOF(t *testing.T) {
	tr := runSupervisorKill(t, "--test-no-pdeathsig")
	if err := judgeSupervisorKill(tr); err != nil {
		t.Fatal(err)
	}
	if tr.viaSignal || !tr.viaEOF {
		t.Fatalf("driver log: parent-death signal %v, board input ended %v; want the end of file alone", tr.viaSignal, tr.viaEOF)
	}
	t.Logf("SIGKILL of the supervisor while turning, no parent-death signal -> stop frame after the board pipe's end: %s", testkit.Ms(tr.after))
}

// TestSupervisorKillNegativeControl: without the parent-death signal and with the board pipe's end held back,
// nothing tells the driver that its supervisor died: the judge above must fail. The orphaned driver keeps the
// wheels at their commanded speed until its scan gate holds them, scan_timeout (0.5 s) after the LiDAR reader
// (which keeps its own parent-death signal) died with the supervisor: a third line, not the kill's stop.
func TestSupervisorKillNegativeControl(t *testing.T) {
	tr := runSupervisorKill(t, "--test-no-pdeathsig", "--test-driver-holds-board-eof")
	// The judge's own bound, not widened under the race detector: widened (x5, 500 ms) it reaches the third
	// line's stop, the scan gate's 0.4-0.5 s (and the board-silence latch's 0.5 s), and the control passed the
	// judge by chance (CI of 9f867a9: the scan gate held 0.477 s after the kill). A control must fail on what
	// the judge is for, a stop within a few milliseconds: 100 ms.
	err := judgeSupervisorKillWithin(tr, 100*time.Millisecond)
	if err == nil {
		t.Fatal("the supervisor-death judge passed with both of the driver's ways of noticing taken away: it cannot tell")
	}
	if tr.viaSignal || tr.viaEOF {
		t.Fatalf("driver log: parent-death signal %v, board input ended %v; want neither", tr.viaSignal, tr.viaEOF)
	}
	// The last scan came up to one revolution (0.1 s) before the kill: the hold comes 0.4-0.5 s after it.
	if tr.stopped && (tr.after < 350*time.Millisecond || !tr.scanHeld) {
		t.Fatalf("negative control: a stop frame %s after the kill (scan gate held: %v); want none before the scan gate's",
			testkit.Ms(tr.after), tr.scanHeld)
	}
	t.Logf("negative control: the judge fails (%v); the wheels turned on until the scan gate held them %s after the kill",
		err, testkit.Ms(tr.after))
}

// TestSIGINTShutdown: SIGINT to the supervisor (systemd's KillSignal) while the wheels turn: the first zero
// frame after the signal follows a moving one, no moving frame comes after it, the supervisor's own two
// shutdown stop frames are the last it wrote, exit 0, no process left.
func TestSIGINTShutdown(t *testing.T) {
	s, svc, st, sup, seq0 := turningStack(t)
	t0 := time.Now()
	_ = svc.cmd.Process.Signal(syscall.SIGINT)
	first, ok := waitStopAfterMoving(t, s, seq0, t0, 2*time.Second)
	if !ok {
		t.Fatal("no stop frame after a moving one within 2 s of SIGINT")
	}
	code, ok := svc.wait(10 * time.Second)
	el := time.Since(t0)
	if !ok {
		t.Fatalf("supervisor still running 10 s after SIGINT")
	}
	if code != 0 {
		t.Errorf("exit code %d after SIGINT, want 0", code)
	}
	time.Sleep(100 * time.Millisecond) // the sim records the last frames
	rx, _ := s.ReceivedSince(first.Seq)
	stops := 0
	for _, r := range rx {
		if isMovingRx(r) {
			t.Errorf("moving frame % x after the first stop frame of the shutdown", frameBytes(r))
		}
		if isStopRx(r) {
			stops++
		}
	}
	if stops < 2 {
		t.Errorf("%d stop frames from the first one on, want at least 2", stops)
	}
	for _, pid := range []int{st.PIDs.Driver, sup.ReaderPID} {
		if alive(pid) {
			t.Errorf("child %d still alive after the supervisor exited", pid)
		}
	}
	if left := procsRunning(rosorinBase); len(left) > 0 {
		t.Errorf("leftover processes: %v", left)
	}
	fin, err := svc.status()
	if err != nil || fin.Port != supervisor.PortClosed || fin.LastStop != "supervisor shutdown" || fin.StopFrames < 2 {
		t.Errorf("final status %+v (%v): want port closed, last stop frame the supervisor's shutdown", fin, err)
	}
	if tr := s.Truth(); tr.TargetRPS != [4]float64{} {
		t.Errorf("wheel targets after the shutdown: %v", tr.TargetRPS)
	}
	t.Logf("SIGINT while turning -> first stop frame %s, supervisor exit 0 in %s, %d stop frames from the first; no leftover processes",
		testkit.Ms(first.T.Sub(t0)), testkit.Ms(el), stops)
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
		c := exec.Command(openerBin)
		c.Env = []string{openerEnv + "=" + b.SlaveName()}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := c.CombinedOutput()
		return c.ProcessState.ExitCode(), strings.TrimSpace(string(out))
	}
	if code, out := openAs(); code != 0 {
		t.Fatalf("negative control: unprivileged open without an owner failed (%d: %s); the test cannot tell TIOCEXCL from permissions", code, out)
	}
	s := startService(t, dir, b.Path(), "--lidar", "")
	if code, out := openAs(); code != 3 {
		t.Errorf("unprivileged second open while the supervisor owns the port: exit %d (%s), want EBUSY", code, out)
	}
	st, _ := s.status()
	c := exec.Command(rosorinBase, "run", "--device", b.Path(), "--socket", filepath.Join(dir, "other.sock"), "--lidar", "")
	out, _ := c.CombinedOutput()
	msg := string(out)
	if c.ProcessState.ExitCode() != 1 || !strings.Contains(msg, "busy") || !strings.Contains(msg, "pid "+strconv.Itoa(st.PID)) {
		t.Errorf("second run as root: exit %d, output %q; want exit 1 naming pid %d", c.ProcessState.ExitCode(), msg, st.PID)
	}
	t.Logf("second run: %s", strings.TrimSpace(msg))
}
