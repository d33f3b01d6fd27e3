package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/internal/ciconfig"
	"github.com/rosorin/rosorin/internal/pty"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// rosorin-base doctor against the simulated robot's ptys exits 0 and prints a JSON report that reads back; a
// board path that is not there exits 1; a bad flag exits 2 before anything is opened.
func TestDoctorCommand(t *testing.T) {
	bin := doctorBin(t)
	s, dir := simPTYs(t, 3)
	run := func(args ...string) (string, int) {
		out, _, code := runDoctor(t, bin, nil, args...)
		return out, code
	}
	out, code := run("--device", s.BoardPath(), "--lidar", s.LidarPath(), "--socket", "", "--unit", "",
		"--state-dir", dir, "--listen", "1500ms", "--json")
	r := readReport(t, out)
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

// As a user outside the device's group (uid 65534; root passes every permission check), the doctor fails the
// permission check: on a 0600 device with the udev rule's mode as the fix, on a 0660 device with usermod; as a
// member of the group it passes and listens.
func TestDoctorPermissionsAsOtherUser(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the doctor runs as uid 65534 via SysProcAttr.Credential")
	}
	bin := doctorBin(t)
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} { // the test's temporary folders are 0700
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "ttyACM0")
	p, err := pty.Open(link, board.Baud)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	as := func(groups ...uint32) doctor.Report {
		out, _, _ := runDoctor(t, bin, &syscall.Credential{Uid: 65534, Gid: 65534, Groups: groups},
			"--device", link, "--lidar", "", "--socket", "", "--unit", "", "--state-dir", dir, "--listen", "200ms", "--json")
		return readReport(t, out)
	}
	perm := func(r doctor.Report) *doctor.Check { return r.Find("board permissions") }
	if c := perm(as()); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Fix, `MODE="0660"`) {
		t.Errorf("as uid 65534 on a 0600 root device: %+v", c)
	}
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(real, 0, 4242); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(real, 0o660); err != nil {
		t.Fatal(err)
	}
	if c := perm(as()); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Fix, "usermod -aG 4242 nobody") {
		t.Errorf("as uid 65534 outside the device's group 4242: %+v", c)
	}
	// The negative control: the user is in the group.
	r := as(4242)
	if c := perm(r); c == nil || c.Status != doctor.Pass {
		t.Errorf("as a member of the device's group: %+v", c)
	}
	if c := r.Find("board talking"); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Measured, "silent") {
		t.Errorf("opened as a member, the silent pty: %+v", c)
	}
}

// With the service running on the sim, the ports are the driver's (PASS), the doctor reads the board and the
// LiDAR from the driver's counters and passes; then each fault FAILs with its fix: a latched e-stop (its
// reason, the reset), the LiDAR unplugged (its device gone, the scans stale), the board hung (the link silent).
func TestDoctorWithService(t *testing.T) {
	bin := doctorBin(t)
	st := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 4}, stacktest.Options{Bin: bin})
	doctorJSON := func() (doctor.Report, int) {
		out, _, code := runDoctor(t, bin, nil, "--device", st.Service.Device, "--lidar", st.Service.Lidar,
			"--socket", st.Service.Socket, "--unit", "", "--state-dir", st.Service.StateDir, "--json")
		return readReport(t, out), code
	}
	want := func(r doctor.Report, name string, s ...doctor.Status) {
		t.Helper()
		c := r.Find(name)
		if c == nil || !slices.Contains(s, c.Status) {
			t.Errorf("%s: %+v, want %v", name, c, s)
		}
	}
	// The rates are the sim's; the driver's measure of them can dip below the doctor's PASS band on a loaded
	// 2-core machine (a WARN, rightly): the test asks that the doctor read the driver's counters, not FAIL.
	okLink := []doctor.Status{doctor.Pass, doctor.Warn}
	r, code := doctorJSON()
	want(r, "board port free", doctor.Pass)
	want(r, "lidar port free", doctor.Pass)
	want(r, "board talking", doctor.Skip)
	want(r, "driver socket", doctor.Pass)
	want(r, "supervisor", doctor.Pass)
	want(r, "driver link", okLink...)
	want(r, "driver scans", okLink...)
	want(r, "e-stop latch", doctor.Pass)
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(2*time.Second))
	defer cancel()
	if _, err := st.Service.Client.EStop(ctx, "doctor test"); err != nil {
		t.Fatal(err)
	}
	r, code = doctorJSON()
	want(r, "e-stop latch", doctor.Fail)
	if c := r.Find("e-stop latch"); c == nil || !strings.Contains(c.Measured, "doctor test") || !strings.Contains(c.Fix, "rosorin-base reset") {
		t.Errorf("latch: %+v", c)
	}
	if code != 1 {
		t.Errorf("a latched e-stop: exit %d, want 1", code)
	}
	if _, err := st.Service.Client.Reset(ctx); err != nil {
		t.Fatal(err)
	}

	// The LiDAR unplugged: its device is gone and the driver's scans go stale.
	if err := st.Sim.LidarUnplug(testkit.Bound(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // past the scan gate's 0.5 s
	r, code = doctorJSON()
	want(r, "e-stop latch", doctor.Pass)
	if c := r.Find("lidar device"); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Fix, "cable") {
		t.Errorf("lidar unplugged, its device: %+v", c)
	}
	if c := r.Find("driver scans"); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Fix, "LiDAR") {
		t.Errorf("lidar unplugged, the driver's scans: %+v", c)
	}
	if code != 1 {
		t.Errorf("lidar unplugged: exit %d, want 1", code)
	}

	// The board hangs (its firmware stops sending): the driver's link is silent.
	if err := st.Sim.Hang(true); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = st.Sim.Hang(false) }()
	time.Sleep(time.Second)
	r, code = doctorJSON()
	if c := r.Find("driver link"); c == nil || c.Status != doctor.Fail || !strings.Contains(c.Fix, "power switch") {
		t.Errorf("board hung, the driver's link: %+v", c)
	}
	if code != 1 {
		t.Errorf("board hung: exit %d, want 1", code)
	}
}

// --rig: the rig's board, LiDAR, socket and unit are the doctor's, a flag beside it wins; a sim rig and a bad
// rig file exit 2 with what to do.
func TestDoctorRig(t *testing.T) {
	bin := doctorBin(t)
	s, dir := simPTYs(t, 4)
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	robot := write("robot.yaml", "version: 1\nname: sim-ptys\nsetup: stand\nboard: "+s.BoardPath()+"\nlidar: "+s.LidarPath()+
		"\nservice: {start: 'true', stop: 'true'}\n")
	run := func(args ...string) (string, int) {
		out, errOut, code := runDoctor(t, bin, nil, args...)
		return out + errOut, code
	}
	out, _, code := runDoctor(t, bin, nil, "--rig", robot, "--socket", "", "--state-dir", dir, "--listen", "1500ms", "--json")
	r := readReport(t, out)
	if code != 0 || r.Find("board talking").Status != doctor.Pass || r.Find("lidar talking").Status != doctor.Pass {
		t.Errorf("the rig's ptys: exit %d:\n%s", code, out)
	}
	if out, code = run("--rig", robot, "--socket", "", "--device", filepath.Join(dir, "nothing"), "--state-dir", dir, "--listen", "500ms"); code != 1 || !strings.Contains(out, "nothing") {
		t.Errorf("--device beside --rig does not override it: exit %d:\n%s", code, out)
	}
	sim := write("sim.yaml", "version: 1\nname: sim\nsetup: stand\nsim: {}\n")
	if out, code = run("--rig", sim); code != 2 || !strings.Contains(out, "stopproof doctor --rig") {
		t.Errorf("a sim rig: exit %d:\n%s", code, out)
	}
	bad := write("bad.yaml", "version: 1\nname: x\nsetup: stand\nbord: /dev/ttyACM0\n")
	if out, code = run("--rig", bad); code != 2 || !strings.Contains(out, "field bord not found") {
		t.Errorf("an unknown key: exit %d:\n%s", code, out)
	}
}

// The example CI files' rosorin-base lines exist with their flags in this app (cmd/stopproof's TestCIFiles
// checks the stopproof lines and the shards).
func TestCIFilesRosorinBase(t *testing.T) {
	n := 0
	for _, f := range []string{"../../deploy/ci/github/rig-proofs.yml", "../../deploy/ci/gitlab/.gitlab-ci.yml"} {
		w, err := ciconfig.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range w.Jobs {
			cs, err := j.Commands()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if c.Prog != "rosorin-base" {
					continue
				}
				if err := ciconfig.CheckArgs(newApp(), c.Args); err != nil {
					t.Errorf("%s: job %s: %q: %v", f, j.Name, c.Line, err)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Error("no rosorin-base line checked: the nightly jobs run rosorin-base doctor --rig")
	}
	if err := ciconfig.CheckArgs(newApp(), []string{"doctor", "--rigg", "x"}); err == nil {
		t.Error("a flag rosorin-base doctor does not have passed the check")
	}
}

// doctorBin is the rosorin-base binary the doctor tests run.
func doctorBin(t *testing.T) string {
	t.Helper()
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// simPTYs starts a simulated robot in a temporary folder for the test: its board and LiDAR behind ptys.
func simPTYs(t *testing.T, seed int64) (s *sim.Sim, dir string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dir = t.TempDir()
	s, err := sim.Start(ctx, sim.Config{Dir: dir, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// runDoctor runs `rosorin-base doctor args...` (as cred's user when cred is not nil) and returns its standard
// output, its standard error and its exit code.
func runDoctor(t *testing.T, bin string, cred *syscall.Credential, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(bin, append([]string{"doctor"}, args...)...)
	if cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var errb strings.Builder
	c.Stderr = &errb
	out, err := c.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), errb.String(), code
}

// readReport reads the doctor's --json output.
func readReport(t *testing.T, out string) doctor.Report {
	t.Helper()
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return r
}
