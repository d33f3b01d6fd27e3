package simrobot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

func TestConditions(t *testing.T) {
	fresh, stale := 0.1, 0.5
	for _, tc := range []struct {
		name         string
		st           api.State
		notPID       int
		up, scanning bool
	}{
		{"no driver", api.State{}, 0, false, false},
		{"driver, no scans", api.State{PIDs: api.PIDs{Driver: 7}}, 0, true, false},
		{"driver, fresh scans", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh}, 0, true, true},
		{"driver, stale scans", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &stale}, 0, true, false},
		{"board silent", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh, BoardSilent: true}, 0, false, false},
		{"the old driver", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh}, 7, false, false},
		{"a new driver", api.State{PIDs: api.PIDs{Driver: 8}, ScanAgeS: &fresh}, 7, true, true},
	} {
		if err := DriverUp(tc.notPID)(tc.st); (err == nil) != tc.up {
			t.Errorf("%s: DriverUp = %v, want ready %v", tc.name, err, tc.up)
		}
		if err := Scanning(tc.notPID)(tc.st); (err == nil) != tc.scanning {
			t.Errorf("%s: Scanning = %v, want ready %v", tc.name, err, tc.scanning)
		}
	}
}

// The one robot configuration is what the robot runs: the driver reads it as max_linear 0.35 and chapter
// 11's defaults otherwise; a test's own base.yaml is kept; the overrides come second.
func TestWriteConfig(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteConfig(dir, RobotConfig, []byte("rosorin_board_driver:\n  ros__parameters:\n    priority_manual: 5\n"))
	if err != nil || len(paths) != 2 || filepath.Base(paths[0]) != ConfigFile || filepath.Base(paths[1]) != OverridesFile {
		t.Fatalf("WriteConfig = %v, %v", paths, err)
	}
	c, notes, err := config.Load(paths[0])
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %v", err, notes)
	}
	want := config.Default()
	want.MaxLinear = 0.35
	if c != want {
		t.Errorf("the robot configuration reads as\n%+v, want\n%+v", c, want)
	}
	c, _, err = config.Load(paths...)
	if err != nil || c.PriorityManual != 5 || c.MaxLinear != 0.35 {
		t.Errorf("with the overrides: %v, priority_manual %d, max_linear %v", err, c.PriorityManual, c.MaxLinear)
	}
	if paths, err := WriteConfig(dir, DefaultConfig, nil); err != nil || len(paths) != 1 {
		t.Fatalf("again: %v %v", paths, err)
	}
	if b, _ := os.ReadFile(paths[0]); string(b) != RobotConfig {
		t.Errorf("an existing base.yaml was rewritten: %q", b)
	}
}

// A service whose output goes to a file, in its own process group, that ignores SIGINT: the readiness wait
// ends with the file's tail when the condition never holds, and the stop kills the whole group after the
// wait, saying so.
func TestFileLogAndGroupKill(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-base")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ntrap '' INT\necho \"started on $3\"\nsleep 60 &\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "base.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	s, err := Launch(Options{Bin: bin, Dir: dir, Device: "/dev/nothing", Log: logf,
		ProcAttr: &syscall.SysProcAttr{Setpgid: true}, ReadyTimeout: 200 * time.Millisecond,
		ReadyCheck: func(*Service) error { return os.ErrNotExist }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.WaitReady(context.Background())
	if err == nil || !strings.Contains(err.Error(), "log "+logf.Name()) || !strings.Contains(err.Error(), "started on /dev/nothing") {
		t.Fatalf("WaitReady = %v, want the file's tail", err)
	}
	start := time.Now()
	if err := s.StopWithin(100 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("StopWithin = %v, want the kill", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the stop took %v: the group's sleep kept it", d)
	}
	if err := s.StopWithin(time.Second); err == nil {
		t.Fatal("a second stop forgot the first one's error")
	}
}

// The simulated robot with the one robot configuration, as stopproof --sim runs it: ready with scans
// flowing, a service stop and a new start on the same sim (Relaunch: systemctl stop, start), the stop path's
// SIGINT ending the service cleanly each time, and Close leaving nothing behind.
func TestStartRelaunchClose(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	st, err := Start(context.Background(), sim.Config{World: "stand", Seed: 1}, Options{Bin: bin, Config: RobotConfig,
		Args: []string{"--contact", "log"}, Widen: testkit.Bound, Started: func(s *Service) { starts = append(starts, s.Cmd.Process.Pid) }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Ready.PIDs.Driver == 0 || st.Ready.ScanAgeS == nil {
		t.Fatalf("ready without a driver or scans: %+v", st.Ready)
	}
	c, _, err := config.Load(st.ConfigPath)
	if err != nil || c.MaxLinear != 0.35 {
		t.Fatalf("the service's configuration: max_linear %v, %v", c.MaxLinear, err)
	}
	first := st.Service
	if err := first.StopWithin(testkit.Bound(10 * time.Second)); err != nil || first.Cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("stop: %v, exit %v\n%s", err, first.Cmd.ProcessState, first.Tail())
	}
	if err := st.Relaunch(); err != nil {
		t.Fatal(err)
	}
	if st.Service == first || len(starts) != 2 {
		t.Fatalf("Relaunch kept the stopped service (%d starts)", len(starts))
	}
	if _, err := st.WaitState(context.Background(), 15*time.Second, Scanning(0)); err != nil {
		t.Fatal(err)
	}
	dir := st.Dir
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if code, ok := st.WaitExit(time.Second); !ok || code != 0 {
		t.Fatalf("after Close: exit %d (ended %v)\n%s", code, ok, st.Tail())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Close left its directory: %v", err)
	}
}
