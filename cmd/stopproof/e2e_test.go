//go:build linux

// The end-to-end tests run the real binaries: stopproof against a simulated stand robot (package sim, inside
// stopproof) with the real rosorin-base supervisor, driver and LiDAR reader as child processes. They are
// real-time (seconds of spin-up and hold per path); under the race detector their waits are widened
// (testkit.Bound) and stopproof is race-built, rosorin-base is not (bins).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// stopproof runs the binary in the test's working directory, inside the source tree (so --sim builds
// rosorin-base from the tree), and returns its output and exit status.
func stopproof(t *testing.T, timeout time.Duration, args ...string) (string, int) {
	t.Helper()
	return stopproofIn(t, "", timeout, args...)
}

// command prepares stopproof to run in dir ("" = the test's working directory). Its temporary folders (the
// simulated robot's) go into the test's own, which the testing package removes whatever the child left
// behind; and if this test binary dies, the child gets SIGINT, runs its teardown and takes its simulated
// robot down with it.
func command(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	return commandOf(t, filepath.Join(bins(t), "stopproof"), dir, args...)
}

// commandOf is command for the stopproof binary bin (the ros2-tagged build, for one).
func commandOf(t *testing.T, bin, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT}
	return cmd
}

// stopproofIn runs the binary in dir ("" = the test's working directory). timeout is widened under the race
// detector (testkit.Bound).
func stopproofIn(t *testing.T, dir string, timeout time.Duration, args ...string) (string, int) {
	t.Helper()
	return runStopproof(t, command(t, dir, args...), timeout)
}

// runStopproof runs cmd (from command or commandOf) to its end, or interrupts it (then kills it) after
// timeout, widened under the race detector, and returns its output and exit status.
func runStopproof(t *testing.T, cmd *exec.Cmd, timeout time.Duration) (string, int) {
	t.Helper()
	timeout = testkit.Bound(timeout)
	args := cmd.Args[1:]
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		cmd.Process.Signal(os.Interrupt) // the proof's own teardown, then the sim's
		select {
		case err = <-done:
		case <-time.After(testkit.Bound(30 * time.Second)):
			cmd.Process.Kill()
			err = <-done
		}
		t.Errorf("stopproof %s: still running after %v\n%s", strings.Join(args, " "), timeout, out.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopproof %s -> exit %d\n%s", strings.Join(args, " "), code, out.String())
	return out.String(), code
}

// simDir is the simulated robot's temporary folder named in the target line.
func simDir(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, " in /")
	if i < 0 {
		t.Fatalf("no target line in the output")
	}
	rest := out[i+4:]
	return rest[:strings.IndexAny(rest, ", \n")]
}

// assertTornDown checks that the folder is gone and no process still runs from it.
func assertTornDown(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists (%v)", dir, err)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(dir)) {
			t.Errorf("a process still runs from %s: %s %q", dir, p, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
}

func resultLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, "PASS") || strings.Contains(l, "  FAIL") || strings.Contains(l, " TIMEOUT") {
			lines = append(lines, l)
		}
	}
	return lines
}

// assertAllNeverSettled is a negative control's verdict (a board that ignores motor frames): n result lines,
// each NEVER settled and FAIL, the wheels left disabled and the simulated robot torn down.
func assertAllNeverSettled(t *testing.T, out string, n int) {
	t.Helper()
	lines := resultLines(out)
	if len(lines) != n {
		t.Fatalf("result lines %q, want %d", lines, n)
	}
	for _, l := range lines {
		// A release line (the scan gate's, the take-over's) after a stop that never came: not judged.
		if strings.Contains(l, "  FAIL: not judged: the wheels were never shown to stop") {
			continue
		}
		if !strings.Contains(l, "NEVER settled") || !strings.HasSuffix(l, "FAIL") {
			t.Errorf("line %q: want NEVER settled ... FAIL", l)
		}
	}
	if !strings.Contains(out, "end state: {enabled: false") {
		t.Error("the teardown did not leave the wheels disabled")
	}
	assertTornDown(t, simDir(t, out))
}

func TestProveSimEstopKillPasses(t *testing.T) {
	testkit.SkipShort(t, "a stand proof of two paths end to end (about 30 s)")
	run := proofRun(t, "ci-stand", 3*time.Minute, "prove", "--sim", "estop,kill", "--spin", "2s", "--hold", "3s")
	out, code, js, ev := run.out, run.code, run.json, run.ev
	n := run.wantPlanned(t, 4)
	if passed, _ := run.result(t); code != 0 || passed != n {
		t.Fatalf("exit %d, %d of %d passed; want 0 and all", code, passed, n)
	}
	assertTornDown(t, simDir(t, out))
	for _, want := range []string{"kill: board IMU read via the supervisor's raw stream", "end state: {enabled: false, estop: none",
		"| SIGKILL of the driver ", "building rosorin-base from the source tree ", "): built from the source tree ",
		"IMU timing: every sample timed on receipt"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Version   string          `json:"version"`
		Config    json.RawMessage `json:"driver_config"`
		DriverBin struct {
			Path, How, Version string
		} `json:"driver_bin"`
		Results []struct {
			Name         string `json:"name"`
			Outcome      string `json:"outcome"`
			IMUSource    string `json:"imu_source"`
			Measurements []struct {
				Name  string   `json:"name"`
				Value *float64 `json:"value"`
				Limit *float64 `json:"limit"`
			} `json:"measurements"`
		} `json:"results"`
		Start, End time.Time
		TeardownOK bool `json:"teardown_ok"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("--json record: %v", err)
	}
	if len(rec.Results) != n || rec.Version == "" || len(rec.Config) == 0 || !rec.TeardownOK || !rec.End.After(rec.Start) {
		t.Fatalf("record: %s", b)
	}
	kill := -1
	for i, r := range rec.Results {
		// A stop's line has its four measurements; a release line after one (the lane's run of every path:
		// "LiDAR back", "operator let go") its one.
		stop := strings.Contains(r.Name, ", ")
		if r.Outcome != "PASS" || (stop && len(r.Measurements) != 4) || len(r.Measurements) == 0 || r.Measurements[0].Value == nil || r.Measurements[0].Limit == nil {
			t.Errorf("record result %+v", r)
		}
		if strings.HasPrefix(r.Name, "driver kill, ") {
			kill = i
		}
	}
	// In the source tree the proof proves the tree's driver, built for this run, never the copy beside it.
	if !strings.HasPrefix(rec.DriverBin.How, "built from the source tree ") || rec.DriverBin.Path == filepath.Join(binDir, "rosorin-base") ||
		!strings.Contains(rec.DriverBin.Version, "go1.") {
		t.Errorf("driver binary %+v", rec.DriverBin)
	}
	if kill < 0 {
		t.Errorf("no driver kill line in the record")
	} else if rec.Results[kill].IMUSource != "raw" {
		t.Errorf("kill judged from %q, want the supervisor's raw stream", rec.Results[kill].IMUSource)
	}
	logs, _ := filepath.Glob(filepath.Join(ev, "stop_proof_stand_*.log"))
	if len(logs) == 0 {
		t.Fatal("no evidence log")
	}
	lb, _ := os.ReadFile(logs[0])
	for _, want := range []string{"TRIGGER SIGKILL of the driver", "cmd +0.35", "state: {", "imu: "} {
		if !bytes.Contains(lb, []byte(want)) {
			t.Errorf("evidence log lacks %q", want)
		}
	}
}

// Ctrl-C in the middle of a path: the teardown disables the wheels, the simulated robot and its processes
// are gone, and the exit status is not 0.
func TestProveSimCtrlC(t *testing.T) {
	cmd := command(t, "", "prove", "--sim", "estop", "--evidence-dir", t.TempDir())
	var out testkit.LockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	interrupted := false
	defer func() { // a failed wait below must not leave the proof running
		if !interrupted {
			cmd.Process.Signal(os.Interrupt)
		}
	}()
	// The first path's progress line (the simulated robot and rosorin-base built and started; generous: the
	// build may be cold), then the driver itself turning the wheels: Ctrl-C lands mid-path, with wheels the
	// teardown has to stop.
	waitFor(t, 3*time.Minute, "the progress line \"spinning up\"", func() bool { return strings.Contains(out.String(), "spinning up") })
	c := api.NewClient(filepath.Join(simDir(t, out.String()), "base.sock"))
	defer c.CloseIdle()
	waitFor(t, 30*time.Second, "the driver enabled and turning the wheels", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := c.State(ctx)
		return err == nil && st.Enabled && st.WheelRPS != [4]float64{}
	})
	interrupted = true
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(testkit.Bound(time.Minute)):
		cmd.Process.Kill()
		t.Fatalf("still running %v after Ctrl-C\n%s", testkit.Bound(time.Minute), out.String())
	}
	s := out.String()
	t.Log(s)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Errorf("exit %v, want a failing status", err)
	}
	for _, want := range []string{"interrupted", "end state: {enabled: false", "RESULT: 0/3 passed", "not run"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	assertTornDown(t, simDir(t, s))
}

// waitFor polls cond until it holds, or fails the test after timeout (widened under the race detector)
// naming what it waited for.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = testkit.Bound(timeout)
	if testkit.Eventually(timeout, func() error {
		if !cond() {
			return errors.New("not yet")
		}
		return nil
	}) != nil {
		t.Fatalf("no %s within %v", what, timeout)
	}
}

// The negative control from the command line: the simulated board ignores motor frames from each trigger on
// (the spin-up still works). Every line must FAIL and the exit status must say so.
func TestProveSimIgnoreMotorFails(t *testing.T) {
	testkit.SkipShort(t, "the stand negative control end to end (about 30 s)")
	run := proofRun(t, "ci-negative", 3*time.Minute, "prove", "--sim", "--sim-fault", "ignore-motor", "estop,kill", "--spin", "2s",
		"--hold", "3s")
	n := run.wantPlanned(t, 4)
	if passed, _ := run.result(t); run.code != 1 || passed != 0 {
		t.Fatalf("exit %d, %d of %d passed; want 1 and none", run.code, passed, n)
	}
	assertAllNeverSettled(t, run.out, n)
}

func TestScangateSim(t *testing.T) {
	testkit.SkipShort(t, "the live scan-gate check end to end")
	out, code := stopproof(t, 2*time.Minute, "scangate", "--sim", "--evidence-dir", t.TempDir())
	verdict := strings.Split(strings.Split(out, "evidence:")[0], "recording:")[0] // the lines after the verdict name the files
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(verdict), "PASS") {
		t.Fatalf("exit %d, want 0 and PASS", code)
	}
	if !strings.Contains(out, `"worst_scan_age_s":`) || !strings.Contains(out, `"state_blocked":"disabled"`) {
		t.Errorf("no seed JSON line")
	}
}

// The scan-gate check's negative control: with the driver's reader respawn switched off it must FAIL. It
// runs outside the source tree: there the rosorin-base next to stopproof is used, and named.
func TestScangateSimNoRespawnFails(t *testing.T) {
	testkit.SkipShort(t, "the live scan-gate negative control end to end")
	out, code := stopproofIn(t, t.TempDir(), 2*time.Minute, "scangate", "--sim", "--sim-no-lidar-respawn", "--evidence-dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "FAIL") || strings.Contains(out, "\nPASS") {
		t.Fatalf("exit %d, want 1 and FAIL", code)
	}
	if want := "rosorin-base " + filepath.Join(binDir, "rosorin-base") + " ("; !strings.Contains(out, want) || !strings.Contains(out, "): next to stopproof (no source tree here") {
		t.Errorf("output does not name %s next to stopproof", filepath.Join(binDir, "rosorin-base"))
	}
}
