package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/proofs/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "stop-path reports for CI (markdown, JUnit XML, self-contained HTML with plots) and regressions against a baseline",
		ArgsUsage: "RUN... (--json records of stopproof prove, or recordings .mcap, which are re-judged); with --campaign, campaign FOLDERS (shards merged); with --history, campaign folders or summary JSONs, and at most one stop log (a state directory or its stops/ folder)",
		Description: `Prints the markdown stop-path table (paths x speeds) of every run, writes the formats asked for, and with
--baseline judges regressions: a line that passed in the baseline and does not now, a stop later than the
baseline by more than the tolerance (both its parts: default +50 % and +0.15 s), or a new line that fails.

Examples:
   stopproof report --baseline reports/baseline.json --md summary.md --junit junit.xml --html report.html proof.json
   stopproof report reports/evidence/stop_proof_stand_*.mcap
   stopproof report --write-baseline reports/baseline.json proof.json       (refresh the baseline: reports/README.md)

Campaigns (docs/campaigns.md, "The verification report"): --campaign DIR... writes the verification report of a campaign (several
folders: the shards of one campaign, merged): the claim and its basis, per cell n, failures, worst, the
nonparametric tolerance bound, requirement, margin and verdict, the conditions, every run linked to its
evidence. It prints the summary table; --html, --md, --json and --junit write the formats. --history SRC...
is the stop-performance monitor over campaigns (folders, or the --json summaries of earlier reports; shards
joined by commas): each cell's worst and bound over time, and a FAIL when the latest grows past the
requirement or past the previous campaigns' median by more than --tolerance (default there: 10%). A
stop log among the sources (the driver's state directory, or its stops/ folder: the stops it timed in
service) adds the service stops to the same page: per stop kind, their times to still over time against the
latest campaign's bound for the path of that name, and count, counted, WARN, ERROR, worst still and travel.
They are shown, not gated: the exit status stays the campaigns' (the driver's own monitor gates in service).

   stopproof report --campaign --html report.html --junit junit.xml --json summary.json camp/
   stopproof report --campaign shard1/ shard2/
   stopproof report --history --tolerance 10% --html monitor.html reports/campaigns/*.json camp/
   stopproof report --history --html monitor.html camp/ /var/lib/rosorin      (lab and field on one page)

Exit status: 0 no regression, 1 a regression against the baseline, 2 a run or the baseline could not be read.
With --campaign or --history: 0 every cell passes, 1 a cell fails, 2 bad input.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "baseline", Category: sectionOutput, Usage: "compare with the baseline `FILE` (reports/baseline.json)"},
			&cli.StringFlag{Name: "tolerance", Value: "50%,0.15s", Category: sectionOutput,
				Usage: "how much later than the baseline a stop may get: a regression is later by more than both parts"},
			&cli.StringFlag{Name: "md", Category: sectionOutput, Usage: "write the markdown report to `FILE` (- for stdout only, the default)"},
			&cli.StringFlag{Name: "junit", Category: sectionOutput, Usage: "write JUnit XML to `FILE`"},
			&cli.StringFlag{Name: "html", Category: sectionOutput, Usage: "write the self-contained HTML report to `FILE`"},
			&cli.StringFlag{Name: "write-baseline", Category: sectionOutput, Usage: "write the runs' lines as a new baseline to `FILE`"},
			&cli.BoolFlag{Name: "quiet", Category: sectionOutput, Usage: "do not print the markdown to stdout"},
			&cli.BoolFlag{Name: "campaign", Category: sectionOutput, Usage: "the arguments are a campaign's folders (its shards): write its verification report"},
			&cli.BoolFlag{Name: "history", Category: sectionOutput, Usage: "the arguments are campaigns (folders or summary JSONs), oldest first, and at most one stop log (a state directory): the stop-performance monitor"},
			&cli.StringFlag{Name: "json", Category: sectionOutput, Usage: "with --campaign or --history: write the summary JSON to `FILE`"},
		},
		Action: runReport,
	}
}

func runReport(c *cli.Context) error {
	switch {
	case c.Bool("campaign") && c.Bool("history"):
		return cli.Exit("--campaign or --history, not both", exitAbort)
	case c.Bool("campaign"):
		return runCampaignReport(c)
	case c.Bool("history"):
		return runHistoryReport(c)
	case c.String("json") != "":
		return cli.Exit("--json is for --campaign or --history", exitAbort)
	}
	if c.NArg() == 0 {
		return cli.Exit("which runs? e.g. stopproof report --baseline reports/baseline.json proof.json", exitAbort)
	}
	tol, err := report.ParseTolerance(c.String("tolerance"))
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	var runs []report.ProofFile
	for _, p := range c.Args().Slice() {
		run, err := report.Load(p)
		if err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
		runs = append(runs, run)
	}
	var cmp *report.Comparison
	if bp := c.String("baseline"); bp != "" {
		f, err := os.Open(bp)
		if err != nil {
			return cli.Exit(fmt.Sprintf("--baseline: %v (make one with --write-baseline: reports/README.md)", err), exitAbort)
		}
		b, err := report.ReadBaseline(f)
		f.Close()
		if err != nil {
			return cli.Exit(fmt.Sprintf("%s: %v", bp, err), exitAbort)
		}
		cmp = report.Compare(runs, b, bp, tol)
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, runs, cmp); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if !c.Bool("quiet") {
		c.App.Writer.Write(md.Bytes())
	}
	write := func(flag string, render func(*bytes.Buffer) error) error {
		path := c.String(flag)
		if path == "" || path == "-" {
			return nil
		}
		var b bytes.Buffer
		if err := render(&b); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", flag, err), exitAbort)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", flag, err), exitAbort)
		}
		return nil
	}
	for _, w := range []struct {
		flag   string
		render func(*bytes.Buffer) error
	}{
		{"md", func(b *bytes.Buffer) error { _, err := b.Write(md.Bytes()); return err }},
		{"junit", func(b *bytes.Buffer) error { return report.JUnit(b, runs, cmp) }},
		{"html", func(b *bytes.Buffer) error { return report.HTML(b, runs, cmp) }},
		{"write-baseline", func(b *bytes.Buffer) error {
			return report.WriteBaseline(b, report.BaselineOf(runs, "stopproof report --write-baseline "+strings.Join(c.Args().Slice(), " ")+" ("+version()+")"))
		}},
	} {
		if err := write(w.flag, w.render); err != nil {
			return err
		}
	}
	if cmp != nil {
		cmp.Text(c.App.ErrWriter)
		if len(cmp.Regressions) > 0 {
			return cli.Exit("", exitFail)
		}
	}
	return nil
}
