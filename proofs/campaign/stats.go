package campaign

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultC is the confidence a plan that gives only n is reported at.
const DefaultC = 0.95

// SuccessRunN is the number of consecutive successes that show a success probability of at least r with
// confidence c (ASTM's A-UGV test methods; the success-run theorem): the smallest n with r^n <= 1-c,
// ceil(ln(1-c)/ln r). 0.95, 0.95 -> 59; 0.90, 0.90 -> 22; 0.8, 0.8 -> 8. 0 when r or c is outside (0, 1).
func SuccessRunN(r, c float64) int {
	if !(r > 0 && r < 1 && c > 0 && c < 1) {
		return 0
	}
	x := math.Log(1-c) / math.Log(r)
	// ln's rounding must not turn an exact n (r = 0.5, c = 0.75: 2) into n+1.
	n := math.Ceil(x - 1e-9*math.Max(1, x))
	return int(math.Max(n, 1))
}

// ShownR is the success probability that n successes in n runs show at confidence c: the largest r with
// r^n <= 1-c, (1-c)^(1/n).
func ShownR(n int, c float64) float64 {
	if n < 1 || !(c > 0 && c < 1) {
		return math.NaN()
	}
	return math.Pow(1-c, 1/float64(n))
}

// BinomCDF is P(X <= k) for X binomial with n trials of probability p.
func BinomCDF(k, n int, p float64) float64 {
	return distuv.Binomial{N: float64(n), P: p}.CDF(float64(k))
}

// BoundConfidence is the confidence with which the k-th largest of n independent runs (k = 1: the maximum)
// is at or above the p-quantile of the runs' distribution (a continuous one): the k-th largest lies below
// the p-quantile only when at most k-1 runs lie above it, so the confidence is P(Bin(n, 1-p) >= k) =
// P(Bin(n, p) <= n-k) = BinomCDF(n-k; n, p). The maximum of 59 bounds the 95th percentile at 1 - 0.95^59 =
// 95.15 %; the maximum of 8 the 80th at 1 - 0.8^8 = 83.2 %.
func BoundConfidence(n, k int, p float64) float64 {
	if k < 1 || k > n {
		return 0
	}
	return BinomCDF(n-k, n, p)
}

// BoundOrder picks the tightest order statistic that bounds the p-quantile with confidence c for n runs: the
// largest k whose BoundConfidence(n, k, p) >= c, and that confidence. k = 0 when even the maximum does not
// reach c (too few runs).
func BoundOrder(n int, p, c float64) (k int, conf float64) {
	for j := 1; j <= n; j++ {
		cj := BoundConfidence(n, j, p)
		if cj < c-1e-12 {
			break
		}
		k, conf = j, cj
	}
	return k, conf
}

// Num is a number that JSON can carry when it is not finite: NaN (no value) is null, and the infinities
// (a run that never stopped makes a worst case infinite) are the strings "inf" and "-inf".
type Num float64

// MarshalJSON writes null for NaN and "inf" / "-inf" for the infinities.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return []byte("null"), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return json.Marshal(f)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (x *Num) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*x = Num(math.Inf(1))
		return nil
	case `"-inf"`:
		*x = Num(math.Inf(-1))
		return nil
	}
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*x = Num(nanIfNull(p))
	return nil
}

// Dist is one measured quantity (time to still, or travel) over a cell's counted runs.
type Dist struct {
	Unit string `json:"unit"` // "s" or "m"
	// Values is the number of counted runs with a value; Missing those without one (never still, no travel
	// measured): such a run ranks above every value (infinitely bad) in Worst and Bound.
	Values  int `json:"values"`
	Missing int `json:"missing"`
	// Min, Median, Mean, SD (sample), P95 and Max are over the values (empirical quantiles: the smallest
	// value with at least that fraction of the values at or below it).
	Min    Num `json:"min"`
	Median Num `json:"median"`
	Mean   Num `json:"mean"`
	SD     Num `json:"sd"`
	P95    Num `json:"p95"`
	Max    Num `json:"max"`
	// Worst is the worst counted run (+Inf, "inf" in JSON, when one has no value); Bound the order statistic
	// the cell's BoundK names (NaN when there is none).
	Worst       Num `json:"worst"`
	Bound       Num `json:"bound"`
	Requirement Num `json:"requirement"`
	// MarginBound = Requirement - Bound, MarginWorst = Requirement - Worst: negative is past the requirement.
	MarginBound Num `json:"margin_bound"`
	MarginWorst Num `json:"margin_worst"`
	// Resolution is how finely a value is known (the runs' largest stated resolution).
	Resolution Num `json:"resolution"`
}

// RunRef names one run in a cell's findings.
type RunRef struct {
	Seq     int    `json:"seq"`
	Rep     int    `json:"rep"`
	Outcome string `json:"outcome"`
	Why     string `json:"why,omitempty"`
	File    string `json:"file"` // the record, relative to the report's folder when one is given
}

// CellResult is what a cell's runs show.
type CellResult struct {
	ID   string `json:"id"`
	Cell Cell   `json:"cell"`
	// Planned is the plan's n; N the counted runs (CUT excluded); Cut the CUT records (kept, never counted).
	Planned int `json:"planned"`
	N       int `json:"n"`
	Cut     int `json:"cut"`
	// Failures are counted runs that are not successes: a run succeeds when its judge passed it, the wheels
	// did not move again after the stop, and its time to still (and travel, when required) is within the
	// requirement.
	Failures int      `json:"failures"`
	Failed   []RunRef `json:"failed,omitempty"`
	// Restarts are counted runs in which the wheels moved again after the stop (NoRestart false).
	Restarts   int   `json:"restarts"`
	RestartRun []int `json:"restart_runs,omitempty"`
	// Holes are counted runs whose quiet after the stop was broken by a hole in the IMU data, not by vibration
	// (Run.IMUHole): failures for want of evidence, not restarts.
	Holes    int   `json:"imu_holes,omitempty"`
	HoleRuns []int `json:"imu_hole_runs,omitempty"`
	Still    Dist  `json:"still"`
	Travel   *Dist `json:"travel,omitempty"`
	// The tolerance bound: the BoundK-th largest value bounds the BoundP-quantile with confidence BoundConf
	// (BoundK = 0: no order statistic reaches the plan's C for this n).
	BoundK    int     `json:"bound_k"`
	BoundP    float64 `json:"bound_p"`
	BoundConf float64 `json:"bound_confidence"`
	BoundText string  `json:"bound_text"`
	// The success-run claim: R at C, and whether the runs make it; Claim is the statement or why not.
	ClaimR     float64 `json:"claim_r"`
	ClaimC     float64 `json:"claim_c"`
	ClaimHolds bool    `json:"claim_holds"`
	Claim      string  `json:"claim"`
	// Verdict is PASS only when the claim holds (every planned run counted and a success: no failure, no
	// restart) and every bound is within its requirement. Reasons says why not, or the notes on a pass.
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// Analyze states each cell's statistics, claim, bound and verdict, in the plan's order.
func Analyze(c *Campaign) []CellResult {
	planned := c.Plan.runsPerCell()
	claimC := c.Plan.C
	if claimC == 0 {
		claimC = DefaultC
	}
	claimR := c.Plan.R
	if claimR == 0 || c.Plan.N > 0 && c.Plan.R > 0 && SuccessRunN(c.Plan.R, claimC) > c.Plan.N {
		// n alone (or an n too small for the stated R): the claim is the R that n runs show at C.
		claimR = ShownR(planned, claimC)
	}
	var out []CellResult
	for _, cell := range c.Plan.Cells {
		id := cell.ID()
		var runs []FiledRun
		cut := 0
		for _, r := range c.Records {
			if r.Cell != id {
				continue
			}
			if r.Outcome == Cut {
				cut++
				continue
			}
			runs = append(runs, r)
		}
		out = append(out, analyzeCell(cell, id, runs, cut, planned, claimR, claimC))
	}
	return out
}

func analyzeCell(cell Cell, id string, runs []FiledRun, cut, planned int, claimR, claimC float64) CellResult {
	res := CellResult{ID: id, Cell: cell, Planned: planned, N: len(runs), Cut: cut, ClaimR: claimR, ClaimC: claimC}
	travel := cell.MaxTravelM > 0
	for _, r := range runs {
		if !math.IsNaN(r.TravelM) {
			travel = true
		}
	}
	var still, trav []float64
	var resS, resM float64
	for _, r := range runs {
		still = append(still, r.StillS)
		trav = append(trav, r.TravelM)
		resS, resM = math.Max(resS, r.Conditions.ResolutionS), math.Max(resM, r.Conditions.ResolutionM)
		var why []string
		if r.Outcome != Pass {
			w := r.Outcome
			if r.Reason != "" {
				w += " (" + r.Reason + ")"
			}
			why = append(why, w)
		}
		if r.Outcome == Pass && r.EvidenceLost != "" { // the runner fails such a run; a record that says PASS is not believed
			why = append(why, "its evidence was not kept ("+r.EvidenceLost+")")
		}
		switch {
		case r.IMUHole: // implies !r.NoRestart
			res.Holes++
			res.HoleRuns = append(res.HoleRuns, r.Seq)
			why = append(why, "a hole in the IMU data broke the quiet after the stop (no restart cannot be shown)")
		case !r.NoRestart:
			res.Restarts++
			res.RestartRun = append(res.RestartRun, r.Seq)
			why = append(why, "the wheels moved again after the stop")
		}
		switch {
		case cell.Hold(): // success is no motion (NoRestart above); a hold has no time to still
		case math.IsNaN(r.StillS):
			if r.Outcome == Pass {
				why = append(why, "no time to still recorded")
			}
		case r.StillS > cell.MaxStillS:
			why = append(why, fmt.Sprintf("still after %s s > %s s required", fmtNum(r.StillS), fmtNum(cell.MaxStillS)))
		}
		if cell.MaxTravelM > 0 {
			switch {
			case math.IsNaN(r.TravelM):
				if r.Outcome == Pass {
					why = append(why, "no travel recorded")
				}
			case r.TravelM > cell.MaxTravelM:
				why = append(why, fmt.Sprintf("travelled %s m > %s m allowed", fmtNum(r.TravelM), fmtNum(cell.MaxTravelM)))
			}
		}
		if len(why) > 0 {
			res.Failures++
			res.Failed = append(res.Failed, RunRef{Seq: r.Seq, Rep: r.Rep, Outcome: r.Outcome, Why: strings.Join(why, "; "), File: r.File})
		}
	}
	res.BoundP = claimR
	res.BoundK, res.BoundConf = BoundOrder(res.N, claimR, claimC)
	if cell.Hold() {
		// A hold has no time to still: its requirement is no motion (the runs' NoRestart); no distribution.
		res.Still = dist("s", nil, res.BoundK, math.NaN(), resS)
	} else {
		res.Still = dist("s", still, res.BoundK, cell.MaxStillS, resS)
	}
	if travel {
		req := math.NaN()
		if cell.MaxTravelM > 0 {
			req = cell.MaxTravelM
		}
		d := dist("m", trav, res.BoundK, req, resM)
		res.Travel = &d
	}
	res.BoundText = boundText(res.N, res.BoundK, res.BoundP, res.BoundConf, claimC)

	// The claim.
	switch {
	case res.N == 0:
		res.Claim = fmt.Sprintf("cannot be made: no run counted yet (%d planned)", planned)
	case res.Failures > 0:
		res.Claim = fmt.Sprintf("cannot be made: %d of %d runs did not succeed (%s); a success-run claim needs every run to succeed", res.Failures, res.N, seqList(res.Failed))
	case res.N < planned:
		res.Claim = fmt.Sprintf("cannot be made: %d of the %d runs done; %d successes show R >= %s at %s confidence", res.N, planned, res.N, fmtP(ShownR(res.N, claimC)), pct(claimC))
	default:
		res.ClaimHolds = true
		res.Claim = fmt.Sprintf("R >= %s at %s confidence: %d of %d", fmtP(claimR), pct(claimC), res.N, res.N)
	}

	// The verdict.
	if !res.ClaimHolds {
		res.Reasons = append(res.Reasons, "the claim "+res.Claim)
	}
	if res.Holes > 0 {
		res.Reasons = append(res.Reasons, fmt.Sprintf("evidence: a hole in the IMU data broke the quiet after the stop in %d of %d runs (%s); no vibration was measured there, but no data is never evidence of stillness", res.Holes, res.N, ints(res.HoleRuns)))
	}
	if res.Restarts > 0 {
		res.Reasons = append(res.Reasons, fmt.Sprintf("restart: the wheels moved again after the stop in %d of %d runs (%s)", res.Restarts, res.N, ints(res.RestartRun)))
	} else if res.N > 0 && res.Holes == 0 && cell.Hold() {
		res.Notes = append(res.Notes, fmt.Sprintf("no motion without a deliberate act: the wheels stayed still through the hold while commands kept coming, then resumed through the ramp, in all %d runs", res.N))
	} else if res.N > 0 && res.Holes == 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("no restart: the wheels stayed still after the stop while commands kept coming in all %d runs", res.N))
	}
	for _, d := range []*Dist{&res.Still, res.Travel} {
		if d == nil || math.IsNaN(float64(d.Requirement)) {
			continue
		}
		what := "time to still"
		if d.Unit == "m" {
			what = "travel"
		}
		switch {
		case res.BoundK == 0:
			res.Reasons = append(res.Reasons, fmt.Sprintf("%s: no tolerance bound (%s)", what, res.BoundText))
		case !(d.Bound <= d.Requirement):
			res.Reasons = append(res.Reasons, fmt.Sprintf("%s: the bound %s is past the requirement %s", what, withUnit(d.Bound, d.Unit), withUnit(d.Requirement, d.Unit)))
		case float64(d.MarginBound) < float64(d.Resolution):
			res.Notes = append(res.Notes, fmt.Sprintf("%s: the margin %s %s is less than the measurement's resolution %s %s", what, fmtNum(float64(d.MarginBound)), d.Unit, fmtNum(float64(d.Resolution)), d.Unit))
		}
	}
	res.Verdict = Pass
	if len(res.Reasons) > 0 {
		res.Verdict = Fail
	}
	return res
}

// dist summarizes values (NaN = missing) with the k-th largest as the bound.
func dist(unit string, vals []float64, k int, req, res float64) Dist {
	d := Dist{Unit: unit, Requirement: Num(req), Resolution: Num(res)}
	var fin []float64
	all := make([]float64, 0, len(vals))
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			d.Missing++
			all = append(all, math.Inf(1))
			continue
		}
		fin = append(fin, v)
		all = append(all, v)
	}
	sort.Float64s(fin)
	sort.Float64s(all)

	d.Values = len(fin)
	nan := Num(math.NaN())
	d.Min, d.Median, d.Mean, d.SD, d.P95, d.Max, d.Worst, d.Bound = nan, nan, nan, nan, nan, nan, nan, nan
	if len(fin) > 0 {
		d.Min, d.Max = Num(fin[0]), Num(fin[len(fin)-1])
		d.Median = Num(stat.Quantile(0.5, stat.Empirical, fin, nil))
		d.P95 = Num(stat.Quantile(0.95, stat.Empirical, fin, nil))
		d.Mean = Num(stat.Mean(fin, nil))
		if len(fin) > 1 {
			d.SD = Num(stat.StdDev(fin, nil))
		}
	}
	if len(all) > 0 {
		d.Worst = Num(all[len(all)-1])
	}
	if k >= 1 && k <= len(all) {
		d.Bound = Num(all[len(all)-k])
	}
	d.MarginBound = Num(req - float64(d.Bound))
	d.MarginWorst = Num(req - float64(d.Worst))
	return d
}

// boundText says which order statistic bounds which quantile at which confidence, or why none does.
func boundText(n, k int, p, conf, c float64) string {
	if n == 0 {
		return "no runs"
	}
	if k == 0 {
		return fmt.Sprintf("with %d runs no order statistic bounds the %s percentile at %s confidence: the maximum bounds it at %s, or the %s percentile at %s",
			n, ordinalPct(p), pct(c), pct(BoundConfidence(n, 1, p)), ordinalPct(ShownR(n, c)), pct(c))
	}
	return fmt.Sprintf("the %s of %d runs bounds the %s percentile at %s confidence", orderName(k), n, ordinalPct(p), pct(conf))
}

// orderName: 1 -> "maximum", 2 -> "2nd largest", ...
func orderName(k int) string {
	if k == 1 {
		return "maximum"
	}
	return ordinal(k) + " largest"
}

func ordinal(k int) string {
	suf := "th"
	if k%100 < 11 || k%100 > 13 {
		switch k % 10 {
		case 1:
			suf = "st"
		case 2:
			suf = "nd"
		case 3:
			suf = "rd"
		}
	}
	return strconv.Itoa(k) + suf
}

// ordinalPct: 0.95 -> "95th", 0.928 -> "92.8th".
func ordinalPct(p float64) string {
	x := math.Floor(p*1000+1e-9) / 10 // rounded down: never claim a higher quantile than shown
	if x == math.Trunc(x) {
		return ordinal(int(x))
	}
	return strconv.FormatFloat(x, 'f', 1, 64) + "th"
}

// pct: 0.95 -> "95 %", 0.9515 -> "95.2 %"; a confidence is rounded down.
func pct(p float64) string {
	x := math.Floor(p*1000+1e-9) / 10
	return strconv.FormatFloat(x, 'f', -1, 64) + " %"
}

// fmtP writes a probability rounded down to three decimals (never claiming more than shown).
func fmtP(p float64) string {
	x := math.Floor(p*1000+1e-9) / 1000
	return strconv.FormatFloat(x, 'f', -1, 64)
}

func fmtNum(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "never"
	case math.IsInf(x, -1):
		return "none (a run never still)"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func seqList(rs []RunRef) string {
	var s []string
	for _, r := range rs {
		s = append(s, strconv.Itoa(r.Seq))
	}
	return "runs " + strings.Join(s, ", ")
}

func ints(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return "runs " + strings.Join(s, ", ")
}
