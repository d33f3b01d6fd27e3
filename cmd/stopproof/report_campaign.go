package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/proofs/campaign"
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
	sums, names, err := campaign.LoadHistory(c.Args().Slice()...)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	h := campaign.Monitor(sums, names, tol)
	if !c.Bool("quiet") {
		var b bytes.Buffer
		h.Markdown(&b)
		c.App.Writer.Write(b.Bytes())
		h.Text(c.App.Writer)
	}
	for _, w := range []struct {
		flag   string
		render func(b *bytes.Buffer) error
	}{
		{"md", func(b *bytes.Buffer) error { return h.Markdown(b) }},
		{"html", func(b *bytes.Buffer) error { return h.HTML(b) }},
		{"json", func(b *bytes.Buffer) error { return h.JSON(b) }},
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
