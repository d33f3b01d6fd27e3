package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/target"
)

func campaignFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "socket", Value: "", Category: sectionTarget,
			Usage: "the running driver's control socket (default: the driver's; ignored with --sim)"},
		&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Category: sectionTarget,
			Usage: "the board's port, read directly when the driver is gone (kill, service paths)"},
		&cli.StringFlag{Name: "service-stop", Value: "systemctl stop rosorin-base", Category: sectionTarget,
			Usage: "shell command that stops the driver service (the service path)"},
		&cli.StringFlag{Name: "service-start", Value: "systemctl start rosorin-base", Category: sectionTarget,
			Usage: "shell command that starts it again"},
		&cli.StringFlag{Name: "driver-config", Category: sectionTarget,
			Usage: "the driver's configuration `FILE`, whose SHA-256 every run records (default: the SHA-256 of the configuration the driver reports, marked reported:)"},
		&cli.BoolFlag{Name: "sim", Category: sectionTarget,
			Usage: "run on simulated stand robots (each with rosorin-base in a temporary folder), torn down at the end"},
		&cli.IntFlag{Name: "parallel", Value: 1, Category: sectionTarget,
			Usage: "`N` simulated robots (only with --sim), each taking the next run when it is free"},
		&cli.StringFlag{Name: "sim-fault", Category: sectionTarget,
			Usage: "hand a fault to every simulated robot, as stopproof prove does; flaky-stop=K (the board ignores every K-th stop) is the campaign's negative control: the campaign must FAIL and name the runs"},
		&cli.Int64Flag{Name: "sim-seed", Value: 1, Category: sectionTarget, Usage: "the simulated robots' noise seed (robot i gets seed + i - 1)"},
		&cli.StringFlag{Name: "base-bin", Category: sectionTarget,
			Usage: "rosorin-base binary for --sim (default: built from the source tree when run inside it)"},
		&cli.BoolFlag{Name: "allow-plugged", Category: sectionProof,
			Usage: "drive even though the driver believes the charger is plugged in (only on the stand)"},
		&cli.BoolFlag{Name: "no-record", Category: sectionOutput, Usage: "no MCAP recording per run (the evidence log is kept)"},
	}
}

func campaignCommand() *cli.Command {
	runFlags := append(append([]cli.Flag{
		&cli.StringFlag{Name: "dir", Category: sectionOutput,
			Usage: "the campaign's folder `DIR` (default: reports/campaigns/<plan name>-<UTC time>); a folder of this plan and shard is resumed, another plan's refused"},
		&cli.StringFlag{Name: "shard", Category: sectionTarget,
			Usage: "run part `i/n` of the campaign: the runs with (seq-1) % n == i-1, into a folder of its own (a CI job matrix; stopproof report merges the folders)"},
	}, campaignFlags()...), proofFlags()...)
	return &cli.Command{
		Name:      "campaign",
		Usage:     "run each cell of a plan (path x speed x direction) N times in a seeded order, until a stated reliability is shown",
		ArgsUsage: "PLAN (a YAML plan file)",
		Description: `A campaign runs every cell of the plan n times, n = ceil(ln(1-C)/ln R) (ASTM's A-UGV success-run basis:
R = C = 0.95 gives 59 runs a cell, 0.90 gives 22, 0.8 gives 8), in an order shuffled by the plan's seed and
recorded, so drift over a session is not mistaken for a path's property. Each run is one stand proof of one
path at one motion (stopproof prove's engine: guards, spin-up, trigger, the IMU judge, the teardown that
disables the wheels); PASS also needs the time to still within the cell's max_still_s and the wheels not
turning again while commands kept coming.

State is kept in the campaign's folder after every run (each run's JSON, evidence log and MCAP). Ctrl-C
finishes the runs in progress and stops (a second Ctrl-C abandons them: the wheels are disabled, the run is
recorded CUT and runs again); then stopproof campaign resume DIR goes on. A run cut by a crash or power loss
is found on resume, recorded CUT (never counted, never a success) and run again. Before a run, a battery
below the plan's battery_min_v pauses and asks on the terminal.

The plan (proofs/campaign/testdata/stand-estop-95.yaml; docs/campaigns.md):
   version: 1
   name: stand-estop-95
   proof: stand
   r: 0.95
   c: 0.95
   seed: 20
   conditions: {setup: stand, surface: wheels in the air, load: none, gradient: level, operator: CI}
   cells:
     - {path: estop, speed: 0.2, direction: forward, max_still_s: 1.0}

Paths: ` + campaignPaths() + `; directions: ` + campaign.DirectionList + `.

Examples:
   stopproof campaign --sim proofs/campaign/testdata/stand-estop-95.yaml
   stopproof campaign --sim --parallel 2 --dir reports/campaigns/ci plan.yaml
   stopproof campaign --sim --sim-fault flaky-stop=3 plan.yaml        (the negative control: must FAIL)
   stopproof campaign --sim --shard 1/2 --dir c1 plan.yaml            (and --shard 2/2 --dir c2 on another machine)
   stopproof campaign resume reports/campaigns/ci
   stopproof campaign --rig deploy/ci/rigs/rosorin-01.yaml --shard 1/2 plan.yaml   (on a rig: the doctor first; a FAIL refuses, exit 2)

Exit status: 0 when every run of the folder's slots passed, 1 when a run failed or timed out, 2 when
nothing was proven or the campaign is unfinished (bad plan or flags, a guard refused, interrupted).`,
		Flags:  runFlags,
		Action: runCampaign,
		Subcommands: []*cli.Command{{
			Name:      "resume",
			Usage:     "go on with a campaign after Ctrl-C, a crash or a battery swap",
			ArgsUsage: "DIR (the campaign's folder)",
			Description: `Runs the folder's remaining runs with the folder's own copy of the plan (never a plan file edited
since). A run that began and never ended is recorded CUT and runs again; a run on record never runs twice.
The target flags are given again (they are not part of the plan).

Examples:
   stopproof campaign resume --sim reports/campaigns/ci
   stopproof campaign resume --sim --parallel 2 reports/campaigns/ci`,
			Flags:  append(campaignFlags(), proofFlags()...),
			Action: runCampaignResume,
		}},
	}
}

func campaignPaths() string { return strings.ReplaceAll(stand.PathList(), ",", ", ") }

func runCampaign(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("which plan? e.g. stopproof campaign --sim proofs/campaign/testdata/stand-estop-95.yaml", exitAbort)
	}
	b, err := os.ReadFile(c.Args().First())
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	p, err := campaign.ParsePlan(b)
	if err == nil {
		err = p.Runnable()
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", c.Args().First(), err), exitAbort)
	}
	if err := rigPlan(c, p); err != nil {
		return err
	}
	shard, err := campaign.ParseShard(c.String("shard"))
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if err := checkCampaignFlags(c); err != nil {
		return err
	}
	dir := c.String("dir")
	if dir == "" {
		name := p.Name
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(c.Args().First()), filepath.Ext(c.Args().First()))
		}
		if shard.N > 0 {
			name += fmt.Sprintf("-shard%dof%d", shard.I, shard.N)
		}
		dir = filepath.Join("reports", "campaigns", name+"-"+time.Now().UTC().Format("20060102_150405"))
	}
	f, err := campaign.Create(dir, b, shard, time.Now())
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	return execute(c, f)
}

func runCampaignResume(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("which campaign? e.g. stopproof campaign resume --sim reports/campaigns/ci", exitAbort)
	}
	f, err := campaign.Open(c.Args().First())
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if err := checkCampaignFlags(c); err != nil {
		return err
	}
	if err := sameTarget(c, f); err != nil {
		return err
	}
	return execute(c, f)
}

// sameTarget refuses a resume on another kind of robot than the campaign's runs so far: a campaign begun on
// simulated robots goes on with --sim, one begun on the real robot without it. A campaign's runs are one
// robot's (or one sim's) record; a resume that silently drove the real robot, or counted a sim's runs toward a
// real robot's claim, would make the report false.
func sameTarget(c *cli.Context, f *campaign.Folder) error {
	runs, err := f.Runs()
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	for _, r := range runs {
		wasSim := strings.HasPrefix(r.Conditions.Target, "simulated")
		if r.Conditions.Target == "" || wasSim == c.Bool("sim") {
			continue
		}
		if wasSim {
			return cli.Exit(fmt.Sprintf("%s: its runs were on simulated robots (run %d: %s): resume it with --sim (and the --parallel and --sim-fault it ran with): %s",
				f.Dir, r.Seq, r.Conditions.Target, resumeCommand(c, f.Dir, true)), exitAbort)
		}
		return cli.Exit(fmt.Sprintf("%s: its runs were on a real robot (run %d: %s): resume it without --sim", f.Dir, r.Seq, r.Conditions.Target), exitAbort)
	}
	return nil
}

// resumeCommand is the command that goes on with the campaign in dir on the robots of this invocation (sim:
// the simulated ones, whatever this invocation said).
func resumeCommand(c *cli.Context, dir string, sim bool) string {
	cmd := "stopproof campaign resume"
	if sim || c.Bool("sim") {
		cmd += " --sim"
		if n := c.Int("parallel"); n > 1 {
			cmd += fmt.Sprintf(" --parallel %d", n)
		}
		if f := c.String("sim-fault"); f != "" {
			cmd += " --sim-fault " + f
		}
	}
	return cmd + " " + dir
}

func checkCampaignFlags(c *cli.Context) error {
	n := c.Int("parallel")
	switch {
	case n < 1 || n > 16:
		return cli.Exit(fmt.Sprintf("--parallel %d: want 1 to 16 simulated robots", n), exitAbort)
	case n > 1 && !c.Bool("sim"):
		return cli.Exit("--parallel needs --sim: there is one real robot", exitAbort)
	case c.String("sim-fault") != "" && !c.Bool("sim"):
		return cli.Exit("--sim-fault needs --sim: faults are handed to the simulated robot", exitAbort)
	}
	if _, err := proveOptions(c, nil); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	return nil
}

// execute starts the robots, runs the folder's pending slots, prints the count table and picks the exit
// status.
func execute(c *cli.Context, f *campaign.Folder) error {
	out := c.App.Writer
	p := f.Plan
	name := p.Name
	if name == "" {
		name = filepath.Base(f.Dir)
	}
	fmt.Fprintf(out, "campaign %s: %s proof, %d cells x %d runs (%s), seed %d; folder %s\n",
		name, p.Proof, len(p.Cells), p.Runs(), basis(p), p.Seed, f.Dir)
	if f.Shard.N > 0 {
		fmt.Fprintf(out, "shard %s: %d of the campaign's %d runs (seq-1) %% %d == %d\n", f.Shard, len(f.Slots()), len(f.Meta.Schedule), f.Shard.N, f.Shard.I-1)
	}
	pending := f.Pending()
	if len(pending) == 0 {
		fmt.Fprintln(out, "every run of this folder is on record: nothing to run")
		return countsAndStatus(c, f, campaign.Tally{})
	}

	// The first Ctrl-C stops the taking of runs, the second abandons the runs in progress.
	intr := campaign.NotifyInterrupts(out)
	defer intr.Stop()

	// The robots live until closeAll, whatever the signals: the teardown of an abandoned run still needs them.
	robots, closeAll, err := startRobots(c, f, context.Background(), out)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if c.String("rig") != "" {
		if err := doctorGate(c, f, robots, out); err != nil {
			closeAll()
			return err
		}
	}
	ses, err := campaign.Execute(intr.Take, intr.Run, f, campaign.Options{Robots: robots, Out: out, Ask: terminalAsk(c)})
	closeAll()
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "stopproof: %v\n", err)
	}
	return countsAndStatus(c, f, ses, err)
}

func basis(p *campaign.Plan) string {
	if p.R != 0 {
		return fmt.Sprintf("R %g at C %g", p.R, p.C)
	}
	return "n given"
}

// countsAndStatus prints the count table and the failed runs, calls Summarize, and picks the exit status.
func countsAndStatus(c *cli.Context, f *campaign.Folder, ses campaign.Tally, errs ...error) error {
	out := c.App.Writer
	cs, err := campaign.Counts(f)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	fmt.Fprintln(out)
	campaign.WriteCounts(out, cs)
	runs, _ := f.Runs()
	failed := 0
	for _, r := range runs {
		if r.Outcome == campaign.Fail || r.Outcome == campaign.Timeout {
			failed++
			fmt.Fprintf(out, "%s: run %d (%s #%d, robot %d): %s; evidence %s\n", r.Outcome, r.Seq, r.Cell, r.Rep, r.Worker, r.Reason,
				filepath.Join(f.Dir, r.Evidence))
		}
	}
	pending := len(f.Pending())
	// The statistics and the claim per cell (the verification report's summary; stopproof report --campaign
	// writes the whole report), once every run is on record.
	claim := true
	if pending == 0 && f.Shard.N > 0 {
		// A shard holds a part of every cell's runs: the claim is judged on the merged shards.
		fmt.Fprintf(out, "\nshard %d/%d done: the claim and the bounds come from all the shards together: stopproof report --campaign SHARD-FOLDERS...\n", f.Shard.I, f.Shard.N)
	} else if pending == 0 {
		fmt.Fprintln(out)
		pass, err := campaign.WriteSummary(out, f.Dir)
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "stopproof: summary: %v\n", err)
		}
		claim = pass && err == nil
	}
	switch {
	case failed > 0:
		fmt.Fprintf(out, "CAMPAIGN FAILED: %d run(s) failed", failed)
		if pending > 0 {
			fmt.Fprintf(out, "; %d still to run: %s", pending, resumeCommand(c, f.Dir, false))
		}
		fmt.Fprintln(out)
		return cli.Exit("", exitFail)
	case pending > 0:
		why := ses.Stopped
		if len(errs) > 0 && errs[0] != nil {
			why = errs[0].Error()
		}
		fmt.Fprintf(out, "CAMPAIGN UNFINISHED (%s): %d of %d runs on record, none failed; go on with: %s\n",
			why, len(f.Slots())-pending, len(f.Slots()), resumeCommand(c, f.Dir, false))
		return cli.Exit("", exitAbort)
	}
	if !claim {
		fmt.Fprintf(out, "CAMPAIGN FAILED: every run passed, but a cell's claim or bound does not hold (the summary above; the report: stopproof report --campaign %s)\n", f.Dir)
		return cli.Exit("", exitFail)
	}
	if f.Shard.N > 0 {
		fmt.Fprintf(out, "CAMPAIGN SHARD PASSED: all %d runs of shard %d/%d passed (folder %s)\n", len(f.Slots()), f.Shard.I, f.Shard.N, f.Dir)
		return nil
	}
	fmt.Fprintf(out, "CAMPAIGN PASSED: all %d runs passed and every cell's claim holds (folder %s; the verification report: stopproof report --campaign --html FILE %s)\n", len(f.Slots()), f.Dir, f.Dir)
	return nil
}

// terminalAsk asks on the terminal (stdin) and reads y/yes to go on; anything else, or no terminal, stops.
func terminalAsk(c *cli.Context) func(string) bool {
	in := bufio.NewReader(c.App.Reader)
	var mu sync.Mutex
	return func(prompt string) bool {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(c.App.Writer, "%s [y/N] ", prompt)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(c.App.Writer, "(no answer: stopping; resume when ready)")
			return false
		}
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes"
	}
}

// startRobots starts one simulated robot per --parallel (campaign.StartRobots: at once), or reaches the
// running driver. The returned close tears every target down.
func startRobots(c *cli.Context, f *campaign.Folder, ctx context.Context, out io.Writer) ([]campaign.Robot, func(), error) {
	host, _ := os.Hostname()
	ses := &campaign.SessionClock{}
	clk := clock.Real{}
	n := c.Int("parallel")
	world := "stand"
	if f.Plan.Proof == campaign.ProofFloor {
		world = "floor"
	}
	if c.Bool("sim") {
		fmt.Fprintf(out, "starting %d simulated %s robot(s) and rosorin-base ...\n", n, world)
	}
	robots, closeAll, err := campaign.StartRobots(n, func(i int) (campaign.Robot, io.Closer, error) {
		wdir := filepath.Join(f.Dir, "workers", fmt.Sprint(i+1))
		ev, err := evidence.Create(wdir, evidence.Name("target", clk.Now()), clk)
		if err != nil {
			return nil, nil, err
		}
		var t target.Target
		if c.Bool("sim") {
			st, err := target.StartSim(ctx, target.SimConfig{World: world, BaseBin: c.String("base-bin"), Seed: c.Int64("sim-seed") + int64(i),
				Fault: c.String("sim-fault"), BaseLog: filepath.Join(wdir, "rosorin-base.log"), Clock: clk, Evidence: ev, Out: io.Discard})
			if err != nil {
				return nil, ev, fmt.Errorf("simulated robot %d: %w", i+1, err)
			}
			t = st
		} else {
			lc := target.DefaultLiveConfig()
			if s := c.String("socket"); s != "" {
				lc.Socket = s
			}
			lc.Device, lc.ServiceStop, lc.ServiceStart = c.String("device"), c.String("service-stop"), c.String("service-start")
			lc.Clock, lc.Evidence = clk, ev
			t = target.NewLiveTarget(lc)
		}
		if world == "floor" {
			fo := floor.DefaultOptions()
			fo.Clock, fo.PathTimeout = clk, c.Duration("timeout-per-path")
			return &campaign.FloorRobot{Target: t, Options: fo, Version: version(), Host: host,
					ConfigFile: c.String("driver-config"), Session: ses, Ask: terminalAsk(c)},
				campaign.Closers{t, ev}, nil
		}
		o, _ := proveOptions(c, nil)
		return &campaign.StandRobot{Target: t, Options: o, Version: version(), Host: host,
				ConfigFile: c.String("driver-config"), NoRecord: c.Bool("no-record"), Session: ses},
			campaign.Closers{t, ev}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	switch t := robots[0].(type) {
	case *campaign.StandRobot:
		fmt.Fprintf(out, "robot 1: %s\n", t.Target.Describe())
	case *campaign.FloorRobot:
		fmt.Fprintf(out, "robot 1: %s\n", t.Target.Describe())
	}
	return robots, closeAll, nil
}
