package campaign

import (
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stand/prove"
)

// TestJudgeMapsTheProof: the run's outcome from the proof's report of one step.
func TestJudgeMapsTheProof(t *testing.T) {
	p := stand.DefaultParams()
	stop := func(o stand.Outcome, still, worst, quiet float64) prove.Result {
		v := stand.Verdict{Kind: stand.KindStop, Outcome: o, StillFrom: still, WorstAfter: worst, QuietFor: quiet, Params: p}
		if o != stand.Pass {
			v.Reason = "NEVER settled in 3.0 s"
		}
		return prove.Result{Name: "estop request, fwd 0.2", Outcome: o, Reason: v.Reason, StopS: still, Verdict: v}
	}
	release := func(o stand.Outcome) prove.Result {
		return prove.Result{Name: "LiDAR back", Release: true, Outcome: o, Reason: "not released",
			Verdict: stand.Verdict{Kind: stand.KindRelease, Outcome: o, Params: p}}
	}
	cell := Cell{Path: "estop", Speed: 0.2, MaxStillS: 1.0}
	nan := math.NaN()
	for _, tc := range []struct {
		name      string
		rep       prove.Report
		outcome   string
		noRestart bool
		reason    string
	}{
		{"pass", prove.Report{Results: []prove.Result{stop(stand.Pass, 0.35, 0.002, 2.6)}}, Pass, true, ""},
		{"above the requirement", prove.Report{Results: []prove.Result{stop(stand.Pass, 1.2, 0.002, 2.0)}}, Fail, true, "above the requirement 1.00 s"},
		{"never still", prove.Report{Results: []prove.Result{stop(stand.Fail, nan, nan, 0)}}, Fail, false, "NEVER settled"},
		{"timeout", prove.Report{Results: []prove.Result{stop(stand.Timeout, nan, nan, 0)}}, Timeout, false, ""},
		{"release failed", prove.Report{Results: []prove.Result{stop(stand.Pass, 0.4, 0.002, 2.0), release(stand.Fail)}}, Fail, true, "LiDAR back"},
		{"teardown failed", prove.Report{Results: []prove.Result{stop(stand.Pass, 0.4, 0.002, 2.0)}, Ending: endingNotOK()}, Fail, true, "teardown"},
		{"interrupted", prove.Report{Results: []prove.Result{stop(stand.Fail, nan, nan, 0)}, Aborted: "interrupted: context canceled"}, Cut, false, "interrupted"},
		{"no result", prove.Report{}, Fail, false, "no result"},
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
	judge(&run, &prove.Report{Results: []prove.Result{stop(stand.Pass, 0.4, 0.01, 2.0)}, Ending: endingOK()}, cell)
	if run.NoRestart || run.Outcome != Fail || !strings.Contains(run.Reason, "moved again") {
		t.Errorf("loud after still: %s %q, no restart %v", run.Outcome, run.Reason, run.NoRestart)
	}
}

func endingOK() runcore.Ending { return runcore.Ending{Teardown: "wheels disabled", TeardownOK: true} }
func endingNotOK() runcore.Ending {
	return runcore.Ending{Teardown: "COULD NOT DISABLE THE WHEELS: timeout", TeardownOK: false}
}
