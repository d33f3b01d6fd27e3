package supervisor_test

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/rosorin/rosorin/driver/supervisor"
)

// TestSpawnerDropsCapabilities: a service given CAP_SETUID and CAP_SETGID (deploy/ros2.conf, for the bridge's
// own user) starts the driver and the reader without them. The process runs as uid 65534 with the two ambient,
// as systemd starts the service; the spawner's child has no effective capability and keeps its parent-death
// signal (an exec that gained capabilities would have cleared it). Control: a child forked from an ordinary
// thread of the same process has them, so the test can tell.
func TestSpawnerDropsCapabilities(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the process runs as uid 65534 with ambient capabilities")
	}
	c := exec.Command(openerBin)
	c.Env = []string{supervisor.SpawnCapsEnv + "=1"}
	c.SysProcAttr = &syscall.SysProcAttr{
		Credential:  &syscall.Credential{Uid: 65534, Gid: 65534},
		AmbientCaps: []uintptr{6, 7}, // CAP_SETGID, CAP_SETUID
	}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, sig := map[string]string{}, ""
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) >= 2 {
			got[f[0]] = f[1]
			if f[0] == "spawner" && len(f) == 3 {
				sig = f[2]
			}
		}
	}
	const none = "0000000000000000"
	if got["self"] == "" || got["self"] == none {
		t.Fatalf("the service process holds no capability (%q): the test cannot tell; output:\n%s", got["self"], out)
	}
	if got["plain"] != got["self"] {
		t.Errorf("control: a child of an ordinary thread has %q, the process %q", got["plain"], got["self"])
	}
	if got["spawner"] != none {
		t.Errorf("the spawner's child (driver, reader) has capabilities %q, want none; output:\n%s", got["spawner"], out)
	}
	if sig != "15" {
		t.Errorf("the spawner's child has parent-death signal %q, want 15 (SIGTERM): the supervisor-death stop is gone", sig)
	}
	t.Logf("service %s, ordinary child %s, spawner's child %s with parent-death signal %s", got["self"], got["plain"], got["spawner"], sig)
}
