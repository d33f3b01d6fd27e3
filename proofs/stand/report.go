package stand

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stoppath"
)

// Measurement is one number a verdict rests on, beside its limit.
type Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"` // NaN (null in JSON) when it could not be measured
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	// Rule is how Value must compare with Limit: ">", "<=", ">=" or "<".
	Rule string `json:"rule"`
	OK   bool   `json:"ok"`
	// Why explains a limit that is not the judge's default (the scan-loss path's quiet time).
	Why string `json:"why,omitempty"`
}

// measurementJSON is a Measurement in the record: null for a value that could not be measured.
type measurementJSON struct {
	Name  string   `json:"name"`
	Value *float64 `json:"value"`
	Limit *float64 `json:"limit"`
	Unit  string   `json:"unit"`
	Rule  string   `json:"rule"`
	OK    bool     `json:"ok"`
	Why   string   `json:"why,omitempty"`
}

func (m Measurement) MarshalJSON() ([]byte, error) {
	return json.Marshal(measurementJSON{m.Name, num(m.Value), num(m.Limit), m.Unit, m.Rule, m.OK, m.Why})
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func measure(name string, value float64, rule string, limit float64, unit string) Measurement {
	ok := false
	switch rule {
	case ">":
		ok = value > limit
	case ">=":
		ok = value >= limit-1e-9
	case "<=":
		ok = value <= limit+1e-9
	case "<":
		ok = value < limit
	}
	return Measurement{Name: name, Value: value, Limit: limit, Unit: unit, Rule: rule, OK: ok}
}

// measurements lists what a stop verdict rests on: the spinning level against the threshold, "still from"
// against the stop limit, the quiet time against the quiet limit, and the worst window after.
func measurements(v vibration.Verdict) []Measurement {
	p := v.Params
	if v.Kind == vibration.KindRelease {
		return []Measurement{measure("vibration after the scans returned", v.Spinning, ">", p.Threshold, "rad/s")}
	}
	quiet := measure("quiet time", v.QuietFor, ">=", p.NeedQuiet, "s")
	quiet.Why = v.QuietRule
	return []Measurement{
		measure("spinning level before the trigger", v.Spinning, ">", p.Threshold, "rad/s"),
		measure("still from (after the trigger)", v.StillFrom, "<=", p.MaxStop, "s"),
		quiet,
		measure("worst window after still", v.WorstAfter, "<", p.Threshold, "rad/s"),
	}
}

// Result is one result line: a path's stop verdict, or the scan-loss path's release check.
type Result struct {
	Path    Path   `json:"path"`
	Motion  string `json:"motion"`
	Name    string `json:"name"`
	Release bool   `json:"release,omitempty"` // the scan-loss path's second line
	// Speed is the drive command the wheels were spun with.
	Speed kinematics.Twist `json:"speed"`
	// TriggerS is the trigger's time in seconds since the start of the run; TriggerAt the same in UTC.
	TriggerS  float64   `json:"trigger_s"`
	TriggerAt time.Time `json:"trigger_at"`
	// TriggerHow says how the trigger time was taken when it is not the moment the proof acted (gamepad).
	TriggerHow string `json:"trigger_how,omitempty"`
	// Outcome is PASS, FAIL or TIMEOUT; Reason says why when it is not PASS.
	Outcome vibration.Outcome `json:"outcome"`
	Reason  string            `json:"reason,omitempty"`
	// StopS is "still from", seconds after the trigger (NaN when never); for the release line, the time from
	// the reader's kill to the wheels seen turning again.
	StopS        float64       `json:"-"`
	Measurements []Measurement `json:"measurements"`
	// Samples is the number of IMU samples judged; IMUSource where they came from ("driver", "raw", "direct"
	// or a mix, "driver+raw").
	Samples   int    `json:"samples"`
	IMUSource string `json:"imu_source"`
	// IMULag is how far the receipt of the driver's IMU samples trailed their driver stamps during the path
	// (samples are timed on receipt; nil when no sample carried a stamp).
	IMULag *imu.Lag `json:"imu_lag,omitempty"`
	// SourceLine is the "kill: board IMU read ..." line of the paths that kill the driver.
	SourceLine string `json:"source_line,omitempty"`
	// Line is the printed result line.
	Line    string            `json:"line"`
	Verdict vibration.Verdict `json:"verdict"`
	// Notes are the path's other observations (scans back after, driver back after, ...).
	Notes []string `json:"notes,omitempty"`
	// Still and Ramp are a hold path's verdicts (hold.go): the still window's (first line) and the resume's
	// (second line); Verdict is then empty.
	Still *still.Verdict `json:"still,omitempty"`
	Ramp  *ramp.Verdict  `json:"ramp,omitempty"`
	// Trace is a hold path's timeline for its plot (on its first line): what the board was told.
	Trace *HoldTrace `json:"trace,omitempty"`
}

// HoldTrace is a hold path's timeline, in seconds after the trigger: the speed the board was told (the
// largest of |vx|, |vy| in m/s and |wz| in rad/s of each frame), the still window and the act.
type HoldTrace struct {
	T, Speed     []float64
	From, To     float64 // the still window
	Act, Command float64 // the deliberate act and the first command after it
	Source       string  // where the frames came from
}

// MarshalJSON writes StopS as stop_s and TriggerS as trigger_s, null for NaN (a path that failed before its
// trigger has no trigger time; encoding/json refuses NaN and the whole record would be lost).
func (r Result) MarshalJSON() ([]byte, error) {
	type alias Result
	return json.Marshal(struct {
		alias
		TriggerS *float64 `json:"trigger_s"` // shadows alias.TriggerS
		StopS    *float64 `json:"stop_s"`
	}{alias(r), num(r.TriggerS), num(r.StopS)})
}

// Report is a whole run: what the JSON record holds and what the summary prints.
type Report struct {
	runcore.Head                    // tool, version, target, driver_bin, fault, start, end, driver_config
	Params         vibration.Params `json:"params"`
	SpinS          float64          `json:"spin_s"`
	HoldS          float64          `json:"hold_s"`
	Paths          []string         `json:"paths"`
	runcore.States                  // start_state, end_state, end_line
	Results        []Result         `json:"results"`
	// IMUTiming says how samples were timed (on receipt, by the proof's monotonic clock) and IMULag the
	// run's driver-stamp-to-receipt lag over every path.
	IMUTiming string   `json:"imu_timing"`
	IMULag    *imu.Lag `json:"imu_lag,omitempty"`
	// Planned is the number of result lines the run should have produced; Passed how many passed.
	Planned int `json:"planned"`
	Passed  int `json:"passed"`
	// Aborted says why the run stopped before its end ("" when it ran to the end).
	Aborted        string `json:"aborted,omitempty"`
	runcore.Ending        // teardown, teardown_ok, evidence_log

	table stoppath.Table[Rule] // the paths the run was planned from (nil: Paths)
}

// AllPassed reports whether every planned result line passed and the teardown disabled the wheels.
func (r *Report) AllPassed() bool {
	return r.Aborted == "" && r.Planned > 0 && r.Passed == r.Planned && r.TeardownOK
}

// ResultLine is "RESULT: N/M passed".
func (r *Report) ResultLine() string { return fmt.Sprintf("RESULT: %d/%d passed", r.Passed, r.Planned) }

// WriteTable prints the stop times, path x motion, like chapter 19's table: "0.55 s" for a pass, the outcome
// word otherwise, "-" where the path does not run at that motion, "not run" where it was planned but not
// reached. Rows and columns come from the run's table of paths.
func (r *Report) WriteTable(w io.Writer) error {
	table := r.table
	if table == nil {
		table = Paths
	}
	type row struct {
		spec    *Spec
		release bool
	}
	var rows []row
	var labels []string
	planned := map[string]bool{}
	for _, p := range r.Paths {
		planned[p] = true
	}
	for i := range table {
		s := &table[i]
		if s.Hold != "" && !planned[s.Name] {
			continue // the hold paths' rows only when they ran: "all" leaves them out
		}
		rows, labels = append(rows, row{s, false}), append(labels, s.RowLabel())
		if s.Release != "" {
			rows, labels = append(rows, row{s, true}), append(labels, s.ReleaseRow)
		}
	}
	motions := table.Motions()
	return runcore.WriteTable(w, labels, motions, func(i, j int) (c string, ok bool) {
		row, m := rows[i], motions[j]
		for _, res := range r.Results {
			if string(res.Path) == row.spec.Name && res.Motion == m.Name && res.Release == row.release {
				c, ok = cell(res, row.spec.ReleaseFrom), true
			}
		}
		if !ok && planned[row.spec.Name] && row.spec.RunsAt(m) {
			c, ok = "not run", true
		}
		return c, ok
	})
}

// cell is a result's table cell; from says what a release's time counts from (the spec's ReleaseFrom).
func cell(res Result, from string) string {
	switch {
	case res.Outcome == vibration.Pass && res.Still != nil:
		return fmt.Sprintf("held %.1f s", res.Still.To-res.Still.From)
	case res.Outcome == vibration.Pass && res.Ramp != nil && res.Ramp.Reached != nil && res.Verdict.Kind != vibration.KindRelease:
		// a hold path's resume line (a stop path's release line keeps its own cell below)
		return fmt.Sprintf("ramp, at speed %.2f s", *res.Ramp.Reached)
	case res.Outcome == vibration.NotRun:
		return "NOT RUN"
	case res.Still != nil && res.Still.FirstMotion != nil:
		return fmt.Sprintf("FAIL (moved %.2f s in)", *res.Still.FirstMotion)
	case res.Outcome == vibration.Pass && res.Release:
		return fmt.Sprintf("turning again %.1f s after %s", res.StopS, from)
	case res.Outcome == vibration.Pass:
		return fmt.Sprintf("%.2f s", res.StopS)
	case res.Outcome == vibration.Timeout:
		return "TIMEOUT"
	case strings.HasPrefix(res.Reason, "NEVER settled"):
		return "FAIL (never still)"
	}
	return "FAIL"
}
