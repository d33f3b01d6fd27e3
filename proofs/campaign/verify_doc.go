package campaign

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// Document is the verification report in the one report model: the verdict, the claim and its basis, the
// summary table, per cell the claim, the statistics and the ECDF plots (inline SVG), the conditions, the
// CUT runs, every run with links to its record and evidence, the assessment form, and the JUnit suite
// (JUnitOf). The renderers (Markdown, JUnit, HTML) write it.
func (s *Summary) Document() *reportdoc.Document { return s.document(true) }

// document is the Document, with the plots drawn or not (markdown leaves figures out: no need to draw them).
func (s *Summary) document(plots bool) *reportdoc.Document {
	T, st := reportdoc.T, status(s.Verdict)
	d := &reportdoc.Document{Title: "Verification report: " + s.Name, TestsName: "stopproof campaign", Suites: []reportdoc.Testsuite{s.suite()}}
	where := reportdoc.Text{{Text: fmt.Sprintf("%s proof; runs from %s to %s; campaign folders: ", s.Proof, stamp(s.Start), stamp(s.End))}}
	for i, f := range s.Folders {
		if i > 0 {
			where = append(where, reportdoc.Span{Text: ", "})
		}
		where = append(where, reportdoc.Code(f))
	}
	d.Blocks = []reportdoc.Block{
		reportdoc.Para{ID: "verdict", Box: true, Status: st, Text: T(fmt.Sprintf("%s: %d of %d cells pass", s.Verdict, s.passing(), len(s.Cells)))},
		reportdoc.Para{Text: append(where, reportdoc.Span{Text: "."})},
	}
	m := s.Method
	var limits []reportdoc.Text
	for _, l := range m.Limits {
		limits = append(limits, T(l))
	}
	d.Sections = append(d.Sections, reportdoc.Section{Title: T("The claim and its basis"), ID: "claim", Blocks: []reportdoc.Block{
		reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong(fmt.Sprintf("R = %s, C = %s, n = %d runs a cell.", fmtP(m.R), pct(m.C), m.N)), {Text: " Method: " + m.Basis + "."}}},
		reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong("A success:"), {Text: " " + m.Success + "."}}},
		reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong("What the claim says:"), {Text: " " + m.Says + "."}}},
		reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong("What it does not say:")}},
		reportdoc.List{Items: limits},
		reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong("The tolerance bound:"), {Text: " " + m.Bound + "."}}},
	}})

	sum := reportdoc.Table{ID: "summary", Header: []string{"cell", "n", "failures", "worst", "bound (order statistic, quantile @ confidence)", "requirement",
		"margin to the bound", "margin to the worst", "no restart", "verdict"}}
	for _, cr := range s.Cells {
		for _, dd := range cr.dists() {
			sum.Rows = append(sum.Rows, reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(cellName(cr.Cell) + dd.label()),
				reportdoc.NumC(fmt.Sprintf("%d of %d", cr.N, cr.Planned)), reportdoc.NumC(strconv.Itoa(cr.Failures)), reportdoc.NumC(withUnit(dd.Worst, dd.Unit)),
				reportdoc.C(boundCol(cr, *dd)), reportdoc.NumC(withUnit(dd.Requirement, dd.Unit)), reportdoc.NumC(withUnit(dd.MarginBound, dd.Unit)),
				reportdoc.NumC(withUnit(dd.MarginWorst, dd.Unit)), reportdoc.NumC(fmt.Sprintf("%d of %d", cr.N-cr.Restarts, cr.N)),
				{Text: T(cr.Verdict), Status: status(cr.Verdict)}}})
		}
	}
	d.Sections = append(d.Sections, reportdoc.Section{Title: T("Summary"), ID: "summary-h", Blocks: []reportdoc.Block{sum}})

	per := reportdoc.Section{Title: T("Per cell")}
	for _, cr := range s.Cells {
		per.Sections = append(per.Sections, s.cellSection(cr, plots))
	}
	d.Sections = append(d.Sections, per)

	conds := reportdoc.Table{ID: "conditions", RowHeads: true}
	for _, kv := range s.conditionRows() {
		conds.Rows = append(conds.Rows, reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(kv[0]), reportdoc.C(kv[1])}})
	}
	var warns []reportdoc.Text
	for _, w := range s.Conditions.Warnings {
		warns = append(warns, reportdoc.Text{reportdoc.Marked("WARNING: "+w, reportdoc.Fail)})
	}
	d.Sections = append(d.Sections, reportdoc.Section{Title: T("Conditions"), ID: "conditions-h", Blocks: []reportdoc.Block{conds, reportdoc.List{Items: warns}}})

	cut := reportdoc.Section{Title: T("CUT runs (never counted)"), ID: "cut"}
	if len(s.Cut) == 0 {
		cut.Blocks = append(cut.Blocks, reportdoc.Para{Text: T("None.")})
	} else {
		var items []reportdoc.Text
		for _, r := range s.Cut {
			items = append(items, reportdoc.Text{{Text: fmt.Sprintf("run %d, %s rep %d: %s (", r.Seq, r.Cell, r.Rep, r.Reason)}, reportdoc.Link("record", r.Record), {Text: ")"}})
		}
		cut.Blocks = append(cut.Blocks, reportdoc.List{Items: items})
	}
	d.Sections = append(d.Sections, cut)

	runs := reportdoc.Table{ID: "runs", Header: []string{"seq", "cell", "rep", "outcome", "time to still", "travel", "no restart", "start (UTC)", "shard / robot", "evidence"}}
	all := append(append([]RunLink{}, s.Runs...), s.Cut...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seq < all[j].Seq })
	for _, r := range all {
		noRestart := fmt.Sprint(r.NoRestart)
		if r.Outcome == Cut {
			noRestart = "-"
		}
		where := fmt.Sprintf("robot %d", r.Worker)
		if r.Shard != "" {
			where = "shard " + r.Shard + ", robot " + strconv.Itoa(r.Worker)
		}
		ev := reportdoc.Text{reportdoc.Link("record", r.Record)}
		if r.Evidence != "" {
			ev = append(ev, reportdoc.Span{Text: " "}, reportdoc.Link("log", r.Evidence))
		}
		if r.MCAP != "" {
			ev = append(ev, reportdoc.Span{Text: " "}, reportdoc.Link("mcap", r.MCAP))
		}
		if len(r.Absent) > 0 {
			ev = append(ev, reportdoc.Span{Text: " "}, reportdoc.Marked("ABSENT: "+strings.Join(r.Absent, ", "), reportdoc.Fail))
		}
		row := reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.NumC(strconv.Itoa(r.Seq)), reportdoc.C(r.Cell), reportdoc.NumC(strconv.Itoa(r.Rep)),
			reportdoc.C(r.outcomeText()), reportdoc.NumC(withUnit(r.StillS, "s")), reportdoc.NumC(withUnit(r.TravelM, "m")), reportdoc.C(noRestart),
			reportdoc.C(stamp(r.Start)), reportdoc.C(where), {Text: ev}}}
		if !r.Success {
			row.Status = reportdoc.Fail
		}
		runs.Rows = append(runs.Rows, row)
	}
	d.Sections = append(d.Sections, reportdoc.Section{Title: T("Runs"), ID: "runs-h", Blocks: []reportdoc.Block{runs}})

	d.Sections = append(d.Sections, reportdoc.Section{Title: T("Assessment"), ID: "sign", Blocks: []reportdoc.Block{
		reportdoc.Table{Form: true, RowHeads: true, Rows: []reportdoc.Row{{Cells: []reportdoc.Cell{reportdoc.C("assessed by"), reportdoc.C("")}},
			{Cells: []reportdoc.Cell{reportdoc.C("role"), reportdoc.C("")}}, {Cells: []reportdoc.Cell{reportdoc.C("date"), reportdoc.C("")}},
			{Cells: []reportdoc.Cell{reportdoc.C("signature"), reportdoc.C("")}}}},
		reportdoc.Para{Small: true, Text: T("Written by stopproof report --campaign from the campaign folders named above; every number in this report is in their run records.")},
	}})
	return d
}

// cellSection is one cell's part: its verdict, claim and bound, why it failed, its statistics and plots.
func (s *Summary) cellSection(cr CellResult, plots bool) reportdoc.Section {
	T := reportdoc.T
	sec := reportdoc.Section{Title: reportdoc.Text{{Text: cellName(cr.Cell) + ": "}, reportdoc.Marked(cr.Verdict, status(cr.Verdict))}, ID: "cell-" + cr.ID}
	items := []reportdoc.Text{{reportdoc.Strong("claim:"), {Text: " " + cr.Claim}}, {reportdoc.Strong("bound:"), {Text: " " + cr.BoundText}}}
	for _, r := range cr.Reasons {
		items = append(items, reportdoc.Text{reportdoc.Marked("FAIL: "+r, reportdoc.Fail)})
	}
	for _, n := range cr.Notes {
		items = append(items, T(n))
	}
	for _, f := range cr.Failed {
		items = append(items, reportdoc.Text{reportdoc.Link(fmt.Sprintf("run %d", f.Seq), f.File), {Text: fmt.Sprintf(" (rep %d, %s): %s", f.Rep, f.Outcome, f.Why)}})
	}
	if cr.Cut > 0 {
		items = append(items, T(fmt.Sprintf("%d CUT record(s): kept on record under the runs, not counted", cr.Cut)))
	}
	stats := reportdoc.Table{Header: []string{"", "min", "median", "mean", "sd", "p95", "max", "values", "without"}}
	var figs []reportdoc.Block
	for _, d := range cr.dists() {
		row := reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(d.what())}}
		for _, x := range []Num{d.Min, d.Median, d.Mean, d.SD, d.P95, d.Max} {
			row.Cells = append(row.Cells, reportdoc.NumC(fmtNum(float64(x))))
		}
		row.Cells = append(row.Cells, reportdoc.NumC(strconv.Itoa(d.Values)), reportdoc.NumC(strconv.Itoa(d.Missing)))
		stats.Rows = append(stats.Rows, row)
		f := reportdoc.Figure{Alt: "ECDF of " + cellName(cr.Cell) + ": " + d.what(),
			Caption: "The fraction of the cell's counted runs whose value is at or below each value (the empirical distribution); red the requirement, green dashed the tolerance bound, grey dotted the quantile it bounds."}
		if d.Missing > 0 {
			f.Caption += fmt.Sprintf(" %d of the %d runs have no %s (never still, or not measured): they are off the plot, and the curve ends at %d of %d.", d.Missing, cr.N, d.what(), d.Values, cr.N)
		}
		var vals []float64
		for _, r := range s.Runs {
			if r.Cell == cr.ID {
				if d.Unit == "m" {
					vals = append(vals, float64(r.TravelM))
				} else {
					vals = append(vals, float64(r.StillS))
				}
			}
		}
		if !plots {
			figs = append(figs, f)
			continue
		}
		p, err := ECDF(cr, *d, vals)
		if err == nil {
			f.SVG, err = reportdoc.PlotSVG(p, 5.2*vg.Inch, 3.2*vg.Inch)
		}
		if err != nil {
			f.Err = err.Error()
		}
		figs = append(figs, f)
	}
	sec.Blocks = append([]reportdoc.Block{reportdoc.List{Items: items}, stats}, figs...)
	return sec
}

func status(verdict string) reportdoc.Status {
	if verdict == Pass {
		return reportdoc.Pass
	}
	return reportdoc.Fail
}

// suite is the campaign's JUnit suite: the plan and method as properties, one testcase per cell (its
// numbers as properties; a failure naming the runs when the cell fails).
func (s *Summary) suite() reportdoc.Testsuite {
	p := func(k, v string) reportdoc.Property { return reportdoc.Property{Name: k, Value: v} }
	num := func(x Num) string {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmtNum(float64(x))
		}
		return strconv.FormatFloat(float64(x), 'g', 6, 64)
	}
	suite := reportdoc.Testsuite{Name: "campaign " + s.Name, Time: secsOf(s.End.Sub(s.Start)),
		Properties: []reportdoc.Property{p("proof", s.Proof), p("r", fmtP(s.Method.R)), p("c", fmtP(s.Method.C)), p("n", strconv.Itoa(s.Method.N)),
			p("seed", strconv.FormatInt(s.Plan.Seed, 10)), p("method", s.Method.Basis), p("verdict", s.Verdict)}}
	if !s.Start.IsZero() {
		suite.Timestamp = s.Start.UTC().Format("2006-01-02T15:04:05")
	}
	for _, kv := range s.conditionRows() {
		suite.Properties = append(suite.Properties, p("condition: "+kv[0], kv[1]))
	}
	for _, cr := range s.Cells {
		tc := reportdoc.Testcase{Name: cr.ID, Classname: "stopproof.campaign." + cr.Cell.Path, Time: "0"}
		tc.Properties = append(tc.Properties, p("n", strconv.Itoa(cr.N)), p("planned", strconv.Itoa(cr.Planned)), p("failures", strconv.Itoa(cr.Failures)),
			p("restarts", strconv.Itoa(cr.Restarts)), p("cut", strconv.Itoa(cr.Cut)), p("claim", cr.Claim), p("bound", cr.BoundText),
			p("bound_order_k", strconv.Itoa(cr.BoundK)), p("bound_quantile", strconv.FormatFloat(cr.BoundP, 'g', 6, 64)),
			p("bound_confidence", strconv.FormatFloat(cr.BoundConf, 'g', 6, 64)))
		for _, d := range cr.dists() {
			pre := "still_s_"
			if d.Unit == "m" {
				pre = "travel_m_"
			}
			for _, kv := range []struct {
				k string
				v Num
			}{{"min", d.Min}, {"median", d.Median}, {"mean", d.Mean}, {"sd", d.SD}, {"p95", d.P95}, {"max", d.Max}, {"worst", d.Worst},
				{"bound", d.Bound}, {"requirement", d.Requirement}, {"margin_bound", d.MarginBound}, {"margin_worst", d.MarginWorst}, {"resolution", d.Resolution}} {
				tc.Properties = append(tc.Properties, p(pre+kv.k, num(kv.v)))
			}
		}
		if cr.Verdict != Pass {
			var text []string
			text = append(text, cr.Reasons...)
			for _, f := range cr.Failed {
				text = append(text, fmt.Sprintf("run %d (rep %d, %s): %s", f.Seq, f.Rep, f.File, f.Why))
			}
			tc.Failure = &reportdoc.Failure{Message: strings.Join(cr.Reasons, "; "), Type: Fail, Text: strings.Join(text, "\n")}
		}
		tc.SystemOut = strings.Join(append([]string{cr.Claim, cr.BoundText}, cr.Notes...), "\n")
		suite.Cases = append(suite.Cases, tc)
	}
	return suite
}

func secsOf(d time.Duration) string {
	if d <= 0 {
		return "0"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// Markdown writes the report (Document) as markdown, for CI's job summary: the verdict, the claim, the
// summary table first, then per cell, the conditions and every run. No plots: they are the HTML's.
func (s *Summary) Markdown(w io.Writer) error { return reportdoc.Markdown(w, s.document(false)) }

// JUnitOf is the report's JUnit document, counted: one testsuite for the campaign, a testcase per cell.
func (s *Summary) JUnitOf() reportdoc.Testsuites {
	return reportdoc.JUnitOf(&reportdoc.Document{TestsName: "stopproof campaign", Suites: []reportdoc.Testsuite{s.suite()}})
}

// JUnit writes the JUnit XML document.
func (s *Summary) JUnit(w io.Writer) error {
	return reportdoc.JUnit(w, &reportdoc.Document{TestsName: "stopproof campaign", Suites: []reportdoc.Testsuite{s.suite()}})
}

// HTML writes the verification report as one self-contained page: inline CSS, the plots as inline SVG, a
// Content-Security-Policy that forbids fetching anything; links to each run's record and evidence are
// relative (they work while the page stays where it was written beside the campaign folders).
func (s *Summary) HTML(w io.Writer) error { return reportdoc.HTML(w, s.Document()) }
