package campaign

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// HomeSettle is how long a floor run waits after the world put the robot back on its mark.
const HomeSettle = time.Second

// FloorRobot runs a cell as the floor proof with a single leg (floor.Prove: the clearance checks before the
// leg, the guard while it moves, the backward-leg rule, the judge from LiDAR odometry and the gyro, the
// teardown), on one target that stays up between runs. Before every run the robot goes back on its mark: the
// simulator's world puts it there (target.Homer); on a robot the operator is asked (Ask).
type FloorRobot struct {
	Target target.Target
	// Options are the floor proof's options; each run sets its own Out and Evidence.
	Options floor.Options
	// Version, Host, ConfigFile, Rig, Doctor and Session are StandRobot's.
	Version, Host, ConfigFile string
	Rig, Doctor               string
	Session                   *SessionClock
	// Ask asks the operator to put the robot back on its mark (a target that cannot: a robot); true goes
	// on. nil answers no: the run is not made and the campaign stops, to be resumed.
	Ask func(prompt string) bool

	ran bool // a run moved the robot since it was last put back
}

var _ Robot = (*FloorRobot)(nil)

// Battery is StandRobot's battery reading.
func (r *FloorRobot) Battery(ctx context.Context) float64 {
	return (&StandRobot{Target: r.Target, Options: standOptionsClock(r.Options)}).Battery(ctx)
}

// home puts the robot back on its mark before a run (not before the first: it starts there).
func (r *FloorRobot) home(ctx context.Context) error {
	if !r.ran {
		return nil
	}
	if h, ok := r.Target.(target.Homer); ok {
		if err := h.Home(ctx); err != nil {
			return fmt.Errorf("putting the robot back on its mark: %w", err)
		}
		r.ran = false
		// The world moved the robot at once, but a scan in progress mixed both poses and the LiDAR odometry
		// re-anchors on the scans after it: without this wait the next leg's check once found the odometry
		// degenerate (NOT RUN, CUT) right after the move. Ten scans at 10 Hz.
		return r.Options.Clock.Sleep(ctx, HomeSettle)
	}
	if r.Ask == nil || !r.Ask("Put the robot back on its mark (the floor ahead clear, as for the first run), then answer y to go on") {
		return fmt.Errorf("the robot was not put back on its mark: the campaign stops here (resume it when it is)")
	}
	r.ran = false
	return nil
}

var _ CellChecker = (*FloorRobot)(nil)

// CheckCell is checkSpeed: Execute asks it of every cell before the first run.
func (r *FloorRobot) CheckCell(ctx context.Context, cell Cell) error { return r.checkSpeed(ctx, cell) }

// checkSpeed refuses, before anything moves, a cell faster than the driver's speed limit: its runs would
// prove a slower stop than the plan says.
func (r *FloorRobot) checkSpeed(ctx context.Context, cell Cell) error {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	st, err := r.Target.State(qctx)
	if err != nil {
		return nil // the proof's own guards say why there is no driver
	}
	lim := st.Config.MaxLinear
	if cell.Direction == "turn" {
		lim = st.Config.MaxAngular
	}
	if lim > 0 && cell.Speed > lim+1e-9 {
		return fmt.Errorf("cell %s: speed %g is above the driver's limit %g: its runs would prove a slower stop than the plan names; lower the cell's speed or raise the limit",
			cell.ID(), cell.Speed, lim)
	}
	return nil
}

// Run runs the cell once.
func (r *FloorRobot) Run(ctx context.Context, s Slot, cell Cell, dir string) (Run, error) {
	spec, ok := floor.Paths.Lookup(cell.Path)
	if !ok {
		return Run{}, fmt.Errorf("unknown floor path %q", cell.Path)
	}
	if err := r.home(ctx); err != nil {
		return Run{}, err
	}
	if err := r.checkSpeed(ctx, cell); err != nil {
		return Run{}, err
	}
	one := *spec
	m := cell.Motion()
	one.At = stoppath.Once(m, 0)
	table := stoppath.Table[floor.Rule]{one}
	o := r.Options
	o.Paths = table
	sr := &StandRobot{Target: r.Target, Options: standOptionsClock(o)}
	run := sr.beginRun(ctx, &r.Session, RunConditions{Host: r.Host, Version: r.Version, Target: r.Target.Describe(),
		Thresholds: floorThresholds(o.Params, cell),
		// "still after" is the end of a Window-long odometry window stepped by the scans (10 Hz).
		ResolutionS: 0.1, Rig: r.Rig, Doctor: r.Doctor})
	ev, out, _, err := openRunFiles(dir, "stop_proof_floor_campaign", o.Clock, &run)
	if err != nil {
		return run, err
	}
	defer ev.Close()
	defer out.Close()
	ev.Logf("stopproof campaign %s: run %d, cell %s, rep %d (floor)", r.Version, s.Seq, s.Cell, s.Rep)
	o.Out, o.Evidence = out, ev
	r.ran = true
	rep, perr := floor.Prove(ctx, r.Target, []floor.Step{{Spec: &table[0], Motion: m}}, o)
	var x any
	if rep != nil {
		x = rep
	}
	lost := keepReport(dir, x, nil, ev)
	if err := sr.endRun(ctx, &run, perr, rep == nil); err != nil {
		return run, err
	}
	run.Conditions.ConfigSHA256 = sr.configHash(rep.Config)
	judgeFloor(&run, rep, cell)
	lackEvidence(&run, lost)
	return run, nil
}

// judgeFloor maps the floor proof's report of one leg to the run's outcome: PASS needs every line to pass,
// the teardown to have disabled the wheels, the time to still within max_still_s and the travel after the
// trigger within max_travel_m (when the cell sets it). A leg the checks refused (NOT RUN) or the guard
// stopped (ABORTED) is CUT: never counted as a success nor as a failure of the stop (an obstacle is not a
// stop that failed); TIMEOUT when a line timed out; FAIL otherwise.
func judgeFloor(run *Run, rep *floor.Report, cell Cell) {
	if strings.HasPrefix(rep.Aborted, "interrupted") {
		run.Outcome, run.Reason = Cut, rep.Aborted
		return
	}
	var stop *floor.Result
	for i := range rep.Results {
		if !rep.Results[i].Release {
			stop = &rep.Results[i]
			break
		}
	}
	if stop != nil && stop.Still != nil {
		run.NoRestart = stop.Still.Passed() // a hold path: no motion in its window
	} else if stop != nil && stop.Stop != nil {
		v := stop.Stop
		run.StillS, run.TravelM = v.StillAfter, v.Travel
		if stop.Response != nil {
			run.ResponseS, run.DecelS = stop.Response.Board, stop.Response.Measured
		}
		run.NoRestart = v.Outcome == odometry.Pass && math.IsNaN(v.MovedAgain)
	}
	run.Outcome = Pass
	for _, x := range rep.Results {
		switch x.Outcome {
		case odometry.Pass:
			continue
		case odometry.NotRun, odometry.Aborted:
			run.Outcome, run.Reason = Cut, fmt.Sprintf("%s: %s %s (not counted)", x.Name, x.Outcome, x.Reason)
			return
		case odometry.Timeout:
			run.Outcome = Timeout
		default:
			if run.Outcome == Pass {
				run.Outcome = Fail
			}
		}
		if run.Reason == "" {
			run.Reason = x.Name + ": " + x.Outcome.String() + " " + x.Reason
		}
	}
	switch {
	case len(rep.Results) == 0:
		run.Outcome, run.Reason = Fail, "no result line"
	case run.Outcome == Pass && !rep.TeardownOK:
		run.Outcome, run.Reason = Fail, "teardown: "+rep.Teardown
	case run.Outcome == Pass && !run.NoRestart:
		run.Outcome, run.Reason = Fail, "the robot moved again after the stop"
	case run.Outcome == Pass && !cell.Hold() && !(run.StillS <= cell.MaxStillS+1e-9):
		run.Outcome, run.Reason = Fail, fmt.Sprintf("still %.2f s after the trigger, above the requirement %.2f s", run.StillS, cell.MaxStillS)
	case run.Outcome == Pass && cell.MaxTravelM > 0 && !(run.TravelM <= cell.MaxTravelM+1e-9):
		run.Outcome, run.Reason = Fail, fmt.Sprintf("travelled %.3f m after the trigger, above the requirement %.3f m", run.TravelM, cell.MaxTravelM)
	}
}

// floorThresholds are the floor judge's limits and the cell's requirements, by name.
func floorThresholds(p odometry.Params, cell Cell) map[string]float64 {
	return map[string]float64{
		"window_s": p.Window, "moving_m_s": p.Moving, "turning_rad_s": p.Turning, "fail_after_s": p.FailAfter,
		"requirement_max_still_s": cell.MaxStillS, "requirement_max_travel_m": cell.MaxTravelM,
	}
}

// standOptionsClock is the stand's options with the floor run's clock, for the readings StandRobot makes
// (battery, configuration hash), which are the same on both proofs.
func standOptionsClock(o floor.Options) stand.Options {
	so := stand.DefaultOptions()
	so.Clock = o.Clock
	return so
}
