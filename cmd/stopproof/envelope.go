package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	penv "github.com/rosorin/rosorin/proofs/envelope"
)

func envelopeCommand() *cli.Command {
	return &cli.Command{
		Name:      "envelope",
		Usage:     "the stopping envelope of floor campaigns: bounded stopping distance and time against speed, and the configuration from it",
		ArgsUsage: "CAMPAIGN_DIR... (floor campaign folders; shards of one campaign are merged, different campaigns pooled)",
		Description: `Per stop path and direction, from the cells of floor campaigns that PASS their verification: per tested
speed the bounded stopping distance and time (the campaign's tolerance bound at its R and C), a fit of
distance against speed (t_r·v + v²/(2a)) with its residuals, and the configuration of the layers that must
stop the robot in time: Nav2's collision monitor (the stop polygon: the footprint grown by the bounded
distance at the fastest tested speed), the velocity smoother's max_decel, and with --clearance the fastest
tested speed whose bounded stopping distance fits. The envelope is never extrapolated: it answers only at
and between tested speeds.

Refused (exit 2, nothing written): a stand campaign, a cell without max_travel_m, a cell that does not PASS,
a path and direction with fewer than two tested speeds, a clearance no tested speed fits.

Examples:
   stopproof envelope --clearance 0.45 --footprint 0.25x0.20 reports/campaigns/floor/
   stopproof envelope --footprint 0.25x0.20 --nav2 collision_monitor.yaml --smoother smoother.yaml --html envelope.html camp/
   stopproof envelope --png plots/ --json camp/ > envelope.json`,
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "clearance", Category: sectionProof,
				Usage: "the free distance in `M` metres: the fastest tested speed whose bounded stopping distance fits it"},
			&cli.StringFlag{Name: "footprint", Category: sectionProof,
				Usage: "the robot body, `LxW` metres centred on base_footprint (e.g. 0.25x0.20): the stop zone grows it"},
			&cli.IntFlag{Name: "max-points", Category: sectionProof, Usage: "Humble's max_points of both polygons (0: 1)"},
			&cli.Float64Flag{Name: "margin", Category: sectionProof, Usage: "the smoother's margin on the measured braking, in [0, 1)"},
			&cli.Float64Flag{Name: "angular-decel", Value: 3.2, Category: sectionProof,
				Usage: "the smoother's theta max_decel magnitude, rad/s² (not measured by the envelope; 3.2 is Nav2's default)"},
			&cli.StringFlag{Name: "html", Category: sectionOutput, Usage: "write the self-contained HTML page to `FILE`"},
			&cli.StringFlag{Name: "png", Category: sectionOutput, Usage: "write two PNG plots per path and direction into `DIR` (distance and time against speed)"},
			&cli.StringFlag{Name: "svg", Category: sectionOutput, Usage: "write two SVG plots per path and direction into `DIR` (distance and time against speed)"},
			&cli.StringFlag{Name: "nav2", Category: sectionOutput, Usage: "write Nav2 Humble's collision monitor parameters to `FILE` (needs --footprint)"},
			&cli.StringFlag{Name: "smoother", Category: sectionOutput, Usage: "write the velocity smoother's max_decel to `FILE`"},
			&cli.BoolFlag{Name: "json", Category: sectionOutput, Usage: "print the whole envelope as JSON instead of the tables"},
		},
		Action: runEnvelope,
	}
}

// runEnvelope builds every output in memory first: a refusal writes nothing.
func runEnvelope(c *cli.Context) error {
	opt := penv.Options{Clearance: c.Float64("clearance"), MaxPoints: c.Int("max-points"), Margin: c.Float64("margin"), AngularDecel: -c.Float64("angular-decel")}
	if c.IsSet("clearance") && !(opt.Clearance > 0) {
		return cli.Exit(fmt.Sprintf("--clearance %v: the free distance in metres, > 0", opt.Clearance), exitAbort)
	}
	if s := c.String("footprint"); s != "" {
		f, err := penv.ParseFootprint(s)
		if err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
		opt.Footprint = &f
	}
	rep, err := penv.Load(c.Args().Slice(), opt)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	type file struct {
		path string
		data []byte
	}
	var files []file
	var dirs []string
	for _, w := range []struct {
		flag string
		make func() ([]byte, error)
	}{
		{"nav2", rep.Nav2YAML},
		{"smoother", rep.SmootherYAML},
		{"html", func() ([]byte, error) { var b bytes.Buffer; err := rep.HTML(&b); return b.Bytes(), err }},
	} {
		path := c.String(w.flag)
		if path == "" {
			continue
		}
		b, err := w.make()
		if err != nil {
			var r *penv.Refusal
			if errors.As(err, &r) {
				return cli.Exit(err.Error(), exitAbort)
			}
			return cli.Exit(fmt.Sprintf("--%s: %v", w.flag, err), exitAbort)
		}
		files = append(files, file{path, b})
	}
	for _, format := range []string{"png", "svg"} {
		dir := c.String(format)
		if dir == "" {
			continue
		}
		dirs = append(dirs, dir)
		for _, g := range rep.Groups {
			b, err := g.Image(format)
			if err != nil {
				return cli.Exit(fmt.Sprintf("--%s: %s: %v", format, g.Name(), err), exitAbort)
			}
			files = append(files, file{filepath.Join(dir, g.FileName()+"."+format), b})
			if b, err = g.TimeImage(format); err != nil {
				return cli.Exit(fmt.Sprintf("--%s: %s (time): %v", format, g.Name(), err), exitAbort)
			}
			files = append(files, file{filepath.Join(dir, g.FileName()+"-time."+format), b})
		}
	}
	var out bytes.Buffer
	if c.Bool("json") {
		err = rep.JSON(&out)
	} else {
		err = rep.Text(&out)
	}
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return cli.Exit(err.Error(), exitAbort)
		}
	}
	c.App.Writer.Write(out.Bytes())
	if !c.Bool("json") {
		for _, f := range files {
			fmt.Fprintf(c.App.Writer, "wrote %s\n", f.path)
		}
	}
	return nil
}
