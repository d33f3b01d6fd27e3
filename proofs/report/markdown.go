package report

import (
	"io"

	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// Markdown writes the report (Document) as markdown: the regression verdicts when there is a baseline (cmp
// nil: none), every run's stop-path table and the reasons of the lines that did not pass, ready for a CI
// summary ($GITHUB_STEP_SUMMARY) or a log. No plots: they are the HTML's.
func Markdown(w io.Writer, runs []ProofFile, cmp *Comparison) error {
	return reportdoc.Markdown(w, document(runs, cmp, false))
}
