package scanloss

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

const (
	// DefaultBackAge (s): a scan_age below this counts as scans flowing again (the seed's 0.3; the LiDAR
	// turns at ~10 Hz, so a live scan_age stays near 0.1).
	DefaultBackAge = 0.3
	// DefaultMinBackAfter (s): only observations later than this after the kill can show the scans back (the
	// seed's 1.0: the reader needs longer than that to be respawned, so an earlier young scan_age is a state
	// sent before the kill took effect).
	DefaultMinBackAfter = 1.0
)

// Observation is one driver state seen after the kill.
type Observation struct {
	T       float64  // seconds since the kill
	ScanAge *float64 // state.scan_age (s); nil when the state had none (no scan seen yet)
	Blocked string   // state.blocked, "" when nothing blocks
}

// Input is everything the runner saw.
type Input struct {
	Before        *float64      // state.scan_age in the last state before the kill; nil if none was seen
	Killed        []int         // the LiDAR reader pids that were sent SIGKILL
	Obs           []Observation // driver states after the kill, any order
	ReaderPIDsNow []int         // LiDAR reader pids running at the end of the watch
	ScanTimeout   float64       // the driver's scan_timeout (s), 0.5 on the robot; must be > 0
	BackAge       float64       // 0 means DefaultBackAge
	MinBackAfter  float64       // 0 means DefaultMinBackAfter
}

// Result is the verdict, shaped as the seed's JSON line plus "pass" and "reason".
type Result struct {
	ScanAgeBefore  *float64 `json:"scan_age_before"`
	KilledPIDs     []int    `json:"killed_pids"`
	WorstScanAge   *float64 `json:"worst_scan_age_s"`   // largest scan_age after the kill; nil if none
	ScansBackAfter *float64 `json:"scans_back_after_s"` // seconds after the kill; nil if never
	ReaderPIDsNow  []int    `json:"reader_pids_now"`
	StateBlocked   *string  `json:"state_blocked"` // the last state's blocked reason; nil if none
	Pass           bool     `json:"pass"`
	Reason         string   `json:"reason"`            // why not PASS; "" on PASS
	Dropped        int      `json:"dropped,omitempty"` // observations with a non-finite time or scan_age, skipped
}

// Judge decides the live scan-gate check. It never panics on bad input: non-finite times and ages are
// counted in Dropped and skipped, and missing data FAILs with the reason.
func Judge(in Input) Result {
	r := Result{ScanAgeBefore: finitePtr(in.Before), KilledPIDs: orEmpty(in.Killed), ReaderPIDsNow: orEmpty(in.ReaderPIDsNow)}
	backAge, minBack := in.BackAge, in.MinBackAfter
	if backAge == 0 {
		backAge = DefaultBackAge
	}
	if minBack == 0 {
		minBack = DefaultMinBackAfter
	}

	obs := make([]Observation, 0, len(in.Obs))
	for _, o := range in.Obs {
		switch {
		case !finite(o.T):
			r.Dropped++
			continue
		case o.ScanAge != nil && !finite(*o.ScanAge):
			r.Dropped++
			o.ScanAge = nil // the state still counts for state_blocked; its age does not
		}
		obs = append(obs, o)
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].T < obs[j].T })
	if len(obs) > 0 && obs[len(obs)-1].Blocked != "" {
		b := obs[len(obs)-1].Blocked
		r.StateBlocked = &b
	}

	stale := -1 // first observation after the kill with scan_age beyond scan_timeout
	for i, o := range obs {
		if o.T < 0 || o.ScanAge == nil {
			continue
		}
		a := *o.ScanAge
		if r.WorstScanAge == nil || a > *r.WorstScanAge {
			r.WorstScanAge = &a
		}
		if stale < 0 && finite(in.ScanTimeout) && a > in.ScanTimeout {
			stale = i
		}
	}
	if stale >= 0 {
		for _, o := range obs[stale+1:] {
			if o.ScanAge != nil && o.T > minBack && *o.ScanAge < backAge {
				t := o.T // not rounded: 1.004 rounded to 1.00 would read as failing the > 1 s rule it passed
				r.ScansBackAfter = &t
				break
			}
		}
	}

	still := -1 // a killed pid that still runs
	for _, p := range in.Killed {
		if slices.Contains(in.ReaderPIDsNow, p) {
			still = p
			break
		}
	}
	switch {
	case !finite(in.ScanTimeout) || in.ScanTimeout <= 0:
		r.Reason = fmt.Sprintf("scan_timeout %v: the driver's scan gate is off or unknown; pass the driver's scan_timeout (0.5 s on the robot)", in.ScanTimeout)
	case !finite(backAge) || backAge <= 0 || !finite(minBack) || minBack < 0:
		r.Reason = fmt.Sprintf("bad limits: back age %v s, back after %v s", backAge, minBack)
	case len(in.Killed) == 0:
		r.Reason = "no LiDAR reader was killed: nothing was tested (is the reader running? the seed looked for lib/rosorin_base/[l]idar_reader)"
	case r.ScanAgeBefore == nil:
		r.Reason = "no scan_age before the kill: the driver had not seen a scan, so a stale scan afterwards proves nothing"
	case *r.ScanAgeBefore > in.ScanTimeout:
		r.Reason = fmt.Sprintf("the scan was already stale before the kill (scan_age %.2f s > scan_timeout %.2f s): is the LiDAR publishing?",
			*r.ScanAgeBefore, in.ScanTimeout)
	case len(obs) == 0:
		r.Reason = "no driver state after the kill: is the driver running and publishing its state?"
	case r.WorstScanAge == nil:
		r.Reason = "the driver reported no scan_age after the kill"
	case stale < 0:
		r.Reason = fmt.Sprintf("the scan never went stale: worst scan_age %.2f s, not above scan_timeout %.2f s (did the kill take? does the driver watch /scan?)",
			*r.WorstScanAge, in.ScanTimeout)
	case r.ScansBackAfter == nil:
		r.Reason = fmt.Sprintf("scans did not come back by themselves: no scan_age below %.2f s after it went stale (%.2f s after the kill); was the reader respawned?",
			backAge, obs[stale].T)
	case len(in.ReaderPIDsNow) == 0:
		r.Reason = "no LiDAR reader runs now: the reader was not respawned"
	case still >= 0:
		r.Reason = fmt.Sprintf("killed reader pid %d still runs: the kill did not take, so the scans never really stopped", still)
	default:
		r.Pass = true
	}
	if !r.Pass && r.Dropped > 0 {
		r.Reason += fmt.Sprintf(" (%d observations with a non-finite time or scan_age skipped)", r.Dropped)
	}
	return r
}

// JSONLine is the seed's first output line (plus pass and reason).
func (r Result) JSONLine() string {
	b, err := json.Marshal(r)
	if err != nil { // cannot happen: every float in a Result is finite or nil
		return fmt.Sprintf(`{"error": %q}`, err.Error())
	}
	return string(b)
}

// Verdict is the seed's second output line: "PASS", or "FAIL: " and the reason.
func (r Result) Verdict() string {
	if r.Pass {
		return "PASS"
	}
	return "FAIL: " + r.Reason
}

// String is both lines, as the seed printed them.
func (r Result) String() string { return r.JSONLine() + "\n" + r.Verdict() }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// finitePtr copies *p, or returns nil when p is nil or not finite (JSON cannot carry NaN).
func finitePtr(p *float64) *float64 {
	if p == nil || !finite(*p) {
		return nil
	}
	v := *p
	return &v
}

// orEmpty keeps a pid list out of the JSON as [] rather than null, and copies it.
func orEmpty(p []int) []int {
	return append([]int{}, p...)
}
