//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/ciconfig"
	"github.com/rosorin/rosorin/rig"
)

// The example CI files of deploy/ci (docs/ci.md).
var ciFiles = []string{"../../deploy/ci/github/rig-proofs.yml", "../../deploy/ci/gitlab/.gitlab-ci.yml"}

const repoRoot = "../.."

// checkWorkflow is the whole check of one CI file: every stopproof line exists with its flags in the real
// app, and the campaign job's matrix covers the shards 1/n..n/n once, each entry's robot with a rig file that
// parses, its name the runner's label, no two rigs on one device.
func checkWorkflow(w *ciconfig.Workflow) (commands int, err error) {
	for _, j := range w.Jobs {
		cs, err := j.Commands()
		if err != nil {
			return 0, err
		}
		for _, c := range cs {
			if c.Prog != "stopproof" {
				continue
			}
			if err := ciconfig.CheckArgs(newApp(), c.Args); err != nil {
				return 0, fmt.Errorf("%s: job %s: %q: %w", w.File, j.Name, c.Line, err)
			}
			commands++
		}
	}
	entries, ok := w.MatrixOf["campaign"]
	if !ok {
		return 0, fmt.Errorf("%s: no campaign job", w.File)
	}
	shardKey, robotKey := "shard", "robot"
	if w.Kind == "gitlab" {
		shardKey, robotKey = "SHARD", "ROBOT"
	}
	if _, err := ciconfig.CheckShards(entries, shardKey); err != nil {
		return 0, fmt.Errorf("%s: job campaign: %w", w.File, err)
	}
	var files []string
	var rigs []*rig.Rig
	for _, e := range entries {
		f := filepath.Join(repoRoot, "deploy", "ci", "rigs", e[robotKey]+".yaml")
		r, err := rig.Load(f)
		if err != nil {
			return 0, fmt.Errorf("%s: the shard %s's robot %q: %w", w.File, e[shardKey], e[robotKey], err)
		}
		if r.Name != e[robotKey] {
			return 0, fmt.Errorf("%s: rig %s names the robot %q, the matrix %q (its runner's label)", w.File, f, r.Name, e[robotKey])
		}
		files, rigs = append(files, f), append(rigs, r)
	}
	if err := rig.CheckSet(files, rigs); err != nil {
		return 0, fmt.Errorf("%s: %w", w.File, err)
	}
	for _, j := range w.Jobs {
		if j.Name != "campaign" {
			continue
		}
		cs, _ := j.Commands()
		found := false
		for _, c := range cs {
			if len(c.Args) > 0 && c.Args[0] == "campaign" && strings.Contains(strings.Join(c.Args, " "), "--shard "+j.Matrix[shardKey]) {
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("%s: job campaign (%v) runs no stopproof campaign --shard %s", w.File, j.Matrix, j.Matrix[shardKey])
		}
	}
	return commands, nil
}

func TestCIFiles(t *testing.T) {
	for _, f := range ciFiles {
		w, err := ciconfig.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := checkWorkflow(w)
		if err != nil {
			t.Fatal(err)
		}
		if n < 8 {
			t.Errorf("%s: %d stopproof lines checked; the file has more (doctor, prove, the negative control, report, campaign per shard, the merge's reports)", f, n)
		}
	}
}

// The negative controls: a flag that does not exist, a command that does not, a shard left out or run twice,
// a robot without a rig file: each must fail the check.
func TestCIFilesNegative(t *testing.T) {
	b, err := os.ReadFile(ciFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"unknown flag", "--spin 2s --hold 3s --evidence-dir evidence --json", "--spinn 2s --hold 3s --evidence-dir evidence --json", "no flag --spinn"},
		{"flag of another command", "stopproof doctor --rig deploy/ci/sim-rig.yaml", "stopproof doctor --shard 1/2 --rig deploy/ci/sim-rig.yaml", "stopproof doctor: no flag --shard"},
		{"unknown command", "stopproof report --md", "stopproof reprot --md", `no command "reprot"`},
		{"a shard left out", "{ robot: rosorin-02, shard: 2/2 }", "{ robot: rosorin-02, shard: 1/2 }", "twice"},
		{"n of 3", "{ robot: rosorin-02, shard: 2/2 }", "{ robot: rosorin-02, shard: 2/3 }", "mixes"},
		{"robot without a rig", "{ robot: rosorin-02, shard: 2/2 }", "{ robot: rosorin-03, shard: 2/2 }", "rosorin-03"},
		{"an unknown variable", `--shard "$SHARD"`, `--shard "$SHARDS"`, "$SHARDS: not set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := string(b)
			if !strings.Contains(s, c.old) {
				t.Fatalf("the workflow has no %q any more: update the negative control", c.old)
			}
			w, err := ciconfig.Parse("broken.yml", []byte(strings.Replace(s, c.old, c.new, 1)))
			if err == nil {
				_, err = checkWorkflow(w)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error with %q", err, c.want)
			}
		})
	}
}

// ciExec runs a job's stopproof and rosorin-base lines as the runner would, in dir (the repository's deploy/
// and proofs/ linked in), with the binaries of bins(t) first on $PATH; each line's exit status must be the one
// it expects.
func ciExec(t *testing.T, w *ciconfig.Workflow, job, dir string, env map[string]string) {
	t.Helper()
	ciExecPick(t, w, job, dir, env, nil)
}

// ciExecPick is ciExec on the lines pick takes, each with the exit status pick gives (nil: every line, as
// written).
func ciExecPick(t *testing.T, w *ciconfig.Workflow, job, dir string, env map[string]string, pick func(j ciconfig.Job, c ciconfig.Command) (bool, int)) (output string) {
	t.Helper()
	bin := bins(t)
	var ran int
	for _, j := range w.Jobs {
		if j.Name != job {
			continue
		}
		for k, v := range env {
			j.Env[k] = v
		}
		if v, ok := env["RIG@"+j.Matrix["robot"]]; ok { // this matrix entry's robot replaced by a sim rig
			j.Env["RIG"] = v
		}
		cs, err := j.Commands()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if pick != nil {
				var ok bool
				if ok, c.WantExit = pick(j, c); !ok {
					continue
				}
			}
			var args []string
			for _, a := range c.Args {
				if strings.ContainsAny(a, "*?") {
					m, _ := filepath.Glob(filepath.Join(dir, a))
					for _, p := range m {
						rel, _ := filepath.Rel(dir, p)
						args = append(args, rel)
					}
					continue
				}
				args = append(args, a)
			}
			start := time.Now()
			cmd := exec.Command(filepath.Join(bin, c.Prog), args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: exit %d in %.1f s: %s %s", job, code, time.Since(start).Seconds(), c.Prog, strings.Join(args, " "))
			if code != c.WantExit && !(c.WantExit == ciconfig.AnyVerdict && code < 2) {
				t.Fatalf("%s: %q: exit %d, want %d:\n%s", job, c.Line, code, c.WantExit, out)
			}
			ran++
			output += string(out)
		}
	}
	if ran == 0 {
		t.Fatalf("job %s ran no command", job)
	}
	return output
}

func ciDir(t *testing.T) string {
	dir := t.TempDir()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"deploy", "proofs"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The on-change job of the GitHub workflow, run end to end on the sim rig: the doctor, the proofs, the
// negative control (exit 1) and the report. About 30 s.
func TestCISimJob(t *testing.T) {
	if testing.Short() {
		t.Skip("the sim proofs of the on-change job take about 30 s")
	}
	w, err := ciconfig.Load(ciFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := ciDir(t)
	ciExec(t, w, "sim-proofs", dir, nil)
	for _, f := range []string{"doctor.json", "proof.json", "report.html", "junit.xml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the job left no %s: %v", f, err)
		}
	}
}

// The nightly jobs of the GitHub workflow run as a script against two sim rigs: the matrix's robots replaced by
// deploy/ci/rigs/sim-a.yaml and sim-b.yaml, the plan by deploy/ci/sim-plan.yaml (one run a shard). The
// shards run (rosorin-base doctor, which refuses a sim rig, left out), the merge job's reports merge them and
// start the history (PASS); then a night on worn robots (the same sim rigs with the sim fault stop-lag=150ms:
// every stop applied 150 ms late, within the requirement) makes the history FAIL (exit 1): the negative
// control. About 55 s.
func TestCINightlyOnSimRigs(t *testing.T) {
	if testing.Short() {
		t.Skip("two campaign shards on the simulator take about 40 s")
	}
	w, err := ciconfig.Load(ciFiles[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := ciDir(t)
	env := map[string]string{"PLAN": "deploy/ci/sim-plan.yaml",
		"RIG@rosorin-01": "deploy/ci/rigs/sim-a.yaml", "RIG@rosorin-02": "deploy/ci/rigs/sim-b.yaml"}
	ciExecPick(t, w, "campaign", dir, env, func(j ciconfig.Job, c ciconfig.Command) (bool, int) {
		return c.Prog == "stopproof", c.WantExit
	})
	// The artifacts' download: each shard's folder into shards/; the history so far: none.
	for _, d := range []string{"shards", "history", "site"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "campaign-*"))
	if len(shards) != 2 {
		t.Fatalf("shard folders %v, want 2", shards)
	}
	for _, s := range shards {
		if err := os.Rename(s, filepath.Join(dir, "shards", filepath.Base(s))); err != nil {
			t.Fatal(err)
		}
	}
	ciExec(t, w, "merge", dir, nil)
	for _, f := range []string{"site/index.html", "site/history.html", "history/" + ciconfig.RunnerEnv["STAMP"] + ".json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the merge job left no %s: %v", f, err)
		}
	}

	// The next night, on worn robots: the same two sim rigs whose boards apply every stop 150 ms late
	// (sim fault stop-lag, given by the rigs' sim.fault). The cells still pass their requirement; the merge
	// job's history must FAIL on the slower stops: the negative control.
	for _, r := range []string{"sim-a", "sim-b"} {
		b, err := os.ReadFile(filepath.Join(dir, "deploy/ci/rigs", r+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		worn := strings.Replace(string(b), "name: "+r, "name: worn-"+r, 1) + "  fault: stop-lag=150ms\n"
		if err := os.WriteFile(filepath.Join(dir, "worn-"+r+".yaml"), []byte(worn), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(filepath.Join(dir, "shards"), filepath.Join(dir, "shards-night-1")); err != nil {
		t.Fatal(err)
	}
	env["RIG@rosorin-01"], env["RIG@rosorin-02"] = "worn-sim-a.yaml", "worn-sim-b.yaml"
	ciExecPick(t, w, "campaign", dir, env, func(j ciconfig.Job, c ciconfig.Command) (bool, int) {
		return c.Prog == "stopproof", c.WantExit
	})
	os.MkdirAll(filepath.Join(dir, "shards"), 0o755)
	shards, _ = filepath.Glob(filepath.Join(dir, "campaign-*"))
	if len(shards) != 2 {
		t.Fatalf("the worn night's shard folders %v, want 2", shards)
	}
	for _, s := range shards {
		if err := os.Rename(s, filepath.Join(dir, "shards", filepath.Base(s))); err != nil {
			t.Fatal(err)
		}
	}
	night2 := map[string]string{"STAMP": "20261205T021700Z"}
	ciExecPick(t, w, "merge", dir, night2, func(j ciconfig.Job, c ciconfig.Command) (bool, int) {
		return slices.Contains(c.Args, "--campaign"), 0 // the worn night's cells pass their requirement
	})
	out := ciExecPick(t, w, "merge", dir, night2, func(j ciconfig.Job, c ciconfig.Command) (bool, int) {
		return slices.Contains(c.Args, "--history"), 1
	})
	if !strings.Contains(out, "grew past the previous campaigns' median") {
		t.Errorf("the history failed, but not on the slower stop:\n%s", out)
	}
}
