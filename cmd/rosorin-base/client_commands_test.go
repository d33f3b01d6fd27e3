// The client subcommands as a person or a script runs them: the built binary against a real driver
// (`rosorin-base run` on the simulated robot), judged by their output and exit status, and for `drive` by
// the frames the sim's board received. Real time: under -race the binary is race-built and the waits are
// widened (testkit.Bound).

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// cliRun is one finished client command.
type cliRun struct {
	stdout, stderr string
	code           int
}

// clientEnv is the environment without ROSORIN_SOCKET, so that only --socket (or what a test sets) counts.
func clientEnv(extra ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, api.SocketEnv+"=") {
			env = append(env, e)
		}
	}
	return append(env, extra...)
}

func runCLI(t *testing.T, bin string, env []string, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(20*time.Second))
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Env = env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("rosorin-base %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("rosorin-base %s: still running after 20 s", strings.Join(args, " "))
	}
	return cliRun{out.String(), errb.String(), c.ProcessState.ExitCode()}
}

// cliStack is the simulated robot and `rosorin-base run` the commands talk to.
type cliStack struct {
	sim  *sim.Sim
	sock string
	cl   *api.Client
	log  *testkit.LockedBuffer
}

// startCLIStack starts the sim's stand and `rosorin-base run` on it (the shared fixture, stacktest) and
// returns once the driver answers with scans flowing and a live board link.
func startCLIStack(t *testing.T, bin string) *cliStack {
	t.Helper()
	st := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 2}, stacktest.Options{Bin: bin, Config: stacktest.RobotConfig,
		Args: []string{"--contact", "log"}, // the stand: every spin is a contact
		Env:  clientEnv()})
	return &cliStack{sim: st.Sim, sock: st.Socket, cl: st.Client, log: st.Log}
}

func (st *cliStack) state(t *testing.T) api.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	x, err := st.cl.State(ctx)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	return x
}

func speeds(r sim.Received) ([4]float64, bool) {
	var rps [4]float64
	if r.Func != board.FuncMotor {
		return rps, false
	}
	mc, err := board.DecodeMotor(r.Payload)
	if err != nil || mc.Kind != board.MotorSetMany || len(mc.Speeds) != 4 {
		return rps, false
	}
	for i, sp := range mc.Speeds {
		if sp.ID != uint8(i) {
			return rps, false
		}
		rps[i] = float64(sp.RPS)
	}
	return rps, true
}

// TestClientCommands runs state, enable, drive, estop, enable (refused), reset, disable and imu against one
// driver, then every client against no driver.
func TestClientCommands(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(testkit.Cleanup)
	st := startCLIStack(t, bin)
	env := clientEnv()
	sock := []string{"--socket", st.sock}
	cmd := func(t *testing.T, args ...string) cliRun {
		t.Helper()
		return runCLI(t, bin, env, append(append([]string{args[0]}, sock...), args[1:]...)...)
	}

	t.Run("state", func(t *testing.T) {
		r := cmd(t, "state")
		var s api.State
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil {
			t.Fatalf("state: exit %d, stdout %q, stderr %q; want exit 0 and a JSON state record", r.code, r.stdout, r.stderr)
		}
		if s.Enabled || s.Blocked == nil || *s.Blocked != "disabled" || s.PIDs.Driver == 0 {
			t.Errorf("state at start: enabled %v blocked %v driver pid %d; want disabled", s.Enabled, s.Blocked, s.PIDs.Driver)
		}
		// The socket from the environment, as the unit's users set it.
		r = runCLI(t, bin, clientEnv(api.SocketEnv+"="+st.sock), "state")
		if r.code != 0 || !strings.Contains(r.stdout, `"enabled": false`) {
			t.Errorf("state with %s set: exit %d, %q", api.SocketEnv, r.code, r.stderr)
		}
	})

	t.Run("state --follow", func(t *testing.T) {
		lines, code := follow(t, bin, env, 3, testkit.Bound(5*time.Second), "state", "--socket", st.sock, "--follow")
		for _, l := range lines {
			var s api.State
			if err := json.Unmarshal([]byte(l), &s); err != nil || s.PIDs.Driver == 0 {
				t.Errorf("state --follow line %q: %v", l, err)
			}
		}
		if code != 0 {
			t.Errorf("state --follow: exit %d after SIGINT, want 0", code)
		}
	})

	t.Run("enable", func(t *testing.T) {
		r := cmd(t, "enable")
		if r.code != 0 || r.stdout != "enabled\n" {
			t.Fatalf("enable: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		if !st.state(t).Enabled {
			t.Error("enable printed enabled but the driver is not")
		}
	})

	t.Run("drive", func(t *testing.T) {
		seq := st.sim.RxSeq()
		t0 := time.Now()
		r := cmd(t, "drive", "0.1", "0", "0", "--for", "1s")
		tEnd := time.Now()
		if r.code != 0 || !strings.HasPrefix(r.stdout, "sent ") || !strings.Contains(r.stdout, "in 1s, then a zero command (stop now): driver accepted ") ||
			!strings.Contains(r.stdout, "rejected 0, dropped 0 (stream ended)") || strings.Contains(r.stderr, "note:") {
			t.Fatalf("drive: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		// The zero command is applied at the driver's next tick: wait for the stop frame after the moving ones.
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
		defer cancel()
		moved := false
		_, _, _ = st.sim.WaitFrameSince(ctx, seq, func(f sim.Received) bool {
			rps, ok := speeds(f)
			moved = moved || (ok && rps != [4]float64{})
			return moved && ok && rps == [4]float64{}
		})
		frames, _ := st.sim.ReceivedSince(seq)
		var firstMove, lastMove, stop time.Time
		bound := 0.35/(math.Pi*0.08) + 1e-4 // max_linear forward, wire rps
		for _, f := range frames {
			rps, ok := speeds(f)
			if !ok {
				t.Fatalf("undecodable frame % x", f.Payload)
			}
			switch {
			case rps == [4]float64{}:
				if !lastMove.IsZero() && stop.IsZero() {
					stop = f.T
				}
			default:
				if !(rps[0] > 0 && rps[1] > 0 && rps[2] < 0 && rps[3] < 0) || math.Abs(rps[0]) > bound {
					t.Errorf("drive 0.1 0 0 gave wire rps %v: want forward (1,2 > 0; 3,4 < 0) within %.3f", rps, bound)
				}
				if firstMove.IsZero() {
					firstMove = f.T
				}
				if !stop.IsZero() {
					t.Errorf("non-zero frame %v after the stop frame", rps)
				}
				lastMove = f.T
			}
		}
		if firstMove.IsZero() || stop.IsZero() {
			t.Fatalf("drive: %d frames, first moving %v, stop %v; want non-zero motor frames then a stop", len(frames), firstMove, stop)
		}
		if d := stop.Sub(firstMove); d < 800*time.Millisecond || d > 800*time.Millisecond+testkit.Bound(700*time.Millisecond) {
			t.Errorf("wheels commanded for %v, want about --for 1s", d)
		}
		if stop.After(tEnd.Add(testkit.Bound(100 * time.Millisecond))) {
			t.Errorf("stop frame %v after drive exited: the final zero command must stop the wheels at once", stop.Sub(tEnd))
		}
		if err := testkit.Eventually(testkit.Bound(time.Second), func() error { // applied at the sim's next tick
			if tr := st.sim.Truth(); tr.TargetRPS != [4]float64{} {
				return fmt.Errorf("wheel targets %v", tr.TargetRPS)
			}
			return nil
		}); err != nil {
			t.Errorf("1 s after the stop frame: %v", err)
		}
		t.Logf("drive 0.1 0 0 --for 1s: %s; board: first non-zero frame %v after start, stop frame %v after it, %v after the command exited",
			strings.TrimSpace(r.stdout), firstMove.Sub(t0).Round(time.Millisecond), stop.Sub(firstMove).Round(time.Millisecond), stop.Sub(tEnd).Round(time.Millisecond))
	})

	var reason string
	t.Run("estop", func(t *testing.T) {
		r := cmd(t, "estop", "--reason", "cli test")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "e-stop latched: estop request from pid ") || !strings.HasSuffix(r.stdout, ": cli test\n") {
			t.Fatalf("estop: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		s := st.state(t)
		if s.EStop == nil || s.Enabled {
			t.Fatalf("after estop: estop %v enabled %v", s.EStop, s.Enabled)
		}
		reason = *s.EStop
	})

	t.Run("enable refused", func(t *testing.T) {
		r := cmd(t, "enable")
		// The seed's message (chapter 11 on_enable): refused: e-stop latched (<first reason>).
		if want := "refused: e-stop latched (" + reason + ")\n"; r.code != 1 || r.stdout != want {
			t.Fatalf("enable while latched: exit %d stdout %q stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, want)
		}
		if st.state(t).Enabled {
			t.Error("enabled while latched")
		}
	})

	t.Run("reset", func(t *testing.T) {
		r := cmd(t, "reset")
		if want := "e-stop cleared (was: " + reason + "); motion still disabled\n"; r.code != 0 || r.stdout != want {
			t.Fatalf("reset: exit %d stdout %q stderr %q; want %q", r.code, r.stdout, r.stderr, want)
		}
		if s := st.state(t); s.EStop != nil || s.Enabled {
			t.Errorf("after reset: estop %v enabled %v; want cleared and still disabled", s.EStop, s.Enabled)
		}
	})

	t.Run("disable", func(t *testing.T) {
		if r := cmd(t, "enable"); r.code != 0 {
			t.Fatalf("enable after reset: exit %d %q", r.code, r.stdout)
		}
		r := cmd(t, "disable")
		if r.code != 0 || r.stdout != "disabled\n" {
			t.Fatalf("disable: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		if st.state(t).Enabled {
			t.Error("still enabled after disable")
		}
	})

	t.Run("imu", func(t *testing.T) {
		check := func(l string) {
			t.Helper()
			var m api.IMU
			if err := json.Unmarshal([]byte(l), &m); err != nil || m.FrameID != "imu_link" {
				t.Fatalf("imu line %q: %v", l, err)
			}
			for _, v := range append(m.AngularVelocity[:], m.LinearAcceleration[:]...) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("imu line with a non-finite value: %q", l)
				}
			}
			if az := m.LinearAcceleration[2]; az < 8.5 || az > 11 {
				t.Errorf("imu on the stand: z acceleration %.2f m/s², want about 9.8", az)
			}
		}
		// The IMU is published after the 3 s start-up gyro calibration: the deadline covers it.
		lines, code := follow(t, bin, env, 5, testkit.Bound(10*time.Second), "imu", "--socket", st.sock, "--follow")
		for _, l := range lines {
			check(l)
		}
		if code != 0 {
			t.Errorf("imu --follow: exit %d after SIGINT, want 0", code)
		}
		r := cmd(t, "imu")
		if r.code != 0 || strings.Count(r.stdout, "\n") != 1 {
			t.Fatalf("imu (one message): exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		check(strings.TrimSpace(r.stdout))
	})

	t.Run("no driver", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "none.sock")
		want := "rosorin-base: no driver at " + gone + " (is rosorin-base running? pass --socket)\n"
		for _, args := range [][]string{{"state"}, {"enable"}, {"disable"}, {"estop"}, {"reset"}, {"drive", "0.1", "0", "0", "--for", "1s"}, {"imu", "--follow"}} {
			r := runCLI(t, bin, env, append(append([]string{args[0]}, "--socket", gone), args[1:]...)...)
			if r.code != 1 || r.stderr != want || r.stdout != "" {
				t.Errorf("%s with no driver: exit %d stdout %q stderr %q; want exit 1 and %q", args[0], r.code, r.stdout, r.stderr, want)
			}
		}
	})
}

// follow starts a --follow client, collects n lines (or fails after timeout), then sends SIGINT and returns
// the lines and the exit status.
func follow(t *testing.T, bin string, env []string, n int, timeout time.Duration, args ...string) ([]string, int) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Env = env
	var errb bytes.Buffer
	c.Stderr = &errb
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	linec := make(chan string)
	go func() {
		defer close(linec)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			linec <- sc.Text()
		}
	}()
	drain := func() {
		go func() {
			for range linec { // what is still printed; ends when the pipe closes
			}
		}()
	}
	var lines []string
	deadline := time.After(timeout)
	for len(lines) < n {
		select {
		case l, ok := <-linec:
			if !ok {
				c.Wait()
				t.Fatalf("%s ended after %d lines (stderr %q)", strings.Join(args, " "), len(lines), errb.String())
			}
			lines = append(lines, l)
		case <-deadline:
			drain()
			c.Process.Kill()
			c.Wait()
			t.Fatalf("%s: %d of %d lines within %v (stderr %q)", strings.Join(args, " "), len(lines), n, timeout, errb.String())
		}
	}
	_ = c.Process.Signal(syscall.SIGINT)
	drain()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case <-done:
	case <-time.After(testkit.Bound(5 * time.Second)):
		c.Process.Kill()
		<-done
		t.Fatalf("%s still running 5 s after SIGINT", strings.Join(args, " "))
	}
	return lines, c.ProcessState.ExitCode()
}
