package campaign

import (
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// TestJudgeFloorMapsTheProof: a floor run's outcome from the floor proof's report of one leg: time to still
// and travel against the cell's requirements, NOT RUN and ABORTED legs CUT (never counted), a robot that
// moved again FAILs.
func TestJudgeFloorMapsTheProof(t *testing.T) {
	leg := func(o odometry.Outcome, still, travel, again float64) floor.Result {
		v := &odometry.Stop{Outcome: o, StillAfter: still, Travel: travel, MovedAgain: again}
		return floor.Result{Name: "estop, fwd 0.2", Outcome: o, Reason: "why", Stop: v}
	}
	nan := math.NaN()
	cell := Cell{Path: "estop", Speed: 0.2, Direction: "forward", MaxStillS: 0.8, MaxTravelM: 0.1}
	ok := runcore.Ending{Teardown: "wheels disabled", TeardownOK: true}
	for _, tc := range []struct {
		name    string
		res     floor.Result
		outcome string
		reason  string
	}{
		{"pass", leg(odometry.Pass, 0.4, 0.05, nan), Pass, ""},
		{"travel above the requirement", leg(odometry.Pass, 0.4, 0.12, nan), Fail, "travelled 0.120 m"},
		{"still above the requirement", leg(odometry.Pass, 0.85, 0.05, nan), Fail, "still 0.85 s"},
		{"moved again", leg(odometry.Pass, 0.4, 0.05, 1.2), Fail, "moved again"},
		{"judge failed", leg(odometry.Fail, nan, nan, nan), Fail, "FAIL why"},
		{"not run (corridor)", leg(odometry.NotRun, nan, nan, nan), Cut, "NOT RUN"},
		{"aborted (guard)", leg(odometry.Aborted, nan, nan, nan), Cut, "ABORTED"},
		{"timeout", leg(odometry.Timeout, nan, nan, nan), Timeout, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := Run{StillS: nan, TravelM: nan}
			judgeFloor(&run, &floor.Report{Results: []floor.Result{tc.res}, Ending: ok}, cell)
			if run.Outcome != tc.outcome || !strings.Contains(run.Reason, tc.reason) {
				t.Errorf("outcome %s (%q), want %s (%q)", run.Outcome, run.Reason, tc.outcome, tc.reason)
			}
		})
	}
}
