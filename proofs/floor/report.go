package floor

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
)

// Result is one leg's result line and everything behind it.
type Result struct {
	Path   string `json:"path"`
	Motion string `json:"motion"`
	Name   string `json:"name"`
	// Release marks the second line of a path whose stop lets go by itself (the take-over's "operator let
	// go: autonomous resumed"); ReleaseCheck is its verdict.
	Release      bool              `json:"release,omitempty"`
	ReleaseCheck *odometry.Release `json:"release_check,omitempty"`
	Speed        kinematics.Twist  `json:"speed"`
	Outcome      odometry.Outcome  `json:"outcome"`
	Reason       string            `json:"reason,omitempty"`
	// TriggerS is the trigger's time in seconds since the start of the run (NaN: the leg never triggered).
	TriggerS float64 `json:"-"`
	// Corridor is the clearance check before the leg (nil for turns and backward legs).
	Corridor *odometry.Corridor `json:"corridor,omitempty"`
	// Covered is the floor (m) forward legs had covered behind a backward leg, robot included.
	Covered *float64 `json:"covered_m,omitempty"`
	// GuardNearest is the nearest return the guard saw in the direction of travel while the leg moved.
	GuardNearest float64 `json:"-"`
	// Stop is the judge's verdict (nil when the leg did not reach its judge).
	Stop *odometry.Stop `json:"stop,omitempty"`
	// Response is a linear leg's response: trigger to the first slower frame at the board, and to the
	// measured deceleration (nil for turns and legs that did not reach the judge).
	Response *odometry.Response `json:"response,omitempty"`
	// StillFrom says where "still" came from: "LiDAR odometry", "gyro z", or, for the legs whose scans stop
	// with the driver, "board gyro vibration from below the driver".
	StillFrom string `json:"still_from,omitempty"`
	// StopsFired lists the stops fired at once by the 0.8 s rule, a moving-again robot or the guard.
	StopsFired []string `json:"stops_fired,omitempty"`
	// Still and Ramp are a hold path's verdicts (hold.go): the still window's (first line) and the resume's
	// (second).
	Still *still.Verdict `json:"still,omitempty"`
	Ramp  *ramp.Verdict  `json:"ramp,omitempty"`
	Scans int            `json:"scans"`
	Line  string         `json:"line"`
	Notes []string       `json:"notes,omitempty"`
}

// MarshalJSON writes the NaN numbers as null.
func (r Result) MarshalJSON() ([]byte, error) {
	type alias Result
	return json.Marshal(struct {
		alias
		TriggerS     *float64 `json:"trigger_s"`
		GuardNearest *float64 `json:"guard_nearest_m"`
	}{alias(r), odometry.Num(r.TriggerS), odometry.Num(r.GuardNearest)})
}

// Report is a whole run: the --json record.
type Report struct {
	runcore.Head                   // tool, version, target, driver_bin, fault, start, end, driver_config
	Params         odometry.Params `json:"params"`
	LegS           float64         `json:"leg_s"`
	HoldS          float64         `json:"hold_s"`
	Paths          []string        `json:"paths"`
	runcore.States                 // start_state, end_state, end_line
	Results        []Result        `json:"results"`
	Planned        int             `json:"planned"`
	Passed         int             `json:"passed"`
	Failed         int             `json:"failed"`
	// Aborted says why the run stopped before its end ("" when it ran to the end); StoppedProof is set when
	// a stop failed and the proof stopped itself.
	Aborted        string `json:"aborted,omitempty"`
	StoppedProof   bool   `json:"stopped_proof,omitempty"`
	runcore.Ending        // teardown, teardown_ok, evidence_log
	// ScansDropped counts scans the runner did not take in time (the feed's queue was full).
	ScansDropped int `json:"scans_dropped"`
	// Contact counts the driver's contact reflex's false trips (contact.go).
	Contact *ContactCount `json:"contact_reflex,omitempty"`

	motions []Motion
	rows    []row
}

type row struct {
	name, label string
	release     bool // the path's release line
}

// AllPassed reports whether every planned leg passed and the teardown disabled the wheels.
func (r *Report) AllPassed() bool {
	return r.Aborted == "" && r.Planned > 0 && r.Passed == r.Planned && r.TeardownOK
}

// AnyFailed reports whether a leg failed (a stop not shown): the exit status tells it from a run that only
// refused legs (NOT RUN, NOT JUDGED, ABORTED).
func (r *Report) AnyFailed() bool { return r.Failed > 0 || r.StoppedProof || !r.TeardownOK }

// ResultLine is "RESULT: N/M passed".
func (r *Report) ResultLine() string { return fmt.Sprintf("RESULT: %d/%d passed", r.Passed, r.Planned) }

// WriteTable prints still-after and travel per path and leg, like chapter 19's floor table: "0.38 s, 3.1 cm"
// for a pass, the outcome word otherwise, "-" where the path does not run at that motion.
func (r *Report) WriteTable(w io.Writer) error {
	labels := make([]string, len(r.rows))
	for i, rw := range r.rows {
		labels[i] = rw.label
	}
	return runcore.WriteTable(w, labels, r.motions, func(i, j int) (c string, ok bool) {
		for _, res := range r.Results {
			if res.Path == r.rows[i].name && res.Release == r.rows[i].release && res.Motion == r.motions[j].Name {
				c, ok = cell(res), true
			}
		}
		return c, ok
	})
}

func cell(res Result) string {
	switch {
	case res.Outcome == odometry.Pass && res.Still != nil:
		return fmt.Sprintf("held %.1f s", res.Still.To-res.Still.From)
	case res.Outcome == odometry.Pass && res.Ramp != nil && res.Ramp.Reached != nil:
		return fmt.Sprintf("ramp, at speed %.2f s", *res.Ramp.Reached)
	case res.Still != nil && res.Still.FirstMotion != nil:
		return fmt.Sprintf("FAIL (moved %.2f s in)", *res.Still.FirstMotion)
	}
	if res.Release && res.Outcome == odometry.Pass && res.ReleaseCheck != nil {
		return fmt.Sprintf("moving %.2f s", res.ReleaseCheck.MovingAfter)
	}
	if res.Outcome != odometry.Pass || res.Stop == nil {
		return res.Outcome.String()
	}
	s := fmt.Sprintf("%.2f s", res.Stop.StillAfter)
	if !res.Stop.Turn && !math.IsNaN(res.Stop.Travel) {
		s += fmt.Sprintf(", %.1f cm", 100*res.Stop.Travel)
	}
	return s
}
