package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/rosorin/rosorin/proofs/stand"
)

// Markdown writes the stop-path table of every run (paths x speeds: the stop time and PASS, or the outcome),
// the reasons of the lines that did not pass, and the regression verdicts when there is a baseline (cmp nil:
// none), ready for a CI summary ($GITHUB_STEP_SUMMARY) or a log.
func Markdown(w io.Writer, runs []Run, cmp *Comparison) error {
	var b strings.Builder
	b.WriteString("# Stop proof report\n")
	for _, run := range runs {
		rep := run.Report
		fmt.Fprintf(&b, "\n## %s\n\n", run.Name)
		fmt.Fprintf(&b, "%s; target %s", rep.Tool, mdEscape(rep.Target))
		if rep.Fault != "" {
			fmt.Fprintf(&b, "; fault `%s` (a negative control: every line must FAIL)", rep.Fault)
		}
		b.WriteString("\n\n")
		if run.Rejudged != nil {
			if d := run.Rejudged.Differences; len(d) > 0 {
				fmt.Fprintf(&b, "**Re-judged from the recording: DIFFERS from the live run in %d lines.**\n\n", len(d))
			} else {
				fmt.Fprintf(&b, "Re-judged from the recording: the same verdicts and times as the live run (%d lines).\n\n", run.Rejudged.Judged)
			}
		}
		motions, rows := layout(rep)
		b.WriteString("| stop path |")
		for _, m := range motions {
			fmt.Fprintf(&b, " %s |", m)
		}
		b.WriteString("\n|---|")
		for range motions {
			b.WriteString("---|")
		}
		b.WriteString("\n")
		for _, k := range rows {
			fmt.Fprintf(&b, "| %s |", mdEscape(rowLabel(rep, k)))
			for _, m := range motions {
				c := "-"
				for _, r := range rep.Results {
					if KeyOf(r) == (Key{k.Path, m, k.Release}) {
						c = cell(r)
					}
				}
				fmt.Fprintf(&b, " %s |", c)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n%s\n", rep.ResultLine())
		var failed []string
		for _, r := range rep.Results {
			if r.Outcome != stand.Pass {
				failed = append(failed, fmt.Sprintf("- %s: %s %s", mdEscape(r.Name), r.Outcome, mdEscape(r.Reason)))
			}
		}
		if len(failed) > 0 {
			b.WriteString("\n" + strings.Join(failed, "\n") + "\n")
		}
	}
	if cmp != nil {
		b.WriteString("\n## Against the baseline\n\n")
		fmt.Fprintf(&b, "Baseline %s; tolerance %s.\n\n", mdEscape(cmp.Baseline), cmp.Tolerance)
		if len(cmp.Regressions) == 0 {
			b.WriteString("No regression.\n")
		} else {
			fmt.Fprintf(&b, "**%d REGRESSION(S):**\n\n", len(cmp.Regressions))
			for _, r := range cmp.Regressions {
				fmt.Fprintf(&b, "- %s\n", mdEscape(r))
			}
		}
		for _, n := range cmp.Notes {
			fmt.Fprintf(&b, "- note: %s\n", mdEscape(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a cell on its line and out of the table's syntax.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
