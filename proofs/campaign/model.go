package campaign

import (
	"encoding/json"
	"math"
	"time"
)

// Version is the campaign folder's format. A folder with a newer version is refused before anything moves.
const Version = 1

// Plan is a campaign's plan file (YAML, plan.go parses and validates it). It is copied into the campaign's
// folder at the start; resume runs the copy, never a plan file edited since.
type Plan struct {
	Version int    `yaml:"version" json:"version"` // Version; 0 in a file means 1
	Name    string `yaml:"name" json:"name"`
	Proof   string `yaml:"proof" json:"proof"` // "stand" or "floor"
	// R and C: the required success probability and the confidence, both in (0, 1); N = ceil(ln(1-C)/ln R)
	// runs a cell. Or N alone (then the report states the R it shows at C).
	R float64 `yaml:"r,omitempty" json:"r,omitempty"`
	C float64 `yaml:"c,omitempty" json:"c,omitempty"`
	N int     `yaml:"n,omitempty" json:"n,omitempty"`
	// Seed orders the runs: every cell's N runs, interleaved by a seeded shuffle (recorded in the folder).
	Seed       int64      `yaml:"seed" json:"seed"`
	Conditions Conditions `yaml:"conditions" json:"conditions"`
	Cells      []Cell     `yaml:"cells" json:"cells"`
	// BatteryMinV: below it the campaign pauses and asks before the next run (0: the proof's own guard only).
	BatteryMinV float64 `yaml:"battery_min_v,omitempty" json:"battery_min_v,omitempty"`
}

// Conditions are what cannot be measured and must be stated (ASTM F3218/F3470: recorded with the results).
type Conditions struct {
	Setup    string `yaml:"setup" json:"setup"`     // "stand" (wheels in the air) or "floor"
	Surface  string `yaml:"surface" json:"surface"` // e.g. "wheels in the air", "vinyl", "carpet"
	Load     string `yaml:"load" json:"load"`       // e.g. "none", "1 kg on the top plate"
	Gradient string `yaml:"gradient" json:"gradient"`
	Operator string `yaml:"operator" json:"operator"`
	Notes    string `yaml:"notes,omitempty" json:"notes,omitempty"`
}

// Cell is one line of the proofs' tables: a stop path at a speed in a direction, with its requirement.
type Cell struct {
	Path      string  `yaml:"path" json:"path"`           // a stand path (prove.Paths) or a floor path
	Speed     float64 `yaml:"speed" json:"speed"`         // m/s (rad/s for a turn)
	Direction string  `yaml:"direction" json:"direction"` // "forward", "back", "left", "right", "turn"; "" = forward
	// MaxStillS is the requirement: the most time from the trigger to still, seconds.
	MaxStillS float64 `yaml:"max_still_s" json:"max_still_s"`
	// MaxTravelM is the floor's second requirement: the most travel after the trigger, metres (0: none).
	MaxTravelM float64 `yaml:"max_travel_m,omitempty" json:"max_travel_m,omitempty"`
}

// Slot is one planned run: the Seq-th of the campaign (the recorded interleaving), the Rep-th of its cell.
type Slot struct {
	Seq  int    `json:"seq"`
	Cell string `json:"cell"` // Cell.ID
	Rep  int    `json:"rep"`  // 1..N
}

// Outcomes of a run. CUT: the run began and never wrote its end (power loss, SIGKILL); never a success.
const (
	Pass    = "PASS"
	Fail    = "FAIL"
	Timeout = "TIMEOUT"
	Cut     = "CUT"
)

// Run is one run's record in the campaign folder, written atomically when the run ends. A run that began and
// never wrote its end is found on resume, recorded with Outcome CUT (kept on record, shown in the report,
// neither a success nor one of the cell's n) and its slot is run again.
type Run struct {
	Slot
	Shard   string    `json:"shard,omitempty"` // "i/n" when the campaign was sharded
	Worker  int       `json:"worker"`          // which of --parallel's robots ran it
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Outcome string    `json:"outcome"`
	Reason  string    `json:"reason,omitempty"`
	// StillS is the time from the trigger to still (NaN: never still, or no trigger); TravelM the travel after
	// the trigger on the floor (NaN on the stand).
	StillS  float64 `json:"-"`
	TravelM float64 `json:"-"`
	// ResponseS is the trigger to the first slower frame at the board, DecelS to the measured deceleration
	// (floor runs, judge/odometry.Response; NaN: not measured, and on the stand).
	ResponseS float64 `json:"-"`
	DecelS    float64 `json:"-"`
	// NoRestart: after the stop, while commands kept coming, the wheels did not move again (ISO 3691-4: never
	// restart by itself). False with Outcome PASS is impossible: the judge fails such a run.
	NoRestart bool `json:"no_restart"`
	// IMUHole: NoRestart is false because a hole in the IMU data, not vibration, broke the quiet after the
	// stop (stand.Verdict.HoleRestart): no restart cannot be shown, and none was measured either.
	IMUHole bool `json:"imu_hole,omitempty"`
	// EvidenceLost is what of the run's evidence could not be kept (its proof.json not written, its recording
	// failed, its evidence log not written): such a run is never a PASS, whatever its judge said (issue 31).
	EvidenceLost string        `json:"evidence_lost,omitempty"`
	Conditions   RunConditions `json:"conditions"`
	// Evidence and MCAP are the run's evidence log and recording, relative to the campaign folder.
	Evidence string `json:"evidence,omitempty"`
	MCAP     string `json:"mcap,omitempty"`
}

// RunConditions is what was measured or known about the robot and the session at the run.
type RunConditions struct {
	Host           string  `json:"host"`
	ConfigSHA256   string  `json:"config_sha256"`    // the driver's config file
	Version        string  `json:"version"`          // the toolkit's
	Target         string  `json:"target"`           // "sim (seed 3)", "/dev/ttyACM0 via rosorin-base", ...
	BatteryBeforeV float64 `json:"battery_before_v"` // 0: not known (no battery report yet)
	BatteryAfterV  float64 `json:"battery_after_v"`
	Charger        bool    `json:"charger"`
	// SessionS is the time since the campaign's first run in this session began (cold or warm robot).
	SessionS float64 `json:"session_s"`
	// Thresholds are the judge's thresholds (name -> value, in the judge's units).
	Thresholds map[string]float64 `json:"thresholds,omitempty"`
	// ResolutionS is how finely StillS is known (IMU about 1/110 s on the stand, LiDAR 0.1 s on the floor);
	// ResolutionM the same for TravelM.
	ResolutionS float64 `json:"resolution_s"`
	ResolutionM float64 `json:"resolution_m,omitempty"`
	// Rig is the rig file's robot name (stopproof campaign --rig); Doctor the doctor's report of the session
	// in the folder and its verdict ("doctor/20261204_221500.json (PASS)").
	Rig    string `json:"rig,omitempty"`
	Doctor string `json:"doctor,omitempty"`
}

// MarshalJSON writes StillS and TravelM as still_s and travel_m, null for NaN.
func (r Run) MarshalJSON() ([]byte, error) {
	type alias Run
	return json.Marshal(struct {
		alias
		StillS    *float64 `json:"still_s"`
		TravelM   *float64 `json:"travel_m"`
		ResponseS *float64 `json:"response_s,omitempty"`
		DecelS    *float64 `json:"decel_s,omitempty"`
	}{alias(r), numOrNull(r.StillS), numOrNull(r.TravelM), numOrNull(r.ResponseS), numOrNull(r.DecelS)})
}

// UnmarshalJSON reads what MarshalJSON writes (null -> NaN).
func (r *Run) UnmarshalJSON(b []byte) error {
	type alias Run
	var x struct {
		alias
		StillS    *float64 `json:"still_s"`
		TravelM   *float64 `json:"travel_m"`
		ResponseS *float64 `json:"response_s"`
		DecelS    *float64 `json:"decel_s"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*r = Run(x.alias)
	r.StillS, r.TravelM = nanIfNull(x.StillS), nanIfNull(x.TravelM)
	r.ResponseS, r.DecelS = nanIfNull(x.ResponseS), nanIfNull(x.DecelS)
	return nil
}

func numOrNull(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func nanIfNull(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
