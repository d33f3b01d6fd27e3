package rigdoctor

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/rig"
)

func find(t *testing.T, r *doctor.Report, name string) *doctor.Check {
	t.Helper()
	for i := range r.Checks {
		if r.Checks[i].Name == name && r.Checks[i].Area == Area {
			return &r.Checks[i]
		}
	}
	t.Fatalf("no rig check %q", name)
	return nil
}

// The proof rig's checks on a made-up rig: a socket this user owns (every role), one service command found
// and one not, a driver config read and one missing; without a rig the setup is a WARN.
func TestRigChecks(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "base.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg := filepath.Join(dir, "base.yaml")
	os.WriteFile(cfg, []byte("rosorin_base: {}\n"), 0o644)
	r := Run(Options{
		Doctor:       doctor.Options{Device: filepath.Join(dir, "ttyACM0"), Root: dir, Listen: 100 * time.Millisecond},
		Rig:          &rig.Rig{Name: "bench", Setup: rig.Stand},
		ServiceStart: "sh -c true", ServiceStop: "sudo -n no-such-program-rosorin stop",
		DriverConfig: []string{cfg, filepath.Join(dir, "missing.yaml")},
	})
	if c := find(t, r, "rig setup"); c.Status != doctor.Pass || !strings.Contains(c.Measured, "bench: stand") {
		t.Errorf("rig setup: %+v", c)
	}
	if c := find(t, r, "service start command"); c.Status != doctor.Pass {
		t.Errorf("sh: %+v", c)
	}
	if c := find(t, r, "service stop command"); c.Status != doctor.Fail || !strings.Contains(c.Measured, "no-such-program-rosorin not found") {
		t.Errorf("a missing program behind sudo: %+v", c)
	}
	var cfgs []doctor.Check
	for _, c := range r.Checks {
		if c.Name == "driver config" {
			cfgs = append(cfgs, c)
		}
	}
	if len(cfgs) != 2 || cfgs[0].Status != doctor.Pass || !strings.Contains(cfgs[0].Measured, "sha256") || cfgs[1].Status != doctor.Fail {
		t.Errorf("driver configs: %+v", cfgs)
	}
	if r.ExitCode() != 1 {
		t.Errorf("exit %d with failures", r.ExitCode())
	}

	r = Run(Options{Doctor: doctor.Options{Device: filepath.Join(dir, "ttyACM0"), Socket: sock, Root: dir, Listen: 100 * time.Millisecond}})
	if c := find(t, r, "rig setup"); c.Status != doctor.Warn || !strings.Contains(c.Fix, "--rig") {
		t.Errorf("no rig: %+v", c)
	}
	// The socket is this user's: the owner holds every role (as the service's user does on the robot).
	if c := find(t, r, "proof roles"); c.Status != doctor.Pass || !strings.Contains(c.Measured, "drive") {
		t.Errorf("proof roles on our own socket: %+v", c)
	}
	r = Run(Options{Doctor: doctor.Options{Device: filepath.Join(dir, "ttyACM0"), Socket: filepath.Join(dir, "none.sock"), Root: dir, Listen: 100 * time.Millisecond}})
	if c := find(t, r, "proof roles"); c.Status != doctor.Fail || !strings.Contains(c.Fix, "start the driver") {
		t.Errorf("no socket: %+v", c)
	}
}
