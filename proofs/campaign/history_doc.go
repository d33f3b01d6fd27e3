package campaign

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// Document is the monitor's report in the one report model: the gate's verdict, the tolerance and the rule,
// and per cell its findings on the latest campaign, a plot of its worst run and bound over the campaigns
// (inline SVG) and their table; the JUnit suite has one testcase per cell (the latest campaign's figures as
// properties).
func (h *History) Document() *reportdoc.Document { return h.document(true) }

func (h *History) document(plots bool) *reportdoc.Document {
	T := reportdoc.T
	d := &reportdoc.Document{Title: "Stop-performance monitor", TestsName: "stopproof monitor", Suites: []reportdoc.Testsuite{h.suite()}}
	d.Blocks = []reportdoc.Block{
		reportdoc.Para{ID: "verdict", Box: true, Status: status(h.Verdict), Text: T(fmt.Sprintf("%s over %d campaigns", h.Verdict, len(h.Campaigns)))},
		reportdoc.Para{Text: T(fmt.Sprintf("Tolerance %s. Rule: %s.", h.Tolerance, h.Rule))},
	}
	for _, hc := range h.Cells {
		sec := reportdoc.Section{Title: reportdoc.Text{{Text: hc.Name + ": "}, reportdoc.Marked(hc.Verdict, status(hc.Verdict))}}
		var items []reportdoc.Text
		for _, f := range hc.Findings {
			items = append(items, T("latest: "+f))
		}
		sec.Blocks = append(sec.Blocks, reportdoc.List{Items: items})
		if plots {
			f := reportdoc.Figure{Alt: hc.Name + " over the campaigns"}
			p, err := historyPlot(hc)
			if err == nil {
				f.SVG, err = reportdoc.PlotSVG(p, 6.5*vg.Inch, 3*vg.Inch)
			}
			if err != nil {
				f.Err = err.Error()
			}
			sec.Blocks = append(sec.Blocks, f)
		}
		tab := reportdoc.Table{Header: []string{"campaign", "start", "n", "worst", "bound", "requirement", "reference (median before: worst / bound)", "findings"}}
		for _, p := range hc.Points {
			tab.Rows = append(tab.Rows, reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(p.Campaign), reportdoc.C(stamp(p.Start)), reportdoc.NumC(strconv.Itoa(p.N)),
				reportdoc.NumC(withUnit(p.Worst, hc.Unit)), reportdoc.NumC(withUnit(p.Bound, hc.Unit)), reportdoc.NumC(withUnit(p.Requirement, hc.Unit)),
				reportdoc.C(withUnit(p.RefWorst, hc.Unit) + " / " + withUnit(p.RefBound, hc.Unit)), reportdoc.C(strings.Join(p.Findings, "; "))}})
		}
		sec.Blocks = append(sec.Blocks, tab)
		d.Sections = append(d.Sections, sec)
	}
	return d
}

// suite is the monitor's JUnit suite: one testcase per cell, the latest campaign's figures as properties.
func (h *History) suite() reportdoc.Testsuite {
	p := func(k, v string) reportdoc.Property { return reportdoc.Property{Name: k, Value: v} }
	s := reportdoc.Testsuite{Name: "stop-performance monitor", Time: "0", Properties: []reportdoc.Property{p("tolerance", h.Tolerance.String()), p("rule", h.Rule)}}
	for _, hc := range h.Cells {
		last := hc.Points[len(hc.Points)-1]
		c := reportdoc.Testcase{Name: "no growth: " + hc.Name, Classname: "stopproof.campaign.history", Time: "0"}
		for _, kv := range [][2]string{{"worst", fmtNum(float64(last.Worst))}, {"bound", fmtNum(float64(last.Bound))}, {"requirement", fmtNum(float64(last.Requirement))},
			{"ref_worst", fmtNum(float64(last.RefWorst))}, {"ref_bound", fmtNum(float64(last.RefBound))}, {"campaigns", strconv.Itoa(len(hc.Points))}} {
			c.Properties = append(c.Properties, p(kv[0], kv[1]))
		}
		if hc.Verdict != Pass {
			c.Failure = &reportdoc.Failure{Message: strings.Join(hc.Findings, "; "), Type: Fail, Text: strings.Join(hc.Findings, "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// Markdown writes the monitor's report as markdown: the rule, and per cell a table of the campaigns.
func (h *History) Markdown(w io.Writer) error { return reportdoc.Markdown(w, h.document(false)) }

// JUnit writes one testcase per cell (the latest campaign's figures as properties).
func (h *History) JUnit(w io.Writer) error {
	return reportdoc.JUnit(w, &reportdoc.Document{TestsName: "stopproof monitor", Suites: []reportdoc.Testsuite{h.suite()}})
}

// HTML writes the monitor's report as one self-contained page with a plot per cell (inline SVG).
func (h *History) HTML(w io.Writer) error { return reportdoc.HTML(w, h.Document()) }
