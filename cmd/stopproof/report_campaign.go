package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/stoplog"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/reportdoc"
	"github.com/rosorin/rosorin/proofs/servicestops"
)

// runCampaignReport: stopproof report --campaign DIR... (a campaign's verification report, shards merged).
func runCampaignReport(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.Exit("which campaign folders? e.g. stopproof report --campaign --html report.html camp/", exitAbort)
	}
	if c.String("baseline") != "" || c.String("write-baseline") != "" {
		return cli.Exit("--baseline is for proof runs; a campaign's history is --history", exitAbort)
	}
	camp, err := campaign.LoadCampaign(c.Args().Slice()...)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	// Links to records and evidence are relative to the folder each file is written to.
	sumFor := func(path string) *campaign.Summary { return campaign.Summarize(camp, filepath.Dir(path)) }
	s := sumFor("x")
	if !c.Bool("quiet") {
		s.Table(c.App.Writer)
	}
	for _, w := range []struct {
		flag   string
		render func(s *campaign.Summary, b *bytes.Buffer) error
	}{
		{"md", func(s *campaign.Summary, b *bytes.Buffer) error { return s.Markdown(b) }},
		{"html", func(s *campaign.Summary, b *bytes.Buffer) error { return s.HTML(b) }},
		{"json", func(s *campaign.Summary, b *bytes.Buffer) error { return s.JSON(b) }},
		{"junit", func(s *campaign.Summary, b *bytes.Buffer) error { return s.JUnit(b) }},
	} {
		path := c.String(w.flag)
		if path == "" || path == "-" {
			continue
		}
		var b bytes.Buffer
		if err := w.render(sumFor(path), &b); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", w.flag, err), exitAbort)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", w.flag, err), exitAbort)
		}
	}
	if s.Verdict != campaign.Pass {
		return cli.Exit("", exitFail)
	}
	return nil
}

// runHistoryReport: stopproof report --history SRC... (the stop-performance monitor).
func runHistoryReport(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.Exit("which campaigns? e.g. stopproof report --history reports/campaigns/*.json camp/", exitAbort)
	}
	tol := campaign.DefaultHistoryTolerance
	if c.IsSet("tolerance") {
		var err error
		if tol, err = campaign.ParseHistoryTolerance(c.String("tolerance")); err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
	}
	var camps, logs []string
	for _, src := range c.Args().Slice() {
		if stateDir, ok := stopLogSource(src); ok {
			logs = append(logs, stateDir)
		} else {
			camps = append(camps, src)
		}
	}
	if len(logs) > 1 {
		return cli.Exit(fmt.Sprintf("one stop log at a time, got %d: %s", len(logs), strings.Join(logs, ", ")), exitAbort)
	}
	var sums []*campaign.Summary
	var names []string
	if len(camps) > 0 {
		var err error
		if sums, names, err = campaign.LoadHistory(camps...); err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
	}
	h := campaign.Monitor(sums, names, tol)
	// The service's stops (issue 35): the driver's stop log beside the campaigns, in the same page.
	var svc *servicestops.Report
	if len(logs) == 1 {
		recs, rec, err := stoplog.Read(logs[0])
		if err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
		if err := rec.Err(); err != nil {
			fmt.Fprintln(c.App.ErrWriter, "warning:", err)
		}
		svc = servicestops.Build(filepath.Join(logs[0], stoplog.SubDir), recs, len(rec.Bad), sums, names)
	}
	doc := func(plots bool) *reportdoc.Document {
		d := h.Document()
		if svc != nil {
			d.Sections = append(d.Sections, svc.Section(plots))
		}
		return d
	}
	if !c.Bool("quiet") {
		var b bytes.Buffer
		reportdoc.Markdown(&b, doc(false))
		c.App.Writer.Write(b.Bytes())
		h.Text(c.App.Writer)
		if svc != nil {
			svc.Text(c.App.Writer)
		}
	}
	for _, w := range []struct {
		flag   string
		render func(b *bytes.Buffer) error
	}{
		{"md", func(b *bytes.Buffer) error { return reportdoc.Markdown(b, doc(false)) }},
		{"html", func(b *bytes.Buffer) error { return reportdoc.HTML(b, doc(true)) }},
		{"json", func(b *bytes.Buffer) error {
			if svc == nil {
				return h.JSON(b)
			}
			j, err := json.MarshalIndent(struct {
				*campaign.History
				ServiceStops *servicestops.Report `json:"service_stops"`
			}{h, svc}, "", "  ")
			b.Write(append(j, '\n'))
			return err
		}},
		{"junit", func(b *bytes.Buffer) error { return h.JUnit(b) }},
	} {
		path := c.String(w.flag)
		if path == "" || path == "-" {
			continue
		}
		var b bytes.Buffer
		if err := w.render(&b); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", w.flag, err), exitAbort)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return cli.Exit(fmt.Sprintf("--%s: %v", w.flag, err), exitAbort)
		}
	}
	if h.Verdict != campaign.Pass {
		return cli.Exit("", exitFail)
	}
	return nil
}

// stopLogSource tells a stop log among --history's sources: a state directory whose stops/ folder holds
// segments, or that stops/ folder itself (its parent is the state directory). A campaign folder (plan.yaml,
// runs/) or a summary JSON is not one.
func stopLogSource(src string) (stateDir string, ok bool) {
	if strings.Contains(src, ",") {
		return "", false // shards of a campaign
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return "", false
	}
	for _, f := range []string{"plan.yaml", "runs"} {
		if _, err := os.Stat(filepath.Join(src, f)); err == nil {
			return "", false
		}
	}
	if segs, _ := filepath.Glob(filepath.Join(src, stoplog.SubDir, "stops-*.jsonl")); len(segs) > 0 {
		return src, true
	}
	if segs, _ := filepath.Glob(filepath.Join(src, "stops-*.jsonl")); len(segs) > 0 && filepath.Base(filepath.Clean(src)) == stoplog.SubDir {
		return filepath.Dir(filepath.Clean(src)), true
	}
	return "", false
}
