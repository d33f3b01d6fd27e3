package campaign

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/target/targettest"
	"github.com/rosorin/rosorin/sim"
)

// checkRunFolder: a run that passed on the fake has its record filled in (start, end, session, conditions)
// and its files in its folder, named relative to the campaign folder.
func checkRunFolder(t *testing.T, camp, dir string, run Run, mcap bool) {
	t.Helper()
	if run.Outcome != Pass {
		t.Errorf("outcome %s (%s), want PASS", run.Outcome, run.Reason)
	}
	if run.Start.IsZero() || run.End.Before(run.Start) || run.Conditions.SessionS < 0 || run.Conditions.Target == "" ||
		run.Conditions.Host != "host" || run.Conditions.Version != "v-test" || run.Conditions.ResolutionS <= 0 ||
		len(run.Conditions.Thresholds) == 0 || run.Conditions.Rig != "rig" || run.Conditions.Doctor != "doctor" {
		t.Errorf("record %+v", run)
	}
	for _, p := range []string{filepath.Join(dir, "proof.txt"), filepath.Join(dir, ProofJSON), filepath.Join(camp, run.Evidence)} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if filepath.Dir(run.Evidence) != filepath.Join("runs", "0001") {
		t.Errorf("evidence %q, want it in runs/0001", run.Evidence)
	}
	if mcap {
		if fi, err := os.Stat(filepath.Join(camp, run.MCAP)); err != nil || fi.Size() == 0 || filepath.Dir(run.MCAP) != filepath.Join("runs", "0001") {
			t.Errorf("recording %q: %v", run.MCAP, err)
		}
	}
}

// runOnFake runs an e-stop at 0.2 m/s forward once on r, as a campaign's first run, and checks the run's
// record and folder (checkRunFolder). It runs inside the caller's synctest bubble.
func runOnFake(t *testing.T, r Robot, mcap bool) {
	t.Helper()
	camp := t.TempDir()
	dir := filepath.Join(camp, "runs", "0001")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run, err := r.Run(ctx, Slot{Seq: 1, Cell: "estop-fwd-0.2", Rep: 1}, Cell{Path: "estop", Direction: "forward", Speed: 0.2, MaxStillS: 1}, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkRunFolder(t, camp, dir, run, mcap)
}

// TestStandRobotRun: one stand run on targettest's fake, in a synctest bubble (virtual time).
func TestStandRobotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := stand.DefaultOptions()
		o.Clock = clock.Real{}
		r := &StandRobot{Target: targettest.NewFake(o.Clock, targettest.Options{Seed: 5}), Options: o,
			Version: "v-test", Host: "host", Rig: "rig", Doctor: "doctor"}
		runOnFake(t, r, true)
		if r.Session == nil {
			t.Error("the run did not start the session")
		}
	})
}

// TestFloorRobotRun: one floor run on targettest's fake in its room, in a synctest bubble.
func TestFloorRobotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := floor.DefaultOptions()
		o.Clock = clock.Real{}
		r := &FloorRobot{Target: targettest.NewFake(o.Clock, targettest.Options{Seed: 5, Floor: sim.DefaultRoom()}), Options: o,
			Version: "v-test", Host: "host", Rig: "rig", Doctor: "doctor"}
		runOnFake(t, r, false)
		if r.Session == nil {
			t.Error("the run did not start the session")
		}
	})
}

// TestOpenRunFilesFails: a run folder that cannot be made, or a proof.txt that cannot be created (a folder in
// its way), is an error with neither file left open; in the second the evidence log was made and is named.
func TestOpenRunFilesFails(t *testing.T) {
	camp := t.TempDir()
	if err := os.WriteFile(filepath.Join(camp, "runs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var run Run
	if ev, out, _, err := openRunFiles(filepath.Join(camp, "runs", "0001"), "test", clock.Real{}, &run); err == nil || ev != nil || out != nil {
		t.Errorf("under a file: %v, %v, %v", ev, out, err)
	}
	dir := filepath.Join(t.TempDir(), "runs", "0001")
	if err := os.MkdirAll(filepath.Join(dir, "proof.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if ev, out, _, err := openRunFiles(dir, "test", clock.Real{}, &run); err == nil || ev != nil || out != nil {
		t.Errorf("proof.txt in the way: %v, %v, %v", ev, out, err)
	}
	if filepath.Dir(run.Evidence) != filepath.Join("runs", "0001") {
		t.Errorf("evidence %q, want it in runs/0001", run.Evidence)
	}
}
