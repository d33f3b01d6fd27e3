package report

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// Document is the proof report as the one report model: the regression verdicts against the baseline (cmp
// nil: none) first, then per run its stop-path table (paths x motions: the stop time and PASS, or the
// outcome; the line as tooltip), its RESULT line, the reasons of the lines that did not pass and a plot per
// path (PNG, see PlotPath), and the JUnit suites (see JUnitOf). The renderers (Markdown, JUnit, HTML) write
// it.
func Document(runs []ProofFile, cmp *Comparison) *reportdoc.Document {
	return document(runs, cmp, true)
}

// document is the Document, with the plots drawn or not (markdown leaves figures out: no need to draw them).
func document(runs []ProofFile, cmp *Comparison, plots bool) *reportdoc.Document {
	d := &reportdoc.Document{Title: "Stop proof report", TestsName: "stopproof", Suites: suites(runs, cmp)}
	T := reportdoc.T
	if cmp != nil {
		sec := reportdoc.Section{Title: T("Against the baseline"), ID: "baseline",
			Blocks: []reportdoc.Block{reportdoc.Para{Text: T(fmt.Sprintf("Baseline %s; tolerance %s.", cmp.Baseline, cmp.Tolerance))}}}
		var items []reportdoc.Text
		if len(cmp.Regressions) == 0 {
			sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: T("No regression.")})
		} else {
			sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong(fmt.Sprintf("%d REGRESSION(S):", len(cmp.Regressions)))}})
			for _, r := range cmp.Regressions {
				items = append(items, reportdoc.Text{reportdoc.Marked("REGRESSION: "+r, reportdoc.Fail)})
			}
		}
		for _, n := range cmp.Notes {
			items = append(items, T("note: "+n))
		}
		sec.Blocks = append(sec.Blocks, reportdoc.List{Items: items})
		d.Sections = append(d.Sections, sec)
	}
	for _, run := range runs {
		rep := run.Report
		head := reportdoc.Text{{Text: rep.Tool + "; target " + rep.Target}}
		if rep.Fault != "" {
			head = append(head, reportdoc.Span{Text: "; fault "}, reportdoc.Code(rep.Fault), reportdoc.Span{Text: " (a negative control: every line must FAIL)"})
		}
		sec := reportdoc.Section{Title: T(run.Name), Blocks: []reportdoc.Block{reportdoc.Para{Text: head}}}
		if rj := run.Rejudged; rj != nil {
			if len(rj.Differences) > 0 {
				sec.Blocks = append(sec.Blocks, reportdoc.Para{Status: reportdoc.Fail, Text: reportdoc.Text{reportdoc.Strong(
					fmt.Sprintf("Re-judged from the recording: DIFFERS from the live run in %d lines.", len(rj.Differences)))}})
			} else {
				sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: T(fmt.Sprintf("Re-judged from the recording: the same verdicts and times as the live run (%d lines).", rj.Judged))})
			}
		}
		motions, rows := layout(rep)
		tab := reportdoc.Table{ID: "stop-paths", Header: append([]string{"stop path"}, motions...), RowHeads: false}
		var paths []string
		for _, k := range rows {
			row := reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(rowLabel(rep, k))}}
			for _, m := range motions {
				c := reportdoc.C("-")
				for _, r := range rep.Results {
					if KeyOf(r) == (Key{k.Path, m, k.Release}) {
						c = reportdoc.Cell{Text: T(cell(r)), Status: reportdoc.Fail, Title: r.Line}
						if r.Outcome == vibration.Pass {
							c.Status = reportdoc.Pass
						}
					}
				}
				row.Cells = append(row.Cells, c)
			}
			tab.Rows = append(tab.Rows, row)
			if !k.Release {
				paths = append(paths, k.Path)
			}
		}
		sec.Blocks = append(sec.Blocks, tab, reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong(rep.ResultLine())}})
		var failed []reportdoc.Text
		for _, r := range rep.Results {
			if r.Outcome != vibration.Pass {
				failed = append(failed, T(fmt.Sprintf("%s: %s %s", r.Name, r.Outcome, r.Reason)))
			}
		}
		sec.Blocks = append(sec.Blocks, reportdoc.List{Items: failed})
		for _, path := range paths {
			if !plots {
				break
			}
			f := reportdoc.Figure{Title: path, Alt: "vibration score of " + path}
			if png, err := PlotPath(rep, path); err != nil {
				f.Err = err.Error()
			} else {
				f.PNG = png
			}
			sec.Blocks = append(sec.Blocks, f)
		}
		d.Sections = append(d.Sections, sec)
	}
	return d
}
