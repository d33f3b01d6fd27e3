package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/rigdoctor"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/rig"
)

const rigUsage = "the robot's rig `FILE` (YAML: name, setup, board, lidar, socket, service commands, driver_config, or sim: for the simulator; docs/rigs.md): sets the target flags it names; flags given beside it override it"

func rigFlag() cli.Flag {
	return &cli.StringFlag{Name: "rig", Category: sectionTarget, EnvVars: []string{"STOPPROOF_RIG"}, Usage: rigUsage}
}

// withRig gives every command that has the target flags (a --socket) the --rig flag and a Before that
// applies it, over the whole tree.
func withRig(cmds []*cli.Command) []*cli.Command {
	for _, c := range cmds {
		if hasFlag(c, "socket") && !hasFlag(c, "rig") {
			c.Flags = append(c.Flags, rigFlag())
		}
		if hasFlag(c, "rig") {
			prev := c.Before
			c.Before = func(ctx *cli.Context) error {
				if prev != nil {
					if err := prev(ctx); err != nil {
						return err
					}
				}
				_, err := applyRig(ctx)
				return err
			}
		}
		withRig(c.Subcommands)
	}
	return cmds
}

func hasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// applyRig loads --rig (nil without one) and sets each flag it names that the command has and the command
// line did not give. A floor rig refuses the stand's commands and a stand rig the floor's.
func applyRig(c *cli.Context) (*rig.Rig, error) {
	path := c.String("rig")
	if path == "" {
		return nil, nil
	}
	r, err := rig.Load(path)
	if err != nil {
		return nil, cli.Exit(err.Error(), exitAbort)
	}
	cmd := c.Command.FullName()
	switch {
	case r.Setup == rig.Floor && (cmd == "prove" || cmd == "characterize" || cmd == "scangate"):
		return nil, cli.Exit(fmt.Sprintf("%s: rig %s is a floor rig: stopproof %s is the stand's (stopproof floor ...)", path, r.Name, cmd), exitAbort)
	case r.Setup == rig.Stand && strings.HasPrefix(cmd, "floor"):
		return nil, cli.Exit(fmt.Sprintf("%s: rig %s is a stand rig: stopproof %s needs a floor rig", path, r.Name, cmd), exitAbort)
	}
	for _, f := range r.Flags() {
		if !hasFlag(c.Command, f.Name) || c.IsSet(f.Name) {
			continue
		}
		if err := c.Set(f.Name, f.Value); err != nil {
			return nil, cli.Exit(fmt.Sprintf("%s: --%s %q: %v", path, f.Name, f.Value, err), exitAbort)
		}
	}
	return r, nil
}

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "bring-up checks of a proof rig: rosorin-base doctor's (device, permissions, holder, board and LiDAR, service, clock, disk) and the rig's (setup, roles on the socket, service commands, driver config); never moves a wheel",
		Description: `The driver's checks (docs/doctor.md) and what a proof needs beyond them: the setup stated (stand or
floor), this user's roles on the control socket (a proof drives, e-stops and resets: the safety role), the
service's start and stop commands found, the driver's configuration files readable. With a sim rig (or --sim)
it starts the simulated robot and its rosorin-base and checks them. A campaign on a rig runs these checks
first and refuses to start on a FAIL.

Exit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 the doctor could not run.

   stopproof doctor --rig deploy/ci/rigs/rosorin-01.yaml
   stopproof doctor --rig deploy/ci/sim-rig.yaml --json doctor.json
   stopproof doctor --sim`,
		Flags: []cli.Flag{
			rigFlag(),
			&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Category: sectionTarget, Usage: "the board's serial device"},
			&cli.StringFlag{Name: "lidar", Value: "/dev/lidar", Category: sectionTarget, Usage: `the LiDAR's device ("" = none)`},
			&cli.StringFlag{Name: "socket", Value: api.DefaultSocket, EnvVars: []string{api.SocketEnv}, Category: sectionTarget, Usage: "the driver's control socket"},
			&cli.StringFlag{Name: "unit", Value: "rosorin-base", Category: sectionTarget, Usage: `the systemd unit ("" = don't ask)`},
			&cli.StringFlag{Name: "service-stop", Category: sectionTarget, Usage: "the service's stop command, checked runnable"},
			&cli.StringFlag{Name: "service-start", Category: sectionTarget, Usage: "the service's start command, checked runnable"},
			&cli.StringFlag{Name: "driver-config", Category: sectionTarget, Usage: "the driver's configuration `FILE`, checked readable (a rig's driver_config: every file)"},
			&cli.BoolFlag{Name: "sim", Category: sectionTarget, Usage: "start a simulated stand robot and rosorin-base and check them"},
			&cli.Int64Flag{Name: "sim-seed", Value: 1, Category: sectionTarget, Usage: "the simulated robot's noise seed"},
			&cli.StringFlag{Name: "base-bin", Category: sectionTarget, Usage: "rosorin-base binary for --sim (default: built from the source tree when run inside it)"},
			&cli.StringSliceFlag{Name: "disk", Category: sectionOutput, Usage: "a folder whose free space matters (the campaign folder; repeat)"},
			&cli.DurationFlag{Name: "listen", Value: 2 * time.Second, Category: sectionProof, Usage: "how long to listen to a free port"},
			&cli.StringFlag{Name: "json", Category: sectionOutput, Usage: "also write the report as JSON to `FILE` (- for stdout instead of the table)"},
		},
		Action: runDoctor,
	}
}

func runDoctor(c *cli.Context) error {
	if c.Args().Present() {
		return cli.Exit("stopproof doctor: no arguments expected (flags only), got "+c.Args().First(), exitAbort)
	}
	if c.Duration("listen") <= 0 || c.Duration("listen") > time.Minute {
		return cli.Exit(fmt.Sprintf("stopproof doctor: --listen %s: between 0 and 1m", c.Duration("listen")), exitAbort)
	}
	r, err := applyRig(c) // Before applied it already; this reads the rig for the report
	if err != nil {
		return err
	}
	var t *target.SimTarget
	if c.Bool("sim") {
		fmt.Fprintln(c.App.Writer, "starting a simulated stand robot and rosorin-base ...")
		t, err = target.StartSim(context.Background(), target.SimConfig{BaseBin: c.String("base-bin"), Seed: c.Int64("sim-seed"), Out: c.App.ErrWriter})
		if err != nil {
			return cli.Exit("stopproof doctor: the simulated robot: "+err.Error(), exitAbort)
		}
		defer t.Close()
	}
	rep := rigReport(c, r, t)
	return writeDoctor(c, rep)
}

// rigReport runs the proof rig's doctor on the flags (the rig applied), or on the simulated robot t.
func rigReport(c *cli.Context, r *rig.Rig, t *target.SimTarget) *doctor.Report {
	o := rigdoctor.Options{Rig: r, ServiceStart: c.String("service-start"), ServiceStop: c.String("service-stop")}
	o.Doctor = doctor.Options{Device: c.String("device"), Lidar: c.String("lidar"), Socket: c.String("socket"),
		Unit: c.String("unit"), Listen: c.Duration("listen")}
	if hasFlag(c.Command, "disk") {
		o.Doctor.DiskDirs = c.StringSlice("disk")
	}
	if t != nil {
		o.Doctor = doctor.Options{Device: t.Sim().BoardPath(), Lidar: t.Sim().LidarPath(), Socket: t.Client().Path(), Listen: o.Doctor.Listen,
			DiskDirs: o.Doctor.DiskDirs}
		o.ServiceStart, o.ServiceStop = "", ""
	}
	if r != nil && !r.IsSim() {
		o.DriverConfig = r.DriverConfig
	}
	if dc := c.String("driver-config"); dc != "" && !slices.Contains(o.DriverConfig, dc) {
		o.DriverConfig = append([]string{dc}, o.DriverConfig...)
	}
	return rigdoctor.Run(o)
}

func writeDoctor(c *cli.Context, rep *doctor.Report) error {
	var err error
	switch j := c.String("json"); j {
	case "-":
		err = rep.JSON(c.App.Writer)
	case "":
		err = rep.Text(c.App.Writer)
	default:
		var b bytes.Buffer
		if err = rep.JSON(&b); err == nil {
			err = os.WriteFile(j, b.Bytes(), 0o644)
		}
		if err == nil {
			err = rep.Text(c.App.Writer)
		}
	}
	if err != nil {
		return cli.Exit("stopproof doctor: "+err.Error(), exitAbort)
	}
	if code := rep.ExitCode(); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

// doctorGate is a campaign's check on a rig before anything moves: the proof rig's doctor on robot 1 (the
// simulated one, or the rig's devices). Its JSON report goes into the folder (campaign.RecordDoctor) and every
// run of the session names it in its conditions. On a FAIL it prints the failing checks and refuses (exit 2).
func doctorGate(c *cli.Context, f *campaign.Folder, robots []campaign.Robot, out io.Writer) error {
	r, err := rig.Load(c.String("rig"))
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	var st *target.SimTarget
	if sr, ok := robots[0].(*campaign.StandRobot); ok {
		st, _ = sr.Target.(*target.SimTarget)
	}
	fmt.Fprintf(out, "doctor on rig %s ...\n", r.Name)
	o := rigdoctor.Options{Rig: r, ServiceStart: c.String("service-start"), ServiceStop: c.String("service-stop"), DriverConfig: r.DriverConfig}
	o.Doctor = doctor.Options{Device: c.String("device"), Lidar: r.Lidar, Socket: c.String("socket"), Unit: r.Service.Unit, DiskDirs: []string{f.Dir}}
	if st != nil {
		o.Doctor = doctor.Options{Device: st.Sim().BoardPath(), Lidar: st.Sim().LidarPath(), Socket: st.Client().Path(), DiskDirs: []string{f.Dir}}
		o.ServiceStart, o.ServiceStop, o.DriverConfig = "", "", nil
	}
	if o.Doctor.Socket == "" {
		if sr, ok := robots[0].(*campaign.StandRobot); ok {
			if lt, ok := sr.Target.(*target.LiveTarget); ok {
				o.Doctor.Socket = lt.Client().Path()
			}
		}
	}
	rep := rigdoctor.Run(o)
	var b bytes.Buffer
	if err := rep.JSON(&b); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	rel, err := f.RecordDoctor(b.Bytes(), rep.Time)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if rep.Worst() == doctor.Fail {
		bad := &doctor.Report{Host: rep.Host, Time: rep.Time}
		for _, ch := range rep.Checks {
			if ch.Status == doctor.Fail {
				bad.Checks = append(bad.Checks, ch)
			}
		}
		bad.Text(out)
		return cli.Exit(fmt.Sprintf("the doctor FAILED on rig %s (report %s): the campaign does not start; nothing moved. Fix the checks above, then run again (stopproof doctor --rig %s)",
			r.Name, rel, c.String("rig")), exitAbort)
	}
	fmt.Fprintf(out, "doctor: %s (report %s)\n", rep.Worst(), rel)
	for _, rb := range robots {
		if sr, ok := rb.(*campaign.StandRobot); ok {
			sr.Rig, sr.Doctor = r.Name, rel+" ("+rep.Worst().String()+")"
		}
	}
	return nil
}

// rigPlan refuses a plan whose proof is not the rig's setup (a floor plan on a stand rig).
func rigPlan(c *cli.Context, p *campaign.Plan) error {
	if c.String("rig") == "" {
		return nil
	}
	r, err := rig.Load(c.String("rig"))
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if p.Proof != r.Setup {
		return cli.Exit(fmt.Sprintf("%s: rig %s is a %s rig and the plan is a %s proof: pass the plan for its setup or another rig", c.String("rig"), r.Name, r.Setup, p.Proof), exitAbort)
	}
	return nil
}
