//go:build linux

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// laneRunsEnv names the folder where .ci/run's proof lanes keep the whole proofs they ran, as a user runs
// them, before cmd/stopproof's tests (its reports/). With it set, the tests that would otherwise make a
// smaller run of the same proof (two stand paths, the negative control on two, the floor's e-stop and kill)
// check the lane's run of every path instead: the same assertions on a superset, and the lane's minutes not
// spent twice. Without it (a developer's go test) they make their own run.
const laneRunsEnv = "ROSORIN_CI_PROOF_RUNS"

// provedRun is one whole proof's run: its output, exit status, --json record and evidence folder.
type provedRun struct {
	out      string
	code     int
	json, ev string
	lane     bool // the lane's run (laneRunsEnv), not the test's own
}

// proofRun returns the lane's run named name when laneRunsEnv is set (its files: NAME.txt, the output;
// NAME.exit, the exit status; NAME-proof.json; evidence/NAME), which must then exist; or makes the test's own
// with stopproof args plus --evidence-dir and --json in the test's folders.
func proofRun(t *testing.T, name string, timeout time.Duration, args ...string) provedRun {
	t.Helper()
	if dir := os.Getenv(laneRunsEnv); dir != "" {
		r := provedRun{json: filepath.Join(dir, name+"-proof.json"), ev: filepath.Join(dir, "evidence", name), lane: true}
		out, err := os.ReadFile(filepath.Join(dir, name+".txt"))
		if err != nil {
			t.Fatalf("%s is set, but the lane's run %s is missing: %v", laneRunsEnv, name, err)
		}
		code, err := os.ReadFile(filepath.Join(dir, name+".exit"))
		if err != nil {
			t.Fatalf("%s is set, but the lane's run %s has no exit status: %v", laneRunsEnv, name, err)
		}
		if r.code, err = strconv.Atoi(strings.TrimSpace(string(code))); err != nil {
			t.Fatalf("the lane's run %s: exit status %q: %v", name, code, err)
		}
		r.out = string(out)
		t.Logf("checking the lane's run %s (%s, exit %d)", name, filepath.Join(dir, name+".txt"), r.code)
		return r
	}
	ev := t.TempDir()
	r := provedRun{json: filepath.Join(ev, name+"-proof.json"), ev: ev}
	r.out, r.code = stopproof(t, timeout, append(args, "--evidence-dir", ev, "--json", r.json)...)
	return r
}

var resultRe = regexp.MustCompile(`(?m)^RESULT: (\d+)/(\d+) passed`)

// result is the run's RESULT line: lines passed and planned.
func (r provedRun) result(t *testing.T) (passed, planned int) {
	t.Helper()
	m := resultRe.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no RESULT line in the output")
	}
	passed, _ = strconv.Atoi(m[1])
	planned, _ = strconv.Atoi(m[2])
	return passed, planned
}

// wantPlanned fails the test unless the run planned n lines; the lane's run, of every path, at least n.
func (r provedRun) wantPlanned(t *testing.T, n int) int {
	t.Helper()
	_, planned := r.result(t)
	if planned != n && !(r.lane && planned > n) {
		t.Fatalf("%d lines planned, want %d", planned, n)
	}
	return planned
}
