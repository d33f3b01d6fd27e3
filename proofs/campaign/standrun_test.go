package campaign

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/stand"
)

// TestJudgeMapsTheProof: the run's outcome from the proof's report of one step.
func TestJudgeMapsTheProof(t *testing.T) {
	p := vibration.DefaultParams()
	stop := func(o vibration.Outcome, still, worst, quiet float64) stand.Result {
		v := vibration.Verdict{Kind: vibration.KindStop, Outcome: o, StillFrom: still, WorstAfter: worst, QuietFor: quiet, Params: p}
		if o != vibration.Pass {
			v.Reason = "NEVER settled in 3.0 s"
		}
		return stand.Result{Name: "estop request, fwd 0.2", Outcome: o, Reason: v.Reason, StopS: still, Verdict: v}
	}
	release := func(o vibration.Outcome) stand.Result {
		return stand.Result{Name: "LiDAR back", Release: true, Outcome: o, Reason: "not released",
			Verdict: vibration.Verdict{Kind: vibration.KindRelease, Outcome: o, Params: p}}
	}
	cell := Cell{Path: "estop", Speed: 0.2, MaxStillS: 1.0}
	nan := math.NaN()
	for _, tc := range []struct {
		name      string
		rep       stand.Report
		outcome   string
		noRestart bool
		reason    string
	}{
		{"pass", stand.Report{Results: []stand.Result{stop(vibration.Pass, 0.35, 0.002, 2.6)}}, Pass, true, ""},
		{"above the requirement", stand.Report{Results: []stand.Result{stop(vibration.Pass, 1.2, 0.002, 2.0)}}, Fail, true, "above the requirement 1.00 s"},
		{"never still", stand.Report{Results: []stand.Result{stop(vibration.Fail, nan, nan, 0)}}, Fail, false, "NEVER settled"},
		{"timeout", stand.Report{Results: []stand.Result{stop(vibration.Timeout, nan, nan, 0)}}, Timeout, false, ""},
		{"release failed", stand.Report{Results: []stand.Result{stop(vibration.Pass, 0.4, 0.002, 2.0), release(vibration.Fail)}}, Fail, true, "LiDAR back"},
		{"teardown failed", stand.Report{Results: []stand.Result{stop(vibration.Pass, 0.4, 0.002, 2.0)}, Ending: endingNotOK()}, Fail, true, "teardown"},
		{"interrupted", stand.Report{Results: []stand.Result{stop(vibration.Fail, nan, nan, 0)}, Aborted: "interrupted: context canceled"}, Cut, false, "interrupted"},
		{"no result", stand.Report{}, Fail, false, "no result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := tc.rep
			if rep.Teardown == "" {
				rep.Teardown, rep.TeardownOK = "wheels disabled", true
			}
			run := Run{StillS: nan, TravelM: nan}
			judge(&run, &rep, cell)
			if run.Outcome != tc.outcome || run.NoRestart != tc.noRestart || !strings.Contains(run.Reason, tc.reason) {
				t.Errorf("outcome %s (%q), no restart %v; want %s (%q), %v", run.Outcome, run.Reason, run.NoRestart, tc.outcome, tc.reason, tc.noRestart)
			}
		})
	}
	// A stop whose quiet was broken (the wheels turned again) has no NoRestart, whatever said PASS.
	run := Run{}
	judge(&run, &stand.Report{Results: []stand.Result{stop(vibration.Pass, 0.4, 0.01, 2.0)}, Ending: endingOK()}, cell)
	if run.NoRestart || run.Outcome != Fail || !strings.Contains(run.Reason, "moved again") {
		t.Errorf("loud after still: %s %q, no restart %v", run.Outcome, run.Reason, run.NoRestart)
	}
}

// TestJudgeMapsAHoldPath: a hold cell succeeds when its still window and its resume both pass; motion in the
// window fails it as "moved again" (its NoRestart), with no stop time involved.
func TestJudgeMapsAHoldPath(t *testing.T) {
	cell := Cell{Path: "reset-hold", Speed: 0.2}
	held := func(o still.Outcome, reason string) stand.Result {
		v := still.Verdict{Outcome: o, Reason: reason}
		out := vibration.Pass
		if o != still.Pass {
			out = vibration.Fail
		}
		return stand.Result{Name: "held after e-stop reset, fwd 0.2", Outcome: out, Reason: reason, StopS: math.NaN(), Still: &v}
	}
	resumed := func(o vibration.Outcome) stand.Result {
		return stand.Result{Name: "enable after reset: ramp from zero", Release: true, Outcome: o, Reason: "jumped", Ramp: &ramp.Verdict{}}
	}
	for _, tc := range []struct {
		name      string
		res       []stand.Result
		outcome   string
		noRestart bool
		reason    string
	}{
		{"pass", []stand.Result{held(still.Pass, ""), resumed(vibration.Pass)}, Pass, true, ""},
		{"moved in the hold", []stand.Result{held(still.Fail, "the board was told 0.20 m/s forward"), resumed(vibration.Pass)}, Fail, false, "0.20 m/s"},
		{"burst on resume", []stand.Result{held(still.Pass, ""), resumed(vibration.Fail)}, Fail, true, "jumped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := Run{StillS: math.NaN(), TravelM: math.NaN()}
			judge(&run, &stand.Report{Results: tc.res, Ending: endingOK()}, cell)
			if run.Outcome != tc.outcome || run.NoRestart != tc.noRestart || !strings.Contains(run.Reason, tc.reason) {
				t.Errorf("outcome %s (%q), no restart %v; want %s (%q), %v", run.Outcome, run.Reason, run.NoRestart, tc.outcome, tc.reason, tc.noRestart)
			}
		})
	}
}

func endingOK() runcore.Ending { return runcore.Ending{Teardown: "wheels disabled", TeardownOK: true} }
func endingNotOK() runcore.Ending {
	return runcore.Ending{Teardown: "COULD NOT DISABLE THE WHEELS: timeout", TeardownOK: false}
}

// TestLostEvidenceFailsTheRun: a run whose proof.json cannot be written, or whose recording cannot be
// finished, is never a PASS, and says why (issue 31: the proof.json write's error was ignored and a failed
// recording only logged, so such a run passed). The controls: the same report with its evidence kept passes,
// with and without a recording. The failures are injected where they happen on a real disk: a folder in the
// way of proof.json, and one in the way of the finished recording (the MCAP's rename in Close).
func TestLostEvidenceFailsTheRun(t *testing.T) {
	p := vibration.DefaultParams()
	cell := Cell{Path: "estop", Speed: 0.2, MaxStillS: 1.0}
	passing := func() *stand.Report {
		v := vibration.Verdict{Kind: vibration.KindStop, Outcome: vibration.Pass, StillFrom: 0.35, WorstAfter: 0.002, QuietFor: 2.6, Params: p}
		return &stand.Report{Results: []stand.Result{{Name: "estop request, fwd 0.2", Outcome: vibration.Pass, StopS: 0.35, Verdict: v}},
			Ending: endingOK()}
	}
	failing := func() *stand.Report {
		v := vibration.Verdict{Kind: vibration.KindStop, Outcome: vibration.Fail, StillFrom: math.NaN(), WorstAfter: math.NaN(), Params: p,
			Reason: "NEVER settled in 3.0 s"}
		return &stand.Report{Results: []stand.Result{{Name: "estop request, fwd 0.2", Outcome: vibration.Fail, StopS: math.NaN(),
			Reason: v.Reason, Verdict: v}}, Ending: endingOK()}
	}
	blockWith := func(t *testing.T, path string) { // a non-empty folder: no file can be written or renamed there
		t.Helper()
		if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		rep      func() *stand.Report
		noRecord bool
		inject   func(t *testing.T, dir string, rec *proofrec.Writer)
		outcome  string
		reasons  []string // all in the run's Reason (and, when lost, in EvidenceLost and the evidence log)
		lost     bool
	}{
		{name: "kept", rep: passing, outcome: Pass},
		{name: "kept without a recording", rep: passing, noRecord: true, outcome: Pass},
		{name: "proof.json not written", rep: passing, outcome: Fail, lost: true,
			inject:  func(t *testing.T, dir string, _ *proofrec.Writer) { blockWith(t, filepath.Join(dir, ProofJSON)) },
			reasons: []string{"evidence was not kept", ProofJSON}},
		{name: "proof.json not written, no recording", rep: passing, noRecord: true, outcome: Fail, lost: true,
			inject:  func(t *testing.T, dir string, _ *proofrec.Writer) { blockWith(t, filepath.Join(dir, ProofJSON)) },
			reasons: []string{"evidence was not kept", ProofJSON}},
		{name: "recording not finished", rep: passing, outcome: Fail, lost: true,
			inject:  func(t *testing.T, _ string, rec *proofrec.Writer) { blockWith(t, rec.Path()) },
			reasons: []string{"evidence was not kept", "recording", ".mcap"}},
		{name: "judged FAIL and lost", rep: failing, outcome: Fail, lost: true,
			inject:  func(t *testing.T, dir string, _ *proofrec.Writer) { blockWith(t, filepath.Join(dir, ProofJSON)) },
			reasons: []string{"NEVER settled", "evidence was not kept", ProofJSON}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "runs", "0001")
			ev, err := evidence.Create(dir, "stop_proof_campaign_test.log", clock.Real{})
			if err != nil {
				t.Fatal(err)
			}
			defer ev.Close()
			var rec *proofrec.Writer
			if !tc.noRecord {
				t0, _ := ev.Start()
				if rec, err = proofrec.Create(proofrec.PathBeside(ev.Path()), t0, map[string]string{"kind": "stop_proof_stand"}); err != nil {
					t.Fatal(err)
				}
				ev.SetTap(rec.Line)
			}
			ev.Logf("the proof ran")
			if tc.inject != nil {
				tc.inject(t, dir, rec)
			}
			rep := tc.rep()
			lost := keepEvidence(dir, rep, rec, ev)
			run := Run{StillS: math.NaN(), TravelM: math.NaN()}
			judge(&run, rep, cell)
			lackEvidence(&run, lost)

			if run.Outcome != tc.outcome {
				t.Errorf("outcome %s (%q), want %s", run.Outcome, run.Reason, tc.outcome)
			}
			for _, w := range tc.reasons {
				if !strings.Contains(run.Reason, w) {
					t.Errorf("reason %q does not say %q", run.Reason, w)
				}
			}
			if !tc.lost {
				if lost != nil || run.EvidenceLost != "" {
					t.Errorf("evidence lost in a control: %v", lost)
				}
				b, err := os.ReadFile(filepath.Join(dir, ProofJSON))
				var back stand.Report
				if err == nil {
					err = json.Unmarshal(b, &back)
				}
				if err != nil || len(back.Results) != 1 {
					t.Errorf("proof.json: %v (%d results)", err, len(back.Results))
				}
				if rec != nil {
					if _, err := os.Stat(rec.Path()); err != nil {
						t.Errorf("recording: %v", err)
					}
				}
				return
			}
			if lost == nil || run.EvidenceLost != lost.Error() {
				t.Fatalf("lost %v, EvidenceLost %q", lost, run.EvidenceLost)
			}
			ev.Close()
			b, _ := os.ReadFile(ev.Path())
			if !strings.Contains(string(b), "EVIDENCE LOST: ") {
				t.Errorf("the evidence log does not report the loss:\n%s", b)
			}
			// The report counts it as a failure too.
			res := analyzeCell(cell, cell.ID(), []FiledRun{{Run: run}}, 0, 1, 0.8, 0.8)
			if res.Failures != 1 || res.ClaimHolds {
				t.Errorf("the report counts %d failures, claim holds %v", res.Failures, res.ClaimHolds)
			}
		})
	}
}

// TestLackEvidenceOutcomes: lackEvidence turns only a PASS (or no outcome) into FAIL; FAIL and TIMEOUT keep
// theirs with the loss added to the reason; a CUT run stays CUT (never counted); no loss changes nothing.
func TestLackEvidenceOutcomes(t *testing.T) {
	lost := errors.New("writing runs/0001/proof.json: no space left on device")
	for _, tc := range []struct {
		in, reason string
		err        error
		want       string
	}{
		{Pass, "", nil, Pass},
		{Pass, "", lost, Fail},
		{"", "", lost, Fail},
		{Fail, "estop: NEVER settled", lost, Fail},
		{Timeout, "", lost, Timeout},
		{Cut, "interrupted", lost, Cut},
	} {
		run := Run{Outcome: tc.in, Reason: tc.reason}
		lackEvidence(&run, tc.err)
		if run.Outcome != tc.want || tc.err != nil && (!strings.Contains(run.Reason, "no space left") || !strings.HasPrefix(run.Reason, tc.reason)) {
			t.Errorf("%s %q with %v: %s %q, want %s", tc.in, tc.reason, tc.err, run.Outcome, run.Reason, tc.want)
		}
	}
	// A record that says PASS beside a loss (written by hand, or by an older runner) is not believed.
	r := Run{Slot: Slot{Seq: 4, Cell: "estop fwd 0.2"}, Outcome: Pass, StillS: 0.3, NoRestart: true, EvidenceLost: lost.Error()}
	cell := Cell{Path: "estop", Speed: 0.2, MaxStillS: 1.0}
	if res := analyzeCell(cell, cell.ID(), []FiledRun{{Run: r}}, 0, 1, 0.8, 0.8); res.Failures != 1 {
		t.Errorf("a PASS record with its evidence lost counted as a success: %+v", res.Failed)
	}
}
