package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/sim"
)

// The test binary doubles as the command: with ROSORIN_SIM_MAIN=1 it runs main with the given args.
func TestMain(m *testing.M) {
	if os.Getenv("ROSORIN_SIM_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(append([]string{"rosorin-sim"}, args...), &out, &out)
	return out.String(), err
}

// TestRunCommand starts "run" as a separate process, checks the printed paths and the devices, drives a
// fault through the client subcommands, and stops it with SIGTERM.
func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--dir", dir, "--world", "floor", "--seed", "3", "--fault", "pad")
	cmd.Env = append(os.Environ(), "ROSORIN_SIM_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	var lines []string
	for len(lines) < 4 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	t.Logf("run printed:\n%s", strings.Join(lines, "\n"))
	if len(lines) < 4 || !strings.Contains(lines[0], filepath.Join(dir, "ttyACM0")) || !strings.Contains(lines[1], filepath.Join(dir, "lidar")) {
		t.Fatalf("run output %q", lines)
	}
	if _, err := os.Stat(filepath.Join(dir, "ttyACM0")); err != nil {
		t.Fatal(err)
	}

	out, err := runCLI(t, "hang", "--dir", dir, "on")
	if err != nil || !strings.Contains(out, "ok") {
		t.Errorf("hang on: %q %v", out, err)
	}
	if out, err := runCLI(t, "battery-step", "--dir", dir, "-250"); err != nil {
		t.Errorf("battery-step -250: %q %v", out, err)
	}
	out, err = runCLI(t, "truth", "--dir", dir)
	if err != nil {
		t.Fatal(err)
	}
	var tr sim.Truth
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("truth output %q: %v", out, err)
	}
	if tr.World != "floor" || !strings.Contains(strings.Join(tr.Faults, ","), "hang") || !strings.Contains(strings.Join(tr.Faults, ","), "pad") {
		t.Errorf("truth %+v", tr)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run exited with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop on SIGTERM")
	}
	if _, err := os.Lstat(filepath.Join(dir, "ttyACM0")); !os.IsNotExist(err) {
		t.Errorf("device link left after stop: %v", err)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "stopped:") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func TestClientErrors(t *testing.T) {
	dir := t.TempDir()
	s, err := sim.Start(context.Background(), sim.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"hang", "on"}, "--dir"},
		{[]string{"hang", "--dir", dir}, "on or off"},
		{[]string{"hang", "--dir", dir, "maybe"}, "want on or off"},
		{[]string{"usb-drop", "--dir", dir, "soon"}, "duration"},
		{[]string{"corrupt", "--dir", dir, "0.1"}, "direction"},
		{[]string{"battery-step", "--dir", dir}, "mV"},
		{[]string{"battery-step", "--dir", dir, "lots"}, "not a number"},
		{[]string{"sticks", "--dir", dir, "0", "64", "0"}, "four axes"},
		{[]string{"sticks", "--dir", dir, "0", "128", "0", "0"}, "-128..127"},
		{[]string{"sticks", "0", "64", "0", "0"}, "--dir"},
		{[]string{"truth", "--dir", filepath.Join(dir, "nowhere")}, "no simulator answers"},
		{[]string{"run", "--dir", dir, "hang"}, "--fault"},
		{[]string{"run", "--dir", dir, "--world", "moon"}, "stand or floor"},
		{[]string{"run", "--dir", dir, "--room", filepath.Join(dir, "none.yaml")}, "room file"},
	} {
		out, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v (output %q), want it to mention %q", c.args, err, out, c.want)
		}
	}
	for _, args := range [][]string{
		{"usb-drop", "--dir", dir, "1s"},
		{"corrupt", "--dir", dir, "to-board", "0.01"},
		{"corrupt", "--socket", s.ControlPath(), "from-board:0"},
		{"button", "--dir", dir, "--frames", "3", "0x0100"},
		{"key", "--dir", dir, "1", "0x01"},
		{"battery-step", "--socket", s.ControlPath(), "+250"},
		{"stall", "--dir", dir, "on"},
		{"pad", "--dir", dir, "off"},
		{"lidar-silent", "--dir", dir, "on"},
		{"lidar-unplug", "--dir", dir, "1s"},
		{"ignore-motor", "--dir", dir, "off"},
		{"stats", "--dir", dir},
		{"sticks", "--dir", dir, "-100", "64", "0", "-128"},
	} {
		if out, err := runCLI(t, args...); err != nil {
			t.Errorf("%v: %v (output %q)", args, err, out)
		}
	}
	// Negative axes are values, not flags, and reach the sim.
	if f := strings.Join(s.Truth().Faults, ","); !strings.Contains(f, "sticks=-100,64,0,-128") {
		t.Errorf("after sticks -100 64 0 -128: truth faults %q", f)
	}
}
