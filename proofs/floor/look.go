package floor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/target"
)

// LookReport is `stopproof floor look`: what the seed's look printed, plus the odometry's health.
type LookReport struct {
	Target    string            `json:"target"`
	State     json.RawMessage   `json:"state,omitempty"`
	StateLine string            `json:"state_line"`
	BatteryV  *float64          `json:"battery_v"`
	Plugged   bool              `json:"plugged"`
	Beams     int               `json:"beams"`
	Valid     int               `json:"valid"`
	Buckets   []odometry.Bucket `json:"buckets"`
	// The odometry over the look: scans, estimates, errors, degenerate estimates, the weakest bearing when
	// degenerate, and how far the pose wandered (a still robot: the noise).
	Scans      int     `json:"scans"`
	Estimates  int     `json:"estimates"`
	Errors     int     `json:"errors"`
	LastError  string  `json:"last_error,omitempty"`
	Degenerate int     `json:"degenerate"`
	WeakDeg    float64 `json:"weak_bearing_deg"`
	SpreadMM   float64 `json:"spread_mm"`
	// OK: a state was read, the charger is unplugged, and the odometry measured (the floor proof would run).
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
}

// Look reads the driver's state and d of scans (2 s in the seed's spirit), runs the odometry over them and
// prints the seed's look lines: state, battery, plug state, the LiDAR's coverage per 30 degree bearing and
// the odometry's health. It sends nothing.
// t is a target.Target, or anything that describes and reads the state (and streams scans: ScanFollower).
func Look(ctx context.Context, t interface {
	target.Describer
	target.StateReader
}, d time.Duration, out io.Writer) (*LookReport, error) {
	if out == nil {
		out = io.Discard
	}
	rep := &LookReport{Target: t.Describe(), WeakDeg: math.NaN(), SpreadMM: math.NaN()}
	fmt.Fprintf(out, "target: %s\n", rep.Target)
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	st, err := t.State(qctx)
	cancel()
	if err != nil {
		rep.Reason = fmt.Sprintf("no driver state: %v", err)
		fmt.Fprintln(out, rep.Reason)
		return rep, nil
	}
	rep.State, rep.StateLine, rep.Plugged = st.Raw, st.Short(), st.Plugged
	var raw struct {
		BatteryMV int `json:"battery_mv"`
	}
	if json.Unmarshal(st.Raw, &raw) == nil && raw.BatteryMV > 0 {
		v := float64(raw.BatteryMV) / 1000
		rep.BatteryV = &v
	}
	fmt.Fprintf(out, "state %s\n", st.Short())
	bat := "unknown"
	if rep.BatteryV != nil {
		bat = fmt.Sprintf("%.3f V", *rep.BatteryV)
	}
	fmt.Fprintf(out, "battery %s | plugged %v\n", bat, st.Plugged)
	sf, ok := t.(target.ScanFollower)
	if !ok {
		rep.Reason = "the target streams no LiDAR scans"
		fmt.Fprintln(out, rep.Reason)
		return rep, nil
	}
	odo, err := newOdometer()
	if err != nil {
		return nil, err
	}
	t0 := clock.Real{}.Now() // the scans' zero: Look runs against a running driver, whose scans are stamped on the wall clock
	lctx, lcancel := context.WithTimeout(ctx, d)
	defer lcancel()
	ferr := sf.FollowScans(lctx, func(s target.ScanSample) error {
		odo.add(s.At.Sub(t0).Seconds(), s.Scan)
		return nil
	})
	if ferr != nil && lctx.Err() == nil {
		rep.LastError = ferr.Error()
	}
	rep.Scans, rep.Estimates, rep.Errors = odo.scans, len(odo.ests), odo.errs
	if rep.LastError == "" {
		rep.LastError = odo.lastErr
	}
	for _, b := range odo.beams {
		rep.Beams++
		if b.Valid {
			rep.Valid++
		}
	}
	share := 0.0
	if rep.Beams > 0 {
		share = float64(rep.Valid) / float64(rep.Beams)
	}
	fmt.Fprintf(out, "LiDAR beams %d, valid %.0f %%\n", rep.Beams, 100*share)
	rep.Buckets = odometry.Coverage(odo.beams, 30)
	for _, b := range rep.Buckets {
		near := "nan"
		if !math.IsNaN(b.Nearest) {
			near = fmt.Sprintf("%.2f", b.Nearest)
		}
		fmt.Fprintf(out, "bearing %+4.0f deg: valid %3d/%3d nearest %s m\n", b.Deg, b.Valid, b.Total, near)
	}
	var xs, ys []float64
	for _, e := range odo.ests {
		xs, ys = append(xs, e.E.Pose.X), append(ys, e.E.Pose.Y)
		if e.E.Degenerate {
			rep.Degenerate++
			rep.WeakDeg = wholeDeg(e.E.WeakBearingDeg())
		}
	}
	if len(xs) > 0 {
		rep.SpreadMM = 1000 * math.Hypot(spread(xs), spread(ys))
	}
	health := fmt.Sprintf("odometry: %d scans, %d estimates, %d errors, %d degenerate", rep.Scans, rep.Estimates, rep.Errors, rep.Degenerate)
	if rep.Degenerate > 0 {
		health += fmt.Sprintf(" (weakest bearing %.0f deg: motion along it is not measured)", rep.WeakDeg)
	}
	if !math.IsNaN(rep.SpreadMM) {
		health += fmt.Sprintf(", pose spread %.1f mm", rep.SpreadMM)
	}
	if rep.LastError != "" {
		health += "; last error: " + rep.LastError
	}
	fmt.Fprintln(out, health)
	switch {
	case st.Plugged:
		rep.Reason = "plugged in: the floor proof will not drive"
	case rep.Estimates == 0:
		rep.Reason = "no measured odometry: the floor proof will not drive"
	default:
		rep.OK = true
	}
	if rep.Reason != "" {
		fmt.Fprintln(out, rep.Reason)
	}
	return rep, nil
}

func spread(v []float64) float64 {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi - lo
}

// MarshalJSON writes the NaN numbers as null.
func (l LookReport) MarshalJSON() ([]byte, error) {
	type alias LookReport
	return json.Marshal(struct {
		alias
		WeakDeg  *float64 `json:"weak_bearing_deg"`
		SpreadMM *float64 `json:"spread_mm"`
	}{alias(l), odometry.Num(l.WeakDeg), odometry.Num(l.SpreadMM)})
}

// wholeDeg rounds degrees to a whole number without a negative zero ("-0 deg").
func wholeDeg(d float64) float64 { return math.Round(d) + 0 }
