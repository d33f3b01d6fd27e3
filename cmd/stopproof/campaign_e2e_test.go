//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/campaign"
)

// campaignRunFlags keep the e2e campaigns short: 1.5 s of spin-up (the judge's 1 s spin window + 0.5 s) and
// 3 s of hold (the 2 s quiet + 1 s), about 8 s a run.
var campaignRunFlags = []string{"--spin", "1.5s", "--hold", "3s"}

// tinyPlan is one stand cell (the e-stop at 0.2 m/s), n runs.
func tinyPlan(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	plan := `version: 1
name: tiny
proof: stand
n: ` + string(rune('0'+n)) + `
seed: 3
conditions: {setup: stand, surface: wheels in the air, load: none, gradient: level, operator: go test}
cells:
  - {path: estop, speed: 0.2, direction: forward, max_still_s: 1.0}
`
	if err := os.WriteFile(p, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkFolder checks that every slot of the folder has exactly one result, with the outcome PASS unless
// listed in fails (any outcome when fails is nil), its evidence log and MCAP on disk, and returns the cut
// records.
func checkFolder(t *testing.T, dir string, fails map[int]bool) []campaign.Run {
	t.Helper()
	f, err := campaign.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := f.Runs()
	if err != nil {
		t.Fatal(err)
	}
	results := map[int]int{}
	var cut []campaign.Run
	for _, r := range runs {
		if r.Outcome == campaign.Cut {
			cut = append(cut, r)
			continue
		}
		results[r.Seq]++
		want := campaign.Pass
		if fails[r.Seq] {
			want = campaign.Fail
		}
		if fails != nil && r.Outcome != want {
			t.Errorf("run %d (%s): %s (%s), want %s", r.Seq, r.Cell, r.Outcome, r.Reason, want)
		}
		if r.Outcome == campaign.Pass && (!r.NoRestart || !(r.StillS > 0 && r.StillS <= 1.0)) {
			t.Errorf("run %d: still %v, no restart %v", r.Seq, r.StillS, r.NoRestart)
		}
		for _, p := range []string{r.Evidence, r.MCAP} {
			if fi, err := os.Stat(filepath.Join(dir, p)); p == "" || err != nil || fi.Size() == 0 {
				t.Errorf("run %d: evidence %q: %v", r.Seq, p, err)
			}
		}
		c := r.Conditions
		if c.Host == "" || c.Version == "" || !strings.HasPrefix(c.ConfigSHA256, "reported:") || c.Thresholds["vibration_threshold_rad_s"] != 0.0035 ||
			c.ResolutionS != 0.05 || !strings.Contains(c.Target, "simulated") {
			t.Errorf("run %d: conditions %+v", r.Seq, c)
		}
	}
	for _, s := range f.Slots() {
		if results[s.Seq] != 1 {
			t.Errorf("slot %d has %d results", s.Seq, results[s.Seq])
		}
	}
	if len(results) != len(f.Slots()) {
		t.Errorf("%d results for %d slots", len(results), len(f.Slots()))
	}
	return cut
}

// TestCampaignSimPasses runs the CI campaign (R = C = 0.8: 8 runs each of the e-stop and the deadman at
// 0.2 m/s) on two simulated robots: every run passes, each slot once, with its evidence and conditions; then
// its verification report, which must make both claims. With ROSORIN_REPORTS_DIR (an absolute path; CI sets
// it) the campaign folder (campaigns/ci) and the report (ci-campaign.html, .md, -junit.xml) are left there.
func TestCampaignSimPasses(t *testing.T) {
	testkit.SkipShort(t, "a 16-run campaign on two simulated robots (about 80 s)")
	// All 16 runs must pass, each judged from IMU samples timed on receipt: beside CI's other lanes one run
	// (2026-12-03) lost 0.14 s of its IMU stream to a stall 2.3 s after the trigger, which no data being
	// evidence of stillness, failed it. CI runs it in its quiet step.
	testkit.NeedsQuietMachine(t)
	dir, reports := filepath.Join(t.TempDir(), "camp"), t.TempDir()
	if r := os.Getenv("ROSORIN_REPORTS_DIR"); r != "" {
		reports, dir = r, filepath.Join(r, "campaigns", "ci")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	out, code := stopproof(t, 4*time.Minute, append([]string{"campaign", "--sim", "--parallel", "2", "--dir", dir,
		filepath.Join("..", "..", "proofs", "campaign", "testdata", "stand-ci-80.yaml")}, campaignRunFlags...)...)
	t.Logf("16 runs on 2 robots in %v", time.Since(start).Round(time.Second))
	if code != 0 || !strings.Contains(out, "CAMPAIGN PASSED: all 16 runs passed") {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"[16/16]", "estop fwd 0.2", "deadman fwd 0.2", "failures so far 0",
		"R >= 0.8 at 80 % confidence: 8 of 8"} { // the claim, from the report's summary
		if !strings.Contains(out, want) {
			t.Errorf("output does not say %q", want)
		}
	}
	if cut := checkFolder(t, dir, map[int]bool{}); len(cut) != 0 {
		t.Errorf("cut runs %+v", cut)
	}
	runs, _ := campaign.LoadRuns(dir)
	workers := map[int]bool{}
	for _, r := range runs {
		workers[r.Worker] = true
	}
	if len(workers) != 2 {
		t.Errorf("runs by robots %v, want both", workers)
	}
	out, code = stopproof(t, time.Minute, "report", "--campaign", "--html", filepath.Join(reports, "ci-campaign.html"),
		"--md", filepath.Join(reports, "ci-campaign.md"), "--junit", filepath.Join(reports, "ci-campaign-junit.xml"), dir)
	if code != 0 || !strings.Contains(out, "RESULT: PASS (2 of 2 cells pass)") {
		t.Errorf("report --campaign: exit %d, want 0 and RESULT: PASS (2 of 2 cells pass)", code)
	}
	for _, f := range []string{"ci-campaign.html", "ci-campaign.md", "ci-campaign-junit.xml"} {
		if fi, err := os.Stat(filepath.Join(reports, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s: %v", f, err)
		}
	}
}

// TestCampaignSimFlakyStopFails is the negative control: with flaky-stop=2 the simulated board ignores the
// 2nd and 4th stop (one run each on one robot), and the campaign fails and names exactly runs 2 and 4.
func TestCampaignSimFlakyStopFails(t *testing.T) {
	testkit.SkipShort(t, "a 4-run campaign on a simulated robot with a flaky stop (about 40 s)")
	dir := filepath.Join(t.TempDir(), "camp")
	out, code := stopproof(t, 3*time.Minute, append([]string{"campaign", "--sim", "--sim-fault", "flaky-stop=2", "--dir", dir,
		tinyPlan(t, 4)}, campaignRunFlags...)...)
	if code != exitFail || !strings.Contains(out, "CAMPAIGN FAILED: 2 run(s) failed") {
		t.Fatalf("exit %d, want %d and CAMPAIGN FAILED", code, exitFail)
	}
	for _, want := range []string{"FAIL: run 2 (estop fwd 0.2 #2", "FAIL: run 4 (estop fwd 0.2 #4", "NEVER settled", "[2 4]",
		"cannot be made: 2 of 4 runs did not succeed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not say %q", want)
		}
	}
	checkFolder(t, dir, map[int]bool{2: true, 4: true})
}

// TestCampaignSIGKILLResume kills stopproof (SIGKILL: no teardown, no last word) while its second run is in
// progress; campaign resume records that run CUT, runs its slot again, and ends with every slot done
// exactly once.
func TestCampaignSIGKILLResume(t *testing.T) {
	testkit.SkipShort(t, "a 3-run campaign killed and resumed on simulated robots (about 50 s)")
	dir := filepath.Join(t.TempDir(), "camp")
	plan := tinyPlan(t, 3)
	cmd := command(t, "", append([]string{"campaign", "--sim", "--dir", dir, plan}, campaignRunFlags...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, campaign.RunsDir, "0002.started")
	deadline := time.Now().Add(testkit.Bound(90 * time.Second))
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run 2 never started:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // into the run's spin-up
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("stopproof ended with %v, not SIGKILL:\n%s", err, out.String())
	}
	t.Logf("killed during run 2:\n%s", out.String())
	if sd := simDir(t, out.String()); sd != "" {
		waitGone(t, sd) // the killed proof's driver got SIGINT (parent death) and goes down by itself
	}
	rout, code := stopproof(t, 3*time.Minute, append([]string{"campaign", "resume", "--sim", dir}, campaignRunFlags...)...)
	// What is checked here is the bookkeeping, not the stops: a run may fail on a starved machine (a stop
	// 2.5 s late was seen at load 15 on 2 cores); the campaign must still have ended with every slot run.
	if code == exitAbort || !strings.Contains(rout, "[3/3]") {
		t.Fatalf("resume: exit %d, the campaign did not end", code)
	}
	if !regexp.MustCompile(`run 2 \(estop fwd 0.2 #2\) began in an earlier session and never ended: recorded CUT`).MatchString(rout) {
		t.Error("resume does not say run 2 was cut")
	}
	if strings.Contains(rout, "run 1, estop") {
		t.Error("resume ran run 1 again")
	}
	cut := checkFolder(t, dir, nil)
	if len(cut) != 1 || cut[0].Seq != 2 || !strings.Contains(cut[0].Reason, "never wrote its end") {
		t.Errorf("cut records %+v, want one of run 2", cut)
	}
}

// waitGone waits (up to 30 s) until no process runs from dir.
func waitGone(t *testing.T, dir string) {
	t.Helper()
	if err := testkit.Eventually(testkit.Bound(30*time.Second), func() error {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(dir)) {
				return fmt.Errorf("%s still runs from %s", filepath.Dir(p), dir)
			}
		}
		return nil
	}); err != nil {
		t.Errorf("after the kill: %v", err)
	}
}

// TestCampaignCtrlCFinishesTheRun: Ctrl-C during a run lets it finish and be recorded, takes no further
// run, and exits 2 telling how to resume.
func TestCampaignCtrlCFinishesTheRun(t *testing.T) {
	testkit.SkipShort(t, "a campaign interrupted on a simulated robot (about 25 s)")
	dir := filepath.Join(t.TempDir(), "camp")
	cmd := command(t, "", append([]string{"campaign", "--sim", "--dir", dir, tinyPlan(t, 3)}, campaignRunFlags...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, campaign.RunsDir, "0001.started")
	for deadline := time.Now().Add(testkit.Bound(90 * time.Second)); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run 1 never started:\n%s", out.String())
		}
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(testkit.Bound(60 * time.Second)):
		cmd.Process.Kill()
		err = <-done
		t.Errorf("still running 60 s after Ctrl-C")
	}
	t.Logf("%s", out.String())
	// Exit 2 (unfinished) when run 1 passed; 1 when it failed (a starved machine can fail a stop): either
	// way the campaign is not over and says how to go on.
	if ee, ok := err.(*exec.ExitError); !ok || (ee.ExitCode() != exitAbort && ee.ExitCode() != exitFail) {
		t.Errorf("exit %v, want %d (or %d if run 1 failed)", err, exitAbort, exitFail)
	}
	if !strings.Contains(out.String(), "stopproof campaign resume --sim "+dir) {
		t.Error("the output does not say how to resume")
	}
	f, err := campaign.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Done(1) || f.Done(2) || len(f.Pending()) != 2 {
		t.Errorf("run 1 done %v, run 2 done %v, pending %d: want run 1 finished and recorded, nothing more", f.Done(1), f.Done(2), len(f.Pending()))
	}
	if ms, _ := filepath.Glob(filepath.Join(dir, campaign.RunsDir, "*.started")); len(ms) != 0 {
		t.Errorf("markers left: %v", ms)
	}
}

// TestCampaignShards runs the two halves of a 4-run campaign side by side, each into its own folder: shard
// 1/2 runs seq 1 and 3, shard 2/2 seq 2 and 4, together the whole schedule once.
func TestCampaignShards(t *testing.T) {
	testkit.SkipShort(t, "two shards of a 4-run campaign on two simulated robots (about 25 s)")
	plan := tinyPlan(t, 4)
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "1"), filepath.Join(base, "2")}
	want := [][]int{{1, 3}, {2, 4}}
	// Two shards at once, as a CI job matrix runs them: parallel subtests (each may fail on its own).
	t.Run("shards", func(t *testing.T) {
		for i := range 2 {
			t.Run(fmt.Sprintf("%d of 2", i+1), func(t *testing.T) {
				t.Parallel()
				out, code := stopproof(t, 3*time.Minute, append([]string{"campaign", "--sim", "--shard", fmt.Sprintf("%d/2", i+1),
					"--dir", dirs[i], plan}, campaignRunFlags...)...)
				// A shard's exit is its runs': a shard alone never holds a cell's n, so its claim is left to the merge.
				if code != 0 || !strings.Contains(out, "[2/2]") || !strings.Contains(out, fmt.Sprintf("CAMPAIGN SHARD PASSED: all 2 runs of shard %d/2 passed", i+1)) {
					t.Errorf("shard %d/2: exit %d\n%s", i+1, code, out)
				}
				runs, err := campaign.LoadRuns(dirs[i])
				if err != nil {
					t.Fatal(err)
				}
				var seqs []int
				for _, r := range runs {
					seqs = append(seqs, r.Seq)
					if r.Shard != fmt.Sprintf("%d/2", i+1) {
						t.Errorf("run %d: shard %q", r.Seq, r.Shard)
					}
				}
				if fmt.Sprint(seqs) != fmt.Sprint(want[i]) {
					t.Errorf("shard %d/2 ran %v, want %v", i+1, seqs, want[i])
				}
			})
		}
	})
	// The shards merged: one report, as if one campaign had run all four runs.
	out, code := stopproof(t, time.Minute, "report", "--campaign", dirs[0], dirs[1])
	if code != 0 || !strings.Contains(out, "R >= ") || !strings.Contains(out, "4/4") || !strings.Contains(out, "RESULT: PASS") {
		t.Errorf("merged report: exit %d\n%s", code, out)
	}
	// One shard alone cannot make the claim.
	if out, code := stopproof(t, time.Minute, "report", "--campaign", dirs[0]); code != exitFail || !strings.Contains(out, "cannot be made") {
		t.Errorf("one shard's report: exit %d, want %d and no claim\n%s", code, exitFail, out)
	}
}
