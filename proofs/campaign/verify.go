package campaign

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// SummaryKind marks a verification report's JSON (stopproof report --history reads it back).
const SummaryKind = "rosorin.campaign.summary"

// Summary is the verification report: what a campaign's runs show, cell by cell, with the method, the
// conditions and every run. Its JSON is the report's --json and what the stop-performance monitor reads.
type Summary struct {
	Kind    string    `json:"kind"`
	Version int       `json:"version"`
	Name    string    `json:"name"`
	Proof   string    `json:"proof"`
	Folders []string  `json:"folders"`
	Plan    Plan      `json:"plan"`
	Start   time.Time `json:"start"` // the first run's start
	End     time.Time `json:"end"`   // the last run's end
	// Verdict is PASS when every cell passes.
	Verdict    string            `json:"verdict"`
	Method     Method            `json:"method"`
	Cells      []CellResult      `json:"cells"`
	Conditions ConditionsSummary `json:"conditions"`
	// Cut are the CUT records: kept on record, never counted.
	Cut  []RunLink `json:"cut,omitempty"`
	Runs []RunLink `json:"runs"`
}

// Method states the claim's basis and its limits.
type Method struct {
	R       float64  `json:"r"`
	C       float64  `json:"c"`
	N       int      `json:"n"`
	Basis   string   `json:"basis"`
	Success string   `json:"success"`
	Says    string   `json:"says"`
	Limits  []string `json:"limits"`
	Bound   string   `json:"bound"`
}

// RunLink is one run in the report, with links to its record and evidence (relative to the report's folder).
type RunLink struct {
	Seq       int       `json:"seq"`
	Cell      string    `json:"cell"`
	Rep       int       `json:"rep"`
	Outcome   string    `json:"outcome"`
	Reason    string    `json:"reason,omitempty"`
	StillS    Num       `json:"still_s"`
	TravelM   Num       `json:"travel_m"`
	NoRestart bool      `json:"no_restart"`
	Start     time.Time `json:"start"`
	Shard     string    `json:"shard,omitempty"`
	Worker    int       `json:"worker"`
	Record    string    `json:"record"`
	Evidence  string    `json:"evidence,omitempty"`
	MCAP      string    `json:"mcap,omitempty"`
	// Absent names the linked files that were not found when the report was made.
	Absent []string `json:"absent,omitempty"`
	// Success: the run counts as a success of its cell.
	Success bool `json:"success"`
}

// ConditionsSummary is the conditions on record: the plan's stated ones and the runs' measured ones.
type ConditionsSummary struct {
	Stated      Conditions          `json:"stated"`
	Hosts       []string            `json:"hosts"` // "name (n runs)"
	Configs     []string            `json:"configs"`
	Versions    []string            `json:"versions"`
	Targets     []string            `json:"targets"`
	BatteryV    [4]Num              `json:"battery_v"` // before: min, max; after: min, max
	Charger     int                 `json:"charger"`   // runs on the charger
	Runs        int                 `json:"runs"`      // run records (CUT ones included)
	SessionS    [2]Num              `json:"session_s"` // min, max
	Thresholds  map[string][]string `json:"thresholds"`
	ResolutionS []string            `json:"resolution_s"`
	ResolutionM []string            `json:"resolution_m,omitempty"`
	Shards      []string            `json:"shards,omitempty"`
	Workers     int                 `json:"workers"`
	Warnings    []string            `json:"warnings,omitempty"`
}

// Summarize makes the verification report of a loaded campaign. linkDir is the folder the report will be
// written to: links to records and evidence are made relative to it ("" = the current folder).
func Summarize(c *Campaign, linkDir string) *Summary {
	s := &Summary{Kind: SummaryKind, Version: Version, Name: c.Plan.Name, Proof: c.Plan.Proof, Plan: c.Plan}
	for _, f := range c.Folders {
		s.Folders = append(s.Folders, link(linkDir, f, "."))
	}
	s.Cells = Analyze(c)
	s.Verdict = Pass
	for _, cr := range s.Cells {
		if cr.Verdict != Pass {
			s.Verdict = Fail
		}
	}
	if len(s.Cells) > 0 {
		cr := s.Cells[0]
		s.Method = method(cr.ClaimR, cr.ClaimC, cr.Planned, c.Plan)
	}
	failed := map[int]bool{}
	for _, cr := range s.Cells {
		for _, f := range cr.Failed {
			failed[f.Seq] = true
		}
	}
	for _, r := range c.Records {
		l := RunLink{Seq: r.Seq, Cell: r.Cell, Rep: r.Rep, Outcome: r.Outcome, Reason: r.Reason, StillS: Num(r.StillS),
			TravelM: Num(r.TravelM), NoRestart: r.NoRestart, Start: r.Start, Shard: r.Shard, Worker: r.Worker,
			Record: link(linkDir, r.Folder, r.File)}
		l.Success = r.Outcome != Cut && !failed[r.Seq]
		for _, ev := range []struct {
			rel string
			to  *string
		}{{r.Evidence, &l.Evidence}, {r.MCAP, &l.MCAP}} {
			if ev.rel == "" {
				continue
			}
			*ev.to = link(linkDir, r.Folder, ev.rel)
			if _, err := os.Stat(filepath.Join(r.Folder, filepath.FromSlash(ev.rel))); err != nil {
				l.Absent = append(l.Absent, ev.rel)
			}
		}
		if r.Outcome == Cut {
			s.Cut = append(s.Cut, l)
		} else {
			s.Runs = append(s.Runs, l)
		}
		if s.Start.IsZero() || !r.Start.IsZero() && r.Start.Before(s.Start) {
			s.Start = r.Start
		}
		if r.End.After(s.End) {
			s.End = r.End
		}
	}
	for i := range s.Cells {
		for j := range s.Cells[i].Failed {
			f := &s.Cells[i].Failed[j]
			for _, r := range c.Records {
				if r.Seq == f.Seq && r.Outcome != Cut {
					f.File = link(linkDir, r.Folder, r.File)
				}
			}
		}
	}
	s.Conditions = conditions(c)
	return s
}

// link makes folder/rel relative to linkDir, with slashes (a URL path).
func link(linkDir, folder, rel string) string {
	p := filepath.Join(folder, filepath.FromSlash(rel))
	if linkDir == "" {
		linkDir = "."
	}
	ap, err1 := filepath.Abs(p)
	ab, err2 := filepath.Abs(linkDir)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(ab, ap); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

func method(r, c float64, n int, p Plan) Method {
	m := Method{R: r, C: c, N: n}
	if p.N > 0 && p.R == 0 {
		m.Basis = fmt.Sprintf("success-run (ASTM's A-UGV test methods; the success-run theorem): the plan gives n = %d runs a cell; n successes in n runs show R >= (1-C)^(1/n) = %s at C = %s", n, fmtP(r), pct(c))
	} else {
		m.Basis = fmt.Sprintf("success-run (ASTM's A-UGV test methods; the success-run theorem): n = ceil(ln(1-C)/ln R) = %d consecutive successes a cell show a success probability of at least R = %s with confidence C = %s", n, fmtP(r), pct(c))
	}
	m.Success = "a run succeeds when its judge passed it (the wheels physically still, from the IMU on the stand or the LiDAR on the floor), the wheels did not move again after the stop while commands kept coming (no restart, ISO 3691-4), and its time to still (and on the floor its travel) is within the cell's requirement; a run cut by power loss or a kill (CUT) is never a success and never one of the n"
	m.Says = fmt.Sprintf("if the runs are independent and alike (the same robot, path, speed and conditions as recorded here), each such stop succeeds with a probability of at least %s, with %s confidence: a robot whose true success probability were below %s would pass all %d runs with a probability of at most %s", fmtP(r), pct(c), fmtP(r), n, pct(1-c))
	m.Limits = []string{
		"It does not say the robot never fails: about 1 stop in " + strconv.Itoa(int(math.Round(1/(1-r)))) + " may still fail within what the claim allows.",
		"It says nothing about conditions not tested: other floors, loads, gradients, speeds, battery levels, temperatures, wear, or another robot or configuration.",
		"It needs the runs to be independent: drift over the session (warming motors, a draining battery) is spread over the cells by the randomized interleaving, not ruled out; the session times and battery range are on record below.",
		"One failure voids the claim; it is not \"a little less than R\". Running more after a failure and counting only the later successes is not a success run.",
		"A time to still is measured, not exact: see the measurement's resolution under the conditions; a margin smaller than it is within the measurement.",
	}
	m.Bound = "nonparametric upper tolerance bound: for any continuous distribution, the k-th largest of n independent runs lies at or above the distribution's p-quantile with confidence P(Bin(n, 1-p) >= k) = BinomCDF(n-k; n, p); the report picks the largest k (the tightest bound) whose confidence reaches C, with p = R. With 59 runs the maximum bounds the 95th percentile at 95.1 %; with 8 runs the 80th at 83.2 % (confidences rounded down). It bounds that quantile, not the worst that can ever happen; the worst run is shown beside it"
	return m
}

func conditions(c *Campaign) ConditionsSummary {
	cs := ConditionsSummary{Stated: c.Plan.Conditions, Thresholds: map[string][]string{}}
	count := func(vals []string) []string {
		n := map[string]int{}
		var order []string
		for _, v := range vals {
			if v == "" {
				v = "(not recorded)"
			}
			if n[v] == 0 {
				order = append(order, v)
			}
			n[v]++
		}
		var out []string
		for _, v := range order {
			out = append(out, fmt.Sprintf("%s (%d records)", v, n[v]))
		}
		return out
	}
	var hosts, cfgs, vers, tgts, shards []string
	nan := Num(math.NaN())
	cs.BatteryV = [4]Num{nan, nan, nan, nan}
	cs.SessionS = [2]Num{nan, nan}
	minmax := func(lo, hi *Num, v float64) {
		if math.IsNaN(float64(*lo)) || v < float64(*lo) {
			*lo = Num(v)
		}
		if math.IsNaN(float64(*hi)) || v > float64(*hi) {
			*hi = Num(v)
		}
	}
	th := map[string]map[string]bool{}
	resS, resM := map[string]bool{}, map[string]bool{}
	workers := map[string]bool{}
	seenShard := map[string]bool{}
	for _, r := range c.Records {
		rc := r.Conditions
		cs.Runs++
		hosts, cfgs, vers, tgts = append(hosts, rc.Host), append(cfgs, rc.ConfigSHA256), append(vers, rc.Version), append(tgts, rc.Target)
		if r.Shard != "" && !seenShard[r.Shard] {
			seenShard[r.Shard] = true
			shards = append(shards, r.Shard)
		}
		workers[r.Shard+"#"+strconv.Itoa(r.Worker)] = true
		minmax(&cs.BatteryV[0], &cs.BatteryV[1], rc.BatteryBeforeV)
		if r.Outcome != Cut {
			minmax(&cs.BatteryV[2], &cs.BatteryV[3], rc.BatteryAfterV)
		}
		if rc.Charger {
			cs.Charger++
		}
		minmax(&cs.SessionS[0], &cs.SessionS[1], rc.SessionS)
		for k, v := range rc.Thresholds {
			if th[k] == nil {
				th[k] = map[string]bool{}
			}
			th[k][strconv.FormatFloat(v, 'g', -1, 64)] = true
		}
		if rc.ResolutionS > 0 {
			s := strconv.FormatFloat(rc.ResolutionS, 'g', 3, 64) + " s"
			if hz := 1 / rc.ResolutionS; math.Abs(hz-math.Round(hz)) < 1e-6 && hz > 1 {
				s += fmt.Sprintf(" (1/%.0f s)", hz)
			}
			resS[s] = true
		}
		if rc.ResolutionM > 0 {
			resM[strconv.FormatFloat(rc.ResolutionM, 'g', 4, 64)+" m"] = true
		}
	}
	cs.Hosts, cs.Configs, cs.Versions, cs.Targets = count(hosts), count(cfgs), count(vers), count(tgts)
	sort.Strings(shards)
	cs.Shards, cs.Workers = shards, len(workers)
	for k, vs := range th {
		for v := range vs {
			cs.Thresholds[k] = append(cs.Thresholds[k], v)
		}
		sort.Strings(cs.Thresholds[k])
		if len(vs) > 1 {
			cs.Warnings = append(cs.Warnings, fmt.Sprintf("the judge's threshold %s changed during the campaign: %s", k, strings.Join(cs.Thresholds[k], ", ")))
		}
	}
	sort.Strings(cs.Warnings)
	for v := range resS {
		cs.ResolutionS = append(cs.ResolutionS, v)
	}
	for v := range resM {
		cs.ResolutionM = append(cs.ResolutionM, v)
	}
	sort.Strings(cs.ResolutionS)
	sort.Strings(cs.ResolutionM)
	if len(cs.Configs) > 1 {
		cs.Warnings = append(cs.Warnings, "the runs were not all made with one driver configuration: "+strings.Join(cs.Configs, ", "))
	}
	if len(cs.Versions) > 1 {
		cs.Warnings = append(cs.Warnings, "the runs were not all made with one toolkit version: "+strings.Join(cs.Versions, ", "))
	}
	if len(cs.Hosts) > 1 {
		cs.Warnings = append(cs.Warnings, "the runs were made on more than one host (shards or --parallel): "+strings.Join(cs.Hosts, ", "))
	}
	return cs
}

// JSON writes the summary as indented JSON.
func (s *Summary) JSON(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// ReadSummary reads a summary's JSON (as JSON writes it).
func ReadSummary(name string, b []byte) (*Summary, error) {
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: not a campaign summary: %w", name, err)
	}
	if s.Kind != SummaryKind {
		return nil, fmt.Errorf("%s: kind %q: not a campaign summary (stopproof report --campaign --json writes one)", name, s.Kind)
	}
	if s.Version > Version {
		return nil, fmt.Errorf("%s: summary version %d is newer than this stopproof's %d", name, s.Version, Version)
	}
	return &s, nil
}

// cellName is a cell as a person reads it: "estop forward 0.2 m/s".
func cellName(c Cell) string {
	d := c.Direction
	if d == "" {
		d = "forward"
	}
	unit := "m/s"
	if d == "turn" {
		unit = "rad/s"
	}
	return fmt.Sprintf("%s %s %s %s", c.Path, d, strconv.FormatFloat(c.Speed, 'f', -1, 64), unit)
}

// boundCol: "0.450 s (max, p80 @ 83.2 %)".
func boundCol(cr CellResult, d Dist) string {
	if cr.BoundK == 0 {
		return "none (too few runs)"
	}
	o := "max"
	if cr.BoundK > 1 {
		o = ordinal(cr.BoundK) + " largest"
	}
	return fmt.Sprintf("%s (%s, p%s @ %s)", withUnit(d.Bound, d.Unit), o, strings.TrimSuffix(ordinalPct(cr.BoundP), "th"), pct(cr.BoundConf))
}

func withUnit(x Num, unit string) string {
	s := fmtNum(float64(x))
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return s
	}
	return s + " " + unit
}

func (r RunLink) outcomeText() string {
	o := r.Outcome
	if r.Outcome == Pass && !r.Success {
		o = "PASS (not a success)"
	}
	if r.Reason != "" {
		o += ": " + r.Reason
	}
	return o
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func (s *Summary) passing() int {
	n := 0
	for _, c := range s.Cells {
		if c.Verdict == Pass {
			n++
		}
	}
	return n
}

// dists: the time to still, and the travel when the cell has one.
func (cr *CellResult) dists() []*Dist {
	d := []*Dist{&cr.Still}
	if cr.Travel != nil {
		d = append(d, cr.Travel)
	}
	return d
}

func (d *Dist) label() string {
	if d.Unit == "m" {
		return " (travel)"
	}
	return ""
}

func (d *Dist) what() string {
	if d.Unit == "m" {
		return "travel after the trigger (m)"
	}
	return "time to still (s)"
}

func (s *Summary) conditionRows() [][2]string {
	cs := s.Conditions
	st := cs.Stated
	rng := func(a, b Num, unit string) string {
		if math.IsNaN(float64(a)) {
			return "not recorded"
		}
		return fmt.Sprintf("%s to %s %s", strconv.FormatFloat(float64(a), 'f', 2, 64), strconv.FormatFloat(float64(b), 'f', 2, 64), unit)
	}
	var th []string
	for k, v := range cs.Thresholds {
		th = append(th, k+" = "+strings.Join(v, ", "))
	}
	sort.Strings(th)
	rows := [][2]string{
		{"stated: setup", st.Setup}, {"stated: surface", st.Surface}, {"stated: load", st.Load},
		{"stated: gradient", st.Gradient}, {"stated: operator", st.Operator},
	}
	if st.Notes != "" {
		rows = append(rows, [2]string{"stated: notes", st.Notes})
	}
	rows = append(rows,
		[2]string{"host", strings.Join(cs.Hosts, ", ")},
		[2]string{"driver config (sha256)", strings.Join(cs.Configs, ", ")},
		[2]string{"toolkit version", strings.Join(cs.Versions, ", ")},
		[2]string{"target", strings.Join(cs.Targets, ", ")},
		[2]string{"battery before a run", rng(cs.BatteryV[0], cs.BatteryV[1], "V")},
		[2]string{"battery after a run", rng(cs.BatteryV[2], cs.BatteryV[3], "V")},
		[2]string{"on the charger", fmt.Sprintf("%d of %d records", cs.Charger, cs.Runs)},
		[2]string{"session time at the run (cold to warm)", rng(cs.SessionS[0], cs.SessionS[1], "s")},
		[2]string{"judge thresholds", strings.Join(th, "; ")},
		[2]string{"resolution of a time to still", strings.Join(cs.ResolutionS, ", ")},
	)
	if len(cs.ResolutionM) > 0 {
		rows = append(rows, [2]string{"resolution of a travel", strings.Join(cs.ResolutionM, ", ")})
	}
	if len(cs.Shards) > 0 {
		rows = append(rows, [2]string{"shards merged", strings.Join(cs.Shards, ", ")})
	}
	rows = append(rows, [2]string{"robots (workers) used", strconv.Itoa(cs.Workers)},
		[2]string{"seed of the interleaving", strconv.FormatInt(s.Plan.Seed, 10)})
	return rows
}

// Table writes the terminal's summary: a line per cell (and per travel), each cell's claim, and RESULT.
func (s *Summary) Table(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tn\tfailures\tworst\tbound\trequirement\tmargin\tno restart\tverdict")
	for _, cr := range s.Cells {
		for _, d := range cr.dists() {
			fmt.Fprintf(tw, "%s%s\t%d/%d\t%d\t%s\t%s\t%s\t%s\t%d/%d\t%s\n", cellName(cr.Cell), d.label(), cr.N, cr.Planned, cr.Failures, withUnit(d.Worst, d.Unit),
				boundCol(cr, *d), withUnit(d.Requirement, d.Unit), withUnit(d.MarginBound, d.Unit), cr.N-cr.Restarts, cr.N, cr.Verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, cr := range s.Cells {
		fmt.Fprintf(w, "%s: %s\n", cellName(cr.Cell), cr.Claim)
		for _, r := range cr.Reasons {
			fmt.Fprintf(w, "  FAIL: %s\n", r)
		}
		for _, f := range cr.Failed {
			fmt.Fprintf(w, "  run %d (%s): %s\n", f.Seq, f.File, f.Why)
		}
	}
	if len(s.Cut) > 0 {
		fmt.Fprintf(w, "%d CUT runs kept on record, not counted\n", len(s.Cut))
	}
	_, err := fmt.Fprintf(w, "RESULT: %s (%d of %d cells pass)\n", s.Verdict, s.passing(), len(s.Cells))
	return err
}

// WriteSummary loads a campaign's folders (its shards merged), writes the summary table to w, and says
// whether every cell passed. The runner calls it at a campaign's end.
func WriteSummary(w io.Writer, folders ...string) (pass bool, err error) {
	c, err := LoadCampaign(folders...)
	if err != nil {
		return false, err
	}
	s := Summarize(c, "")
	if err := s.Table(w); err != nil {
		return false, err
	}
	return s.Verdict == Pass, nil
}
