package supervisor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// The durable latch end to end (issue 31): real processes, the sim's board, the service started again on the
// same state directory.

// latchAndWaitFile latches the e-stop over the API and waits until the driver has kept it on disk; it logs how
// long after the reply the file was there (polled every millisecond) and the driver's own figure, from the
// stop frame's write to the file's durable rename.
func latchAndWaitFile(t *testing.T, svc *service, cl *api.Client, path, why string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	r, err := cl.EStop(ctx, why)
	if err != nil || !r.Success {
		t.Fatalf("estop: %+v %v", r, err)
	}
	t0 := time.Now()
	for end := t0.Add(testkit.Bound(2 * time.Second)); ; time.Sleep(time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), why) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no latch file %s with %q 2 s after the e-stop", path, why)
		}
	}
	el := time.Since(t0)
	kept := "?"
	for _, l := range strings.Split(svc.log.String(), "\n") {
		if i := strings.Index(l, "after_stop_frame_ms="); i >= 0 && strings.Contains(l, "e-stop latch kept") {
			kept = strings.Fields(l[i:])[0]
		}
	}
	t.Logf("e-stop reply -> latch file there: %s; driver: %s ms from the stop frame's write to the durable file", testkit.Ms(el),
		strings.TrimPrefix(kept, "after_stop_frame_ms="))
	st, err := cl.State(ctx)
	if err != nil || st.EStop == nil {
		t.Fatalf("state after the e-stop: %+v %v", st.EStop, err)
	}
	return *st.EStop
}

// restartService starts `rosorin-base run` again on the sim and the first service's folder (so its state
// directory), and waits for a driver with scans other than notPID.
func restartService(t *testing.T, s *sim.Sim, dir string, notPID int) (*service, *api.Client, api.State) {
	t.Helper()
	svc := startService(t, dir, s.BoardPath(), "--lidar", s.LidarPath(), "--contact", "log", "--restart-delay", "200ms")
	cl := api.NewClient(svc.socket)
	return svc, cl, waitDriver(t, cl, notPID, 10*time.Second)
}

// noWheelsSince fails when the board received a moving motor frame since seq, or the sim's wheels are
// commanded to turn.
func noWheelsSince(t *testing.T, s *sim.Sim, seq int, what string) {
	t.Helper()
	rx, _ := s.ReceivedSince(seq)
	for _, r := range rx {
		if isMovingRx(r) {
			t.Fatalf("%s: the board got a moving frame % x at %s", what, frameBytes(r), r.T.Format("15:04:05.000"))
		}
	}
	if tr := s.Truth(); tr.TargetRPS != [4]float64{} {
		t.Fatalf("%s: wheel targets %v", what, tr.TargetRPS)
	}
}

// tryDrive asks to drive while latched: enable must be refused, and commands must not turn the wheels.
func tryDrive(t *testing.T, cl *api.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if r, err := cl.Enable(ctx, true); err != nil || r.Success || !strings.Contains(r.Message, "e-stop latched") {
		t.Fatalf("enable while latched after the restart: %+v %v, want refused", r, err)
	}
	for range 5 {
		_, _ = cl.CmdVel(ctx, api.Twist{VX: 0.2})
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSimLatchSurvivesServiceRestart: an e-stop latched, then the supervisor SIGKILLed (its driver and reader
// end by their parent-death signal): the service started again on the same state directory comes back latched
// from the file, refuses enable, and the wheels never turned from the e-stop to the reset; reset then enable
// drives again. The same after a clean stop (SIGINT). Negative control: the file deleted before the start, the
// service comes back unlatched: the test can tell a kept latch from none.
func TestSimLatchSurvivesServiceRestart(t *testing.T) {
	start := time.Now()
	s, svc, cl := startSimStack(t, "--restart-delay", "200ms")
	dir := svc.svc.Dir
	path := filepath.Join(svc.svc.StateDir, driver.LatchFileName)
	st := waitDriver(t, cl, 0, 10*time.Second)
	if st.EStop != nil {
		t.Fatalf("first start latched: %q", *st.EStop)
	}
	// The wheels turn first: the judge below must be able to see a moving frame.
	stop := drive(t, cl, 0.2)
	waitMoving(t, s)
	stop()

	// 1. SIGKILL of the supervisor.
	reason := latchAndWaitFile(t, svc, cl, path, "durable latch test 1")
	seq := s.RxSeq()
	_ = svc.cmd.Process.Kill()
	if _, ok := svc.wait(5 * time.Second); !ok {
		t.Fatal("supervisor not gone after SIGKILL")
	}
	waitGone(t, st.PIDs.Driver)
	svc, cl, st = restartService(t, s, dir, st.PIDs.Driver)
	want := "e-stop latched before the restart: " + reason + " (kept in " + path + ")"
	if st.EStop == nil || *st.EStop != want {
		t.Fatalf("after the supervisor's SIGKILL: e-stop %v, want %q", st.EStop, want)
	}
	tryDrive(t, cl)
	noWheelsSince(t, s, seq, "latched from the e-stop through the supervisor's SIGKILL and the restart")
	expectLatched(t, cl, st, want, false) // enable refused, then reset
	if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
		_, err := os.Stat(path)
		if err == nil {
			return os.ErrExist
		}
		return nil
	}); err != nil {
		t.Fatalf("latch file still there after the reset: %v", err)
	}
	stop = drive(t, cl, 0.2) // enable works after the reset
	waitMoving(t, s)
	stop()

	// 2. A clean stop of the service (SIGINT), latched.
	reason = latchAndWaitFile(t, svc, cl, path, "durable latch test 2")
	seq = s.RxSeq()
	if code, ok := svc.svc.Interrupt(testkit.Bound(5 * time.Second)); !ok || code != 0 {
		t.Fatalf("SIGINT: exit %d, ended %v", code, ok)
	}
	svc, cl, st = restartService(t, s, dir, st.PIDs.Driver)
	want = "e-stop latched before the restart: " + reason + " (kept in " + path + ")"
	if st.EStop == nil || *st.EStop != want {
		t.Fatalf("after a clean stop: e-stop %v, want %q", st.EStop, want)
	}
	tryDrive(t, cl)
	noWheelsSince(t, s, seq, "latched through a clean stop and start")

	// 3. Negative control: the same, with the file deleted before the start: unlatched.
	if code, ok := svc.svc.Interrupt(testkit.Bound(5 * time.Second)); !ok || code != 0 {
		t.Fatalf("SIGINT: exit %d, ended %v", code, ok)
	}
	if err := os.Remove(path); err != nil {
		t.Fatalf("the latch file was not there after a latched stop: %v", err)
	}
	_, cl, st = restartService(t, s, dir, st.PIDs.Driver)
	if st.EStop != nil {
		t.Fatalf("negative control: started latched (%q) without the file", *st.EStop)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if r, err := cl.Enable(ctx, true); err != nil || !r.Success {
		t.Fatalf("negative control: enable %+v %v", r, err)
	}
	t.Logf("latched across a supervisor SIGKILL and a clean stop, unlatched without the file; %s in all",
		testkit.Ms(time.Since(start)))
}

// TestSimRuntimeParamsSurviveDriverRestart: max_linear tightened over the API; the driver SIGKILLed: its
// replacement under the same supervisor runs with the tightened value; a new service start runs with the
// parameter file's.
func TestSimRuntimeParamsSurviveDriverRestart(t *testing.T) {
	s, svc, cl := startSimStack(t, "--restart-delay", "200ms")
	path := filepath.Join(svc.svc.StateDir, driver.RunParamsFileName)
	st := waitDriver(t, cl, 0, 10*time.Second)
	fileValue := st.Config.MaxLinear
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(20*time.Second))
	defer cancel()
	if r, err := cl.SetParams(ctx, map[string]any{"max_linear": 0.1}); err != nil || !r.Success {
		t.Fatalf("set max_linear: %+v %v", r, err)
	}
	if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error { _, err := os.Stat(path); return err }); err != nil {
		t.Fatalf("runtime parameters not kept: %v", err)
	}
	_ = syscall.Kill(st.PIDs.Driver, syscall.SIGKILL)
	st = waitDriver(t, cl, st.PIDs.Driver, 10*time.Second)
	if st.Config.MaxLinear != 0.1 {
		t.Fatalf("driver restarted by the same supervisor: max_linear %v, want 0.1 (file %v)", st.Config.MaxLinear, fileValue)
	}
	if v := paramValue(t, cl, "max_linear"); v != 0.1 {
		t.Fatalf("GET params: max_linear %v, want 0.1", v)
	}
	if code, ok := svc.svc.Interrupt(testkit.Bound(5 * time.Second)); !ok || code != 0 {
		t.Fatalf("SIGINT: exit %d, ended %v", code, ok)
	}
	_, cl, st = restartService(t, s, svc.svc.Dir, st.PIDs.Driver)
	if st.Config.MaxLinear != fileValue {
		t.Fatalf("new service start: max_linear %v, want the file's %v", st.Config.MaxLinear, fileValue)
	}
	if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			return fmt.Errorf("still there: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatalf("the earlier service's runtime parameters are still on disk: %v", err)
	}
	t.Logf("max_linear %v -> 0.1 at run time; after the driver's SIGKILL 0.1; after a service restart %v", fileValue, st.Config.MaxLinear)
}

func paramValue(t *testing.T, cl *api.Client, name string) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	ps, err := cl.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	t.Fatalf("no parameter %s", name)
	return nil
}

// waitGone waits until pid has exited (the driver after its supervisor's death).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if alive(pid) {
			return os.ErrExist
		}
		return nil
	}); err != nil {
		t.Fatalf("pid %d still running", pid)
	}
}
