package main

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// rosorin-base doctor against the simulated robot's ptys exits 0 and prints a JSON report that reads back; a
// board path that is not there exits 1; a bad flag exits 2 before anything is opened.
func TestDoctorCommand(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	s, err := sim.Start(ctx, sim.Config{Dir: dir, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(args ...string) (string, int) {
		out, err := exec.Command(bin, append([]string{"doctor"}, args...)...).Output()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	out, code := run("--device", s.BoardPath(), "--lidar", s.LidarPath(), "--socket", "", "--unit", "",
		"--state-dir", dir, "--listen", "1500ms", "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if code != 0 || r.Find("board talking") == nil || r.Find("board talking").Status != doctor.Pass ||
		r.Find("lidar talking").Status != doctor.Pass {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, code = run("--device", filepath.Join(dir, "nothing"), "--lidar", "", "--socket", "", "--unit", "", "--state-dir", dir)
	if code != 1 || !strings.Contains(out, "FAIL") {
		t.Errorf("a missing board: exit %d:\n%s", code, out)
	}
	if _, code = run("--listen", "-1s"); code != 2 {
		t.Errorf("a bad --listen: exit %d, want 2", code)
	}
}
