package service

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bridgeCapsEnv makes the test binary the service process of TestBridgeExecsWithoutCapabilities: it runs
// startBridge with --ros2-user nobody and a bridge script that prints its effective capabilities (argument:
// the folder of the script).
const bridgeCapsEnv = "ROSORIN_TEST_BRIDGECAPS"

func TestMain(m *testing.M) {
	if dir := os.Getenv(bridgeCapsEnv); dir != "" {
		os.Exit(bridgeCapsService(dir))
	}
	os.Exit(m.Run())
}

func bridgeCapsService(dir string) int {
	bridgeHealthy = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	wait, status := startBridge(ctx, Options{Socket: filepath.Join(dir, "s.sock"), ROS2Bridge: filepath.Join(dir, BridgeName), ROS2User: "nobody"},
		slog.New(slog.NewTextHandler(os.Stderr, nil)), nil)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "caps")); err == nil {
			break
		}
	}
	fmt.Println("bridge status:", status().LastError)
	cancel()
	wait()
	return 0
}

// TestBridgeExecsWithoutCapabilities: a service that holds CAP_SETUID and CAP_SETGID ambient (deploy/ros2.conf,
// for --ros2-user) starts the bridge as its user without them. Control: the service process itself holds
// them, and an ordinary child of it too.
func TestBridgeExecsWithoutCapabilities(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the service runs as uid 65534 with ambient capabilities")
	}
	dir, err := os.MkdirTemp("", "bridgecaps")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "service.test")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bin, b, 0o755)
	// The bridge reports its capabilities and (python3, exec'd so that it is the bridge process: the
	// parent-death signal is not inherited across fork) its parent-death signal, which an exec that gained
	// capabilities would have cleared.
	script := "#!/bin/sh\n" +
		"grep CapEff /proc/self/status | cut -f2 > " + dir + "/caps.tmp\n" +
		"command -v python3 >/dev/null || { mv " + dir + "/caps.tmp " + dir + "/caps; exec sleep 30; }\n" +
		"exec python3 -c 'import ctypes, os, time; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); " +
		"open(\"" + dir + "/sig\", \"w\").write(str(s.value)); os.rename(\"" + dir + "/caps.tmp\", \"" + dir + "/caps\"); time.sleep(30)'\n"
	os.WriteFile(filepath.Join(dir, BridgeName), []byte(script), 0o755)
	run := func(args ...string) string {
		c := exec.Command(bin, args...)
		c.Env = []string{bridgeCapsEnv + "=" + dir, "PATH=/usr/bin:/bin"}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, AmbientCaps: []uintptr{6, 7}}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return string(out)
	}
	out := run()
	caps, err := os.ReadFile(filepath.Join(dir, "caps"))
	if err != nil {
		t.Fatalf("the bridge did not run: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(caps)); got != "0000000000000000" {
		t.Errorf("the bridge execs with capabilities %s, want none\n%s", got, out)
	}
	if sig, err := os.ReadFile(filepath.Join(dir, "sig")); err == nil && len(strings.TrimSpace(string(sig))) > 0 {
		if got := strings.TrimSpace(string(sig)); got != "15" {
			t.Errorf("the bridge's parent-death signal is %s, want 15 (SIGTERM): it would outlive the service", got)
		}
	} else {
		t.Log("no python3: the bridge's parent-death signal not checked")
	}
	// Control: the same process holds the capabilities, and a child forked from an ordinary thread keeps them.
	c := exec.Command("/bin/sh", "-c", "grep CapEff /proc/self/status | cut -f2")
	c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, AmbientCaps: []uintptr{6, 7}}
	ctl, err := c.Output()
	if err != nil || strings.TrimSpace(string(ctl)) == "0000000000000000" {
		t.Fatalf("control: a process started like the service holds %q (%v): the test cannot tell", ctl, err)
	}
	sig, _ := os.ReadFile(filepath.Join(dir, "sig"))
	t.Logf("service started with %s; its bridge %s, parent-death signal %s", strings.TrimSpace(string(ctl)), strings.TrimSpace(string(caps)), strings.TrimSpace(string(sig)))
}
