//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/internal/cliargs"
	"github.com/rosorin/rosorin/proofs/campaign"
)

func writeRig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rig.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const testRobotRig = `version: 1
name: bench-1
setup: stand
board: /dev/serial/by-id/usb-board-if00
socket: /run/bench/base.sock
service: {unit: rosorin-base, start: systemctl start rosorin-base, stop: systemctl stop rosorin-base}
`

// --rig sets the target flags it names on the real target flags; a flag beside it wins; a floor rig is
// refused by the stand's commands; a bad rig file exits 2 naming the key.
func TestRigSetsFlags(t *testing.T) {
	var got map[string]string
	run := func(args ...string) (map[string]string, int, string) {
		got = nil
		app := &cli.App{Name: "stopproof", ExitErrHandler: func(*cli.Context, error) {},
			Commands: withRig([]*cli.Command{{Name: "prove", Flags: targetFlags(), Action: func(c *cli.Context) error {
				got = map[string]string{"socket": c.String("socket"), "device": c.String("device"),
					"service-stop": c.String("service-stop"), "sim": map[bool]string{true: "true", false: "false"}[c.Bool("sim")]}
				return nil
			}}})}
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(cliargs.Reorder(append([]string{"stopproof", "prove"}, args...), app))
		code := 0
		if err != nil {
			code = exitAbort
			if ec, ok := err.(cli.ExitCoder); ok {
				code = ec.ExitCode()
			}
			out.WriteString(err.Error())
		}
		return got, code, out.String()
	}
	robot := writeRig(t, testRobotRig)
	g, code, out := run("--rig", robot, "estop")
	if code != 0 || g["device"] != "/dev/serial/by-id/usb-board-if00" || g["socket"] != "/run/bench/base.sock" ||
		g["service-stop"] != "systemctl stop rosorin-base" || g["sim"] != "false" {
		t.Errorf("the rig's flags: exit %d %v %s", code, g, out)
	}
	g, code, _ = run("--rig", robot, "--device", "/dev/ttyACM9", "estop")
	if code != 0 || g["device"] != "/dev/ttyACM9" || g["socket"] != "/run/bench/base.sock" {
		t.Errorf("--device beside --rig: %v", g)
	}
	sim := writeRig(t, "version: 1\nname: s\nsetup: stand\nsim: {seed: 4}\n")
	if g, code, _ = run("--rig", sim, "estop"); code != 0 || g["sim"] != "true" {
		t.Errorf("a sim rig: exit %d %v", code, g)
	}
	floor := writeRig(t, strings.Replace(testRobotRig, "setup: stand", "setup: floor", 1))
	if g, code, out = run("--rig", floor, "estop"); code != exitAbort || g != nil || !strings.Contains(out, "floor rig") {
		t.Errorf("a floor rig on prove: exit %d %v %s", code, g, out)
	}
	bad := writeRig(t, testRobotRig+"sockets: /x\n")
	if g, code, out = run("--rig", bad, "estop"); code != exitAbort || g != nil || !strings.Contains(out, "field sockets not found") {
		t.Errorf("an unknown key: exit %d %v %s", code, g, out)
	}
	// Every command with target flags has --rig, and its help says flags beside it win.
	for _, c := range newApp().Commands {
		if hasFlag(c, "socket") && !hasFlag(c, "rig") {
			t.Errorf("stopproof %s has target flags and no --rig", c.Name)
		}
	}
	if !strings.Contains(rigUsage, "flags given beside it override it") {
		t.Error("--rig's help does not say that flags beside it override it")
	}
}

// A campaign on a sim rig whose doctor fails (the LiDAR silent from the start: no scans) refuses to start:
// exit 2, the failing check printed, nothing run, and the doctor's report in the folder. On a healthy sim rig
// the campaign runs, and its runs name the rig and the doctor's report in their conditions.
func TestCampaignRigDoctorGate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the simulated robot twice and runs one campaign run (about 15 s)")
	}
	rigFile, _ := filepath.Abs("../../deploy/ci/sim-rig.yaml")
	plan, _ := filepath.Abs("../../deploy/ci/sim-plan.yaml")
	dir := filepath.Join(t.TempDir(), "camp")
	out, code := stopproof(t, time.Minute, "campaign", "--rig", rigFile, "--sim-fault", "lidar-silent@start", "--dir", dir, plan)
	if code != exitAbort || !strings.Contains(out, "driver scans") || !strings.Contains(out, "nothing moved") {
		t.Fatalf("a failing doctor: exit %d:\n%s", code, out)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if len(runs) != 0 {
		t.Errorf("runs on record after the doctor refused: %v", runs)
	}
	reps, _ := filepath.Glob(filepath.Join(dir, campaign.DoctorDir, "*.json"))
	if len(reps) != 1 {
		t.Fatalf("doctor reports %v, want one", reps)
	}
	var r doctor.Report
	if b, err := os.ReadFile(reps[0]); err != nil || json.Unmarshal(b, &r) != nil || r.Worst() != doctor.Fail {
		t.Fatalf("the recorded report: %v %+v", err, r)
	}

	dir = filepath.Join(t.TempDir(), "camp")
	out, code = stopproof(t, 2*time.Minute, "campaign", "--rig", rigFile, "--shard", "1/2", "--spin", "2s", "--hold", "3s", "--dir", dir, plan)
	if code != 0 {
		t.Fatalf("a healthy sim rig: exit %d:\n%s", code, out)
	}
	rs, err := campaign.LoadRuns(dir)
	if err != nil || len(rs) != 1 {
		t.Fatalf("runs %v %v", rs, err)
	}
	c := rs[0].Conditions
	if c.Rig != "sim-a" || !strings.HasPrefix(c.Doctor, campaign.DoctorDir+"/") || strings.Contains(c.Doctor, "FAIL") {
		t.Errorf("the run's conditions: rig %q doctor %q", c.Rig, c.Doctor)
	}
	if _, err := os.Stat(filepath.Join(dir, strings.Fields(c.Doctor)[0])); err != nil {
		t.Errorf("the doctor report the run names: %v", err)
	}
}
