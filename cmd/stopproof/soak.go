package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"
	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stopmon"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/soak"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/sim"
)

func soakCommand() *cli.Command {
	return &cli.Command{
		Name:  "soak",
		Usage: "drive the simulated robot for a long while with stops of every kind, and check the driver's stop monitor: every stop recorded, none flagged (or, with a wearing fault, flagged in time)",
		Description: `The in-service stop monitor's soak (issue 35): a motion (forward, strafe or turn at a random
speed), a stop of the next kind (deadman, e-stop, disable, gamepad, take-over, scan loss, driver kill), the
driver's judging window, again, for --duration; the service's supervisor SIGKILLed every
--kill-service-every stops, just after a stop's record was due. Then the driver's stop log is read and every
stop made is matched to its record (kind, trigger within 0.5 s).

Without a fault the soak passes when every stop has its record and none was flagged (a false flag costs
trust). With --expect-flag (a wear-brake fault: --sim-fault wear-brake=5%/stop@start) it passes when the
monitor flagged the stops only after the simulator's true stop crossed the limit, and within --flag-within
stops of it; the report says when each happened.

Exit 0 passed, 1 failed, 2 bad input.

Examples:
   stopproof soak --sim --duration 30m --kill-service-every 60
   stopproof soak --sim --duration 10m --kinds estop,deadman --sim-fault wear-brake=5%/stop@start --expect-flag \
       --sim-param stop_monitor.mode=hold`,
		Flags: append(soakTargetFlags(),
			&cli.DurationFlag{Name: "duration", Value: 30 * time.Minute, Category: sectionProof, Usage: "how long to drive"},
			&cli.StringFlag{Name: "kinds", Category: sectionProof, Usage: "the stops made, comma-separated (default: " + strings.Join(soak.AllKinds, ",") + ")"},
			&cli.StringFlag{Name: "speeds", Value: "0.1,0.2,0.3", Category: sectionProof, Usage: "the commanded speeds, m/s, comma-separated"},
			&cli.StringFlag{Name: "directions", Value: "fwd,left,right,turn", Category: sectionProof, Usage: "the motions: fwd, back, left, right, turn"},
			&cli.IntFlag{Name: "kill-service-every", Category: sectionProof, Usage: "SIGKILL the service's supervisor every `N` stops (0: never)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Category: sectionProof, Usage: "the soak's choice of kinds and motions"},
			&cli.StringFlag{Name: "world", Value: "floor", Category: sectionTarget, Usage: "the sim's world: floor (LiDAR odometry: travel) or stand"},
			&cli.StringFlag{Name: "limits", Category: sectionProof,
				Usage: "the stop monitor's limits: a campaign summary or envelope JSON `FILE` (stop_monitor.limits_file), or a YAML file of stated limits ({estop: {max_still_s: 0.5, max_travel_m: 0.05}}: stop_monitor.limits)"},
			&cli.BoolFlag{Name: "expect-flag", Category: sectionProof, Usage: "a fault wears the brakes: the monitor must flag, after the sim's truth crossed the limit"},
			&cli.IntFlag{Name: "flag-within", Value: 5, Category: sectionProof, Usage: "with --expect-flag: flagged within `N` stops of the truth crossing the limit"},
		),
		Action: runSoak,
	}
}

// soakTargetFlags are the target flags a soak takes: the simulator's (the soak reads the driver's stop log
// from its state directory), the evidence folder and --json.
func soakTargetFlags() []cli.Flag {
	keep := map[string]bool{"sim": true, "sim-fault": true, "sim-param": true, "sim-seed": true, "base-bin": true, "evidence-dir": true, "json": true}
	var out []cli.Flag
	for _, f := range targetFlags() {
		if keep[f.Names()[0]] {
			out = append(out, f)
		}
	}
	return out
}

func runSoak(c *cli.Context) error {
	if !c.Bool("sim") {
		return cli.Exit("stopproof soak runs on the simulator (--sim): on a robot, read `rosorin-base stops` after a shift of work instead", exitAbort)
	}
	if err := checkSimParams(c); err != nil {
		return err
	}
	o := soak.Options{Duration: c.Duration("duration"), Seed: c.Uint64("seed"), KillServiceEvery: c.Int("kill-service-every"), Out: c.App.Writer,
		Ack: c.Bool("expect-flag")}
	if o.Duration <= 0 {
		return cli.Exit("--duration must be > 0", exitAbort)
	}
	if s := c.String("kinds"); s != "" {
		for _, k := range strings.Split(s, ",") {
			o.Kinds = append(o.Kinds, strings.TrimSpace(k))
		}
	}
	for _, f := range strings.Split(c.String("speeds"), ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || v > 1 {
			return cli.Exit(fmt.Sprintf("--speeds: %q: a speed in m/s, > 0 and <= 1", f), exitAbort)
		}
		o.Speeds = append(o.Speeds, v)
	}
	for _, d := range strings.Split(c.String("directions"), ",") {
		d = strings.TrimSpace(d)
		switch d {
		case "fwd", "back", "left", "right", "turn":
			o.Directions = append(o.Directions, d)
		default:
			return cli.Exit(fmt.Sprintf("--directions: %q: want fwd, back, left, right or turn", d), exitAbort)
		}
	}
	world := c.String("world")
	if world != "floor" && world != "stand" {
		return cli.Exit(fmt.Sprintf("--world %q: floor or stand", world), exitAbort)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	clk := clock.Real{}
	ev, err := evidence.Create(c.String("evidence-dir"), evidence.Name("stop_soak", clk.Now()), clk)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	defer ev.Close()
	out := c.App.Writer
	fmt.Fprintf(out, "starting the simulated %s robot and rosorin-base ...\n", world)
	params := c.StringSlice("sim-param")
	if f := c.String("limits"); f != "" {
		p, err := limitsParam(f)
		if err != nil {
			return cli.Exit("--limits: "+err.Error(), exitAbort)
		}
		params = append(params, p)
		if _, err := target.SimParamsYAML(params); err != nil {
			return cli.Exit("--limits: "+err.Error(), exitAbort)
		}
	}
	st, err := target.StartSim(ctx, target.SimConfig{World: world, BaseBin: c.String("base-bin"), Seed: c.Int64("sim-seed"),
		Fault: c.String("sim-fault"), Params: params, Clock: clk, Evidence: ev, Out: io.Discard})
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	defer st.Close()
	fmt.Fprintf(out, "robot: %s; evidence %s\n", st.Describe(), ev.Path())
	o.OnStop = func(s *soak.Stop) {
		f, n := st.Sim().BrakeWear()
		s.Truth = map[string]float64{"brake_factor": f, "brake_stops": float64(n)}
	}
	res, err := soak.Run(ctx, st, o)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if err := writeJSON(c.String("json"), res); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	// The stop log goes with the sim's temporary folder: a copy beside the evidence, for
	// `stopproof report --history CAMPAIGN... DIR`.
	keep := strings.TrimSuffix(ev.Path(), filepath.Ext(ev.Path())) + "-state"
	if err := copyDir(filepath.Join(st.StateDir(), "stops"), filepath.Join(keep, "stops")); err != nil {
		fmt.Fprintf(out, "the stop log could not be kept: %v\n", err)
	} else {
		fmt.Fprintf(out, "stop log kept: %s (stopproof report --history CAMPAIGN_DIR... %s)\n", keep, keep)
	}
	pass := soakReport(out, res, c.Bool("expect-flag"), c.Int("flag-within"))
	if !pass {
		return cli.Exit("", exitFail)
	}
	return nil
}

// soakReport prints the per-kind table and the verdict; true when the soak passed.
func soakReport(w io.Writer, res *soak.Result, expectFlag bool, within int) bool {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithHeaderAlignment(tw.AlignLeft), tablewriter.WithRowAlignment(tw.AlignRight))
	t.Header("kind", "made", "recorded", "counted", "warn", "error", "median still s", "worst still s", "worst travel m")
	for _, k := range res.Kinds {
		_ = t.Append([]string{k.Kind, strconv.Itoa(k.Made), strconv.Itoa(k.Recorded), strconv.Itoa(k.Counted), strconv.Itoa(k.Warn),
			strconv.Itoa(k.Error), f3(k.MedianStill), f3(k.WorstStill), f3(k.WorstTr)})
	}
	fmt.Fprintln(w)
	_ = t.Render()
	made := 0
	for _, s := range res.Stops {
		if s.Err == "" {
			made++
		}
	}
	fmt.Fprintf(w, "%d stops made in %s (%d could not be made), %d records, %d supervisor SIGKILLs\n", made,
		res.Duration.Truncate(time.Second), len(res.Stops)-made, len(res.Records), res.ServiceKills)
	for _, m := range res.Missing {
		fmt.Fprintf(w, "MISSING: stop %d (%s after %s at %s) has no record\n", m.N, m.Kind, m.Motion, m.At.Format("15:04:05.000"))
	}
	if res.LogErr != "" {
		fmt.Fprintf(w, "STOP LOG: %s\n", res.LogErr)
	}
	pass := len(res.Missing) == 0 && res.LogErr == ""
	if !expectFlag {
		if h := res.Hold; h != nil {
			fmt.Fprintf(w, "FALSE HOLD after stop %d: %s\n", h.AfterStop, h.Why)
			pass = false
		}
		for _, r := range res.Flagged {
			fmt.Fprintf(w, "FALSE FLAG: record %d (%s at %s): %s\n", r.Seq, r.Kind, r.Wall.Format("15:04:05.000"), r.Level)
		}
		pass = pass && len(res.Flagged) == 0
		if pass {
			fmt.Fprintln(w, "SOAK PASSED: every stop recorded, no flag")
		} else {
			fmt.Fprintln(w, "SOAK FAILED")
		}
		return pass
	}
	if h := res.Hold; h != nil {
		fmt.Fprintf(w, "after stop %d the monitor held enable: %s\n", h.AfterStop, h.Why)
		switch {
		case h.Err != "":
			fmt.Fprintf(w, "acknowledgement: %s\n", h.Err)
			pass = false
		case h.EnabledAfterAck:
			fmt.Fprintln(w, "acknowledged with the safety role: enable refused before, accepted after")
		}
	}
	cross, flag := wearCrossing(res)
	switch {
	case cross == 0:
		fmt.Fprintln(w, "the sim's true stop never crossed a limit: nothing to flag")
		pass = false
	case flag == 0:
		fmt.Fprintf(w, "the sim's true stop crossed its limit at stop %d; the monitor never flagged\n", cross)
		pass = false
	default:
		fmt.Fprintf(w, "the sim's true stop crossed its limit at stop %d; the monitor first flagged at stop %d (%+d stops)\n", cross, flag, flag-cross)
		pass = pass && flag >= cross && flag-cross <= within
	}
	if pass {
		fmt.Fprintln(w, "SOAK PASSED: the wear was flagged in time, never before the truth crossed the limit")
	} else {
		fmt.Fprintln(w, "SOAK FAILED")
	}
	return pass
}

// wearCrossing is the first stop whose true stop (the sim's braking model at the brake factor of that stop)
// lies past the limit its record was held against, and the first stop the monitor flagged (0: none).
func wearCrossing(res *soak.Result) (cross, flag int) {
	for _, s := range res.Stops {
		r := s.Record
		if r == nil {
			continue
		}
		if flag == 0 && (r.Level == api.StopLevelWarn || r.Level == api.StopLevelError) {
			flag = s.N
		}
		if cross != 0 || r.Limit == nil || s.Truth == nil {
			continue
		}
		truth, err := sim.StoppingTruth(r.BodyVel, s.Truth["brake_factor"], 0.04)
		if err != nil {
			continue
		}
		if (r.Limit.MaxStillS > 0 && truth.Time > r.Limit.MaxStillS) || (r.Limit.MaxTravelM > 0 && truth.Distance > r.Limit.MaxTravelM) {
			cross = s.N
		}
	}
	return cross, flag
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// limitsParam is the driver parameter for --limits FILE: a JSON file (a campaign summary, an envelope) is
// the driver's limits file, by its absolute path; a YAML file of stated limits (stopmon.ConfigLimits) goes
// in as stop_monitor.limits, on one line.
func limitsParam(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		abs, err := filepath.Abs(file)
		if err != nil {
			return "", err
		}
		return "stop_monitor.limits_file=" + abs, nil
	}
	var lim stopmon.ConfigLimits
	if err := yaml.Unmarshal(b, &lim); err != nil {
		return "", fmt.Errorf("%s: neither a campaign summary or envelope (JSON) nor stated limits (YAML): %v", file, err)
	}
	if _, err := lim.Limits(); err != nil {
		return "", fmt.Errorf("%s: %v", file, err)
	}
	var n yaml.Node
	if err := n.Encode(lim); err != nil {
		return "", err
	}
	setFlow(&n)
	one, err := yaml.Marshal(&n)
	if err != nil {
		return "", err
	}
	return "stop_monitor.limits='" + strings.ReplaceAll(strings.TrimSpace(string(one)), "'", "''") + "'", nil
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}

// copyDir copies the regular files of src (one level) into dst, created.
func copyDir(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
