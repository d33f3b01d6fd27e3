package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// StandRobot runs a cell as the stand proof with a single step (prove.Prove: guards, spin-up, trigger, the
// judge, the teardown that disables the wheels), on one target that stays up between runs.
type StandRobot struct {
	Target target.Target
	// Options are the proof's options (spin, hold, the judge's params, ...); each run sets its own Out,
	// Evidence and Record.
	Options stand.Options
	// Version is the toolkit's version; Host the machine's name.
	Version, Host string
	// ConfigFile, when set, is the driver's configuration file whose SHA-256 is recorded; otherwise the
	// SHA-256 of the configuration the driver reports (its driver_config record) is.
	ConfigFile string
	// NoRecord leaves out the MCAP recording.
	NoRecord bool
	// Rig and Doctor go into each run's conditions (RunConditions.Rig, .Doctor).
	Rig, Doctor string
	// Session is when the campaign's session began (SessionS counts from it); shared by the robots.
	Session *SessionClock
}

var _ Robot = (*StandRobot)(nil)

// SessionClock is the time the session's first run began, set by the first run of any robot.
type SessionClock struct {
	once sync.Once
	t    time.Time
}

// Since is the time since the session's first run began (starting it now on the first call).
func (s *SessionClock) Since(now time.Time) time.Duration {
	s.once.Do(func() { s.t = now })
	return now.Sub(s.t)
}

// Battery reads the battery voltage from the driver's state, waiting up to 3 s for a first battery report
// (the board reports about once a second; a driver just started has none yet); NaN when none comes.
func (r *StandRobot) Battery(ctx context.Context) float64 {
	v := math.NaN()
	e := runcore.Engine{Clock: r.Options.Clock}
	_ = e.Poll(ctx, r.Target, 200*time.Millisecond, 3*time.Second, e.Clock.Now().Add(3*time.Second),
		func(st target.State, err error) error {
			if err == nil {
				v = batteryV(st.Raw)
			}
			if !math.IsNaN(v) {
				return runcore.ErrDone
			}
			return nil
		})
	return v
}

func (r *StandRobot) battery(ctx context.Context) (float64, bool) {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	st, err := r.Target.State(qctx)
	if err != nil {
		return math.NaN(), false
	}
	return batteryV(st.Raw), st.Plugged
}

// knownV is v, or 0 (the record's "not known": JSON has no NaN) when v is NaN.
func knownV(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// batteryV is the state record's battery_mv in volts (NaN when absent or 0: no report yet).
func batteryV(raw json.RawMessage) float64 {
	var s struct {
		MV int `json:"battery_mv"`
	}
	if json.Unmarshal(raw, &s) != nil || s.MV <= 0 {
		return math.NaN()
	}
	return float64(s.MV) / 1000
}

// Run runs the cell once.
func (r *StandRobot) Run(ctx context.Context, s Slot, cell Cell, dir string) (Run, error) {
	spec, ok := stand.Paths.Lookup(cell.Path)
	if !ok {
		return Run{}, fmt.Errorf("unknown stand path %q", cell.Path)
	}
	// A table of the one path at the cell's motion: the proof's table and record show this run only.
	one := *spec
	one.At = stoppath.Once(cell.Motion(), 0)
	table := stoppath.Table[stand.Rule]{one}
	o := r.Options
	o.Paths = table
	run := r.beginRun(ctx, &r.Session, RunConditions{Host: r.Host, Version: r.Version, Target: r.Target.Describe(),
		Thresholds: thresholds(o.Params, cell),
		// "still from" is the end of a 0.2 s window stepped by Params.Step (0.05 s), over IMU samples at
		// about 110 Hz: the time to still is known to a step, not to a sample.
		ResolutionS: math.Max(o.Params.Step, 1.0/110), Rig: r.Rig, Doctor: r.Doctor})
	ev, out, rel, err := openRunFiles(dir, "stop_proof_campaign", o.Clock, &run)
	if err != nil {
		return run, err
	}
	defer ev.Close()
	defer out.Close()
	var rec *proofrec.Writer
	if !r.NoRecord {
		t0, _ := ev.Start()
		rec, err = proofrec.Create(proofrec.PathBeside(ev.Path()), t0, map[string]string{"kind": "stop_proof_stand",
			"command_line": fmt.Sprintf("stopproof %s: campaign run %d, %s #%d", r.Version, s.Seq, s.Cell, s.Rep)})
		if err != nil {
			return run, err
		}
		ev.SetTap(rec.Line)
		run.MCAP = rel(rec.Path())
	}
	ev.Logf("stopproof campaign %s: run %d, cell %s, rep %d", r.Version, s.Seq, s.Cell, s.Rep)
	o.Out, o.Evidence, o.Record = out, ev, rec
	rep, perr := stand.Prove(ctx, r.Target, []stand.Step{{Spec: &table[0], Motion: cell.Motion()}}, o)
	lost := keepEvidence(dir, rep, rec, ev)
	if err := r.endRun(ctx, &run, perr, rep == nil); err != nil {
		return run, err
	}
	run.Conditions.ConfigSHA256 = r.configHash(rep.Config)
	judge(&run, rep, cell)
	lackEvidence(&run, lost)
	return run, nil
}

// beginRun is a run that starts now, as the stand and the floor runs start: nothing measured yet (NaN),
// cond its conditions with the time into the session (*session, which this run starts when nil) and the
// battery before the run.
func (r *StandRobot) beginRun(ctx context.Context, session **SessionClock, cond RunConditions) Run {
	clk := r.Options.Clock
	run := Run{StillS: math.NaN(), TravelM: math.NaN(), ResponseS: math.NaN(), DecelS: math.NaN(), Start: clk.Now().UTC()}
	if *session == nil {
		*session = &SessionClock{}
	}
	cond.SessionS = (*session).Since(clk.Now()).Seconds()
	run.Conditions = cond
	before, plugged := r.battery(ctx)
	run.Conditions.BatteryBeforeV, run.Conditions.Charger = knownV(before), plugged
	return run
}

// endRun records a run's end and the battery after it, once its proof returned. Its error is the proof's
// (perr), or one when the proof returned no report: the run then has no outcome.
func (r *StandRobot) endRun(ctx context.Context, run *Run, perr error, noReport bool) error {
	run.End = r.Options.Clock.Now().UTC()
	after, _ := r.battery(ctx)
	run.Conditions.BatteryAfterV = knownV(after)
	if perr == nil && noReport {
		perr = fmt.Errorf("the proof returned no report")
	}
	return perr
}

// openRunFiles makes a run's folder dir (<campaign>/runs/NNNN) and opens in it the run's evidence log (kind
// is evidence.Name's) and proof.txt (the proof's text output). run.Evidence is the log's path from the
// campaign folder; rel gives that path of the run's other files. The caller closes both files; on an error
// neither is open.
func openRunFiles(dir, kind string, clk clock.Clock, run *Run) (ev *evidence.Log, out *os.File, rel func(string) string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, nil, err
	}
	base := filepath.Dir(filepath.Dir(dir)) // the campaign folder
	rel = func(p string) string {
		if x, err := filepath.Rel(base, p); err == nil {
			return x
		}
		return p
	}
	ev, err = evidence.Create(dir, evidence.Name(kind, clk.Now()), clk)
	if err != nil {
		return nil, nil, nil, err
	}
	run.Evidence = rel(ev.Path())
	out, err = os.Create(filepath.Join(dir, "proof.txt"))
	if err != nil {
		ev.Close()
		return nil, nil, nil, err
	}
	return ev, out, rel, nil
}

// ProofJSON is the proof's report of a run (prove.Report), in the run's folder beside its evidence log.
const ProofJSON = "proof.json"

// keepEvidence finishes a run's evidence after the proof: the report attached to the recording, the
// recording closed (finished into its indexed file), the report written to proof.json, the evidence log
// flushed. It returns what could not be kept (nil: everything was), each failure also logged to the evidence
// log. rec is nil with NoRecord; rep nil when the proof returned none (nothing to attach or write).
func keepEvidence(dir string, rep *stand.Report, rec *proofrec.Writer, ev *evidence.Log) error {
	var x any
	if rep != nil {
		x = rep
	}
	return keepReport(dir, x, rec, ev)
}

// keepReport is keepEvidence for any proof's report (nil: none).
func keepReport(dir string, rep any, rec *proofrec.Writer, ev *evidence.Log) error {
	var lost []error
	var b []byte
	if rep != nil {
		var err error
		if b, err = json.MarshalIndent(rep, "", "  "); err != nil {
			lost = append(lost, fmt.Errorf("the proof's report cannot be encoded: %w", err))
			b = nil
		}
	}
	if rec != nil {
		if b != nil {
			if err := rec.Attach(b); err != nil {
				lost = append(lost, fmt.Errorf("recording %s: attaching the report: %w", rec.Path(), err))
			}
		}
		// A write error stops the recording and the proof goes on (proofrec.Writer); the campaign sets no
		// OnError, so this is where a recording that stopped during the run is seen.
		if err := rec.Err(); err != nil && len(lost) == 0 {
			lost = append(lost, fmt.Errorf("recording %s stopped during the run: %w", rec.Path(), err))
		}
		ev.SetTap(nil)
		if err := rec.Close(); err != nil { // err names the files (capture/mcapfile)
			lost = append(lost, fmt.Errorf("the recording: %w", err))
		}
	}
	if b != nil {
		p := filepath.Join(dir, ProofJSON)
		if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
			lost = append(lost, fmt.Errorf("%s not written: %w", ProofJSON, err)) // err names the path
		}
	}
	for _, err := range lost {
		ev.Logf("EVIDENCE LOST: %v", err)
	}
	if err := ev.Flush(); err != nil {
		lost = append(lost, fmt.Errorf("evidence log %s: %w", ev.Path(), err))
	}
	return errors.Join(lost...)
}

// lackEvidence fails a run whose evidence could not be kept (keepEvidence's error): a run is a success only
// when what shows it is on record (as a hole in the IMU data fails a run: Run.IMUHole). A run judged FAIL or
// TIMEOUT keeps its outcome and gains the reason; a CUT run stays CUT (never counted anyway).
func lackEvidence(run *Run, lost error) {
	if lost == nil {
		return
	}
	run.EvidenceLost = lost.Error()
	why := "the run's evidence was not kept, so it cannot be shown: " + strings.ReplaceAll(lost.Error(), "\n", "; ")
	switch {
	case run.Outcome == Pass || run.Outcome == "":
		run.Outcome, run.Reason = Fail, why
	case run.Reason == "":
		run.Reason = why
	default:
		run.Reason += "; and " + why
	}
}

// judge maps the proof's report of one step to the run's outcome.
//
// StillS is the stop line's "still from" (stand.Verdict.StillFrom). NoRestart is the stop verdict's own
// after-stop check: still from StillFrom to the end of the hold, every 0.2 s window quiet (WorstAfter below the
// threshold, QuietFor at least NeedQuiet) while the proof kept publishing the drive command through the hold
// (the deadman's trigger is the silence itself, so there it is "the wheels did not turn again").
//
// PASS needs every line of the step to pass (a release line too), the teardown to have disabled the wheels,
// and StillS within the cell's requirement; TIMEOUT when a line timed out; FAIL otherwise.
func judge(run *Run, rep *stand.Report, cell Cell) {
	if strings.HasPrefix(rep.Aborted, "interrupted") {
		run.Outcome, run.Reason = Cut, rep.Aborted
	}
	var stop *stand.Result
	for i := range rep.Results {
		if !rep.Results[i].Release {
			stop = &rep.Results[i]
			break
		}
	}
	if stop != nil && stop.Still != nil {
		// A hold path: its first line is the still window's (judge/still), the success "no motion"; it has
		// no time to still (StillS stays NaN) and the requirement is the line itself.
		run.NoRestart = stop.Still.Passed()
	} else if stop != nil {
		v := stop.Verdict
		run.StillS = stop.StopS
		run.NoRestart = v.Kind == vibration.KindStop && !math.IsNaN(v.StillFrom) && v.WorstAfter < v.Params.Threshold &&
			v.QuietFor >= v.Params.NeedQuiet-1e-9
		run.IMUHole = !run.NoRestart && v.HoleRestart && v.WorstAfter < v.Params.Threshold
	}
	if run.Outcome == Cut {
		return
	}
	run.Outcome = Pass
	for _, x := range rep.Results {
		switch x.Outcome {
		case vibration.Pass:
			continue
		case vibration.Timeout:
			run.Outcome = Timeout
		default:
			if run.Outcome == Pass {
				run.Outcome = Fail
			}
		}
		if run.Reason == "" {
			run.Reason = x.Name + ": " + x.Reason
		}
	}
	switch {
	case len(rep.Results) == 0:
		run.Outcome, run.Reason = Fail, "no result line"
	case run.Outcome == Pass && !rep.TeardownOK:
		run.Outcome, run.Reason = Fail, "teardown: "+rep.Teardown
	case run.Outcome == Pass && run.IMUHole:
		run.Outcome, run.Reason = Fail, "a hole in the IMU data broke the quiet after the stop: no restart cannot be shown"
	case run.Outcome == Pass && !run.NoRestart:
		run.Outcome, run.Reason = Fail, "the wheels moved again after the stop"
	case run.Outcome == Pass && !cell.Hold() && !(run.StillS <= cell.MaxStillS+1e-9):
		run.Outcome, run.Reason = Fail, fmt.Sprintf("still %.2f s after the trigger, above the requirement %.2f s", run.StillS, cell.MaxStillS)
	}
}

func (r *StandRobot) configHash(reported json.RawMessage) string {
	if r.ConfigFile != "" {
		if b, err := os.ReadFile(r.ConfigFile); err == nil {
			s := sha256.Sum256(b)
			return hex.EncodeToString(s[:])
		}
		return ""
	}
	if len(reported) == 0 {
		return ""
	}
	id, err := api.ConfigIdentity(reported)
	if err != nil {
		return ""
	}
	return "reported:" + id
}

// thresholds are the judge's limits and the cell's requirement, by name.
func thresholds(p vibration.Params, cell Cell) map[string]float64 {
	return map[string]float64{
		"vibration_threshold_rad_s": p.Threshold, "window_s": p.Window, "step_s": p.Step,
		"judge_max_stop_s": p.MaxStop, "need_quiet_s": p.NeedQuiet, "spin_window_s": p.SpinWindow,
		"requirement_max_still_s": cell.MaxStillS,
	}
}
