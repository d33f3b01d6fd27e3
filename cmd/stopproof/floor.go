package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/session"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/sim"
)

// floorTargetFlags are the target flags without --allow-plugged (the floor proof never drives plugged in)
// plus the floor world's room.
func floorTargetFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range targetFlags() {
		if f.Names()[0] != "allow-plugged" {
			out = append(out, f)
		}
	}
	return append(out, &cli.StringFlag{Name: "sim-room", Category: sectionTarget,
		Usage: "the simulated floor robot's room: " + strings.Join(sim.RoomNames, " or ") + " (corridor: the odometry is degenerate along it, the negative control)"})
}

func floorCommand() *cli.Command {
	return &cli.Command{
		Name:  "floor",
		Usage: "the floor stop proof: short legs on the floor, each stop timed from the LiDAR odometry (chapter 19's stop_proof_floor)",
		Description: `Safety: clear floor ahead (the proof checks 1.2 m), charger unplugged, you next to the robot with the gamepad,
the power switch in reach. Stop navigation and anything else that publishes velocity commands first.

Exit status (prove): 0 when every leg passed, 1 when a leg failed (a stop not shown, STILL MOVING, MOVED AGAIN:
the proof stops itself), 2 when nothing failed but not everything was proven (ABORT before driving, NOT RUN,
NOT JUDGED, ABORTED by the guard). look: 0 when the proof would drive, 2 otherwise.`,
		Subcommands: []*cli.Command{floorLookCommand(), floorProveCommand()},
	}
}

func floorLookCommand() *cli.Command {
	return &cli.Command{
		Name:  "look",
		Usage: "state, battery, plug state, LiDAR coverage per 30 degree bearing and odometry health; sends nothing",
		Description: `Examples:
   stopproof floor look --sim
   stopproof floor look --sim --sim-room corridor       (the odometry degenerate along the corridor)`,
		Flags: append(floorTargetFlags(),
			&cli.DurationFlag{Name: "seconds", Value: 2 * time.Second, Category: sectionProof, Usage: "how long scans are read"}),
		Action: runFloorLook,
	}
}

func floorProveCommand() *cli.Command {
	return &cli.Command{
		Name:      "prove",
		Usage:     "drive a short leg per path and motion, trigger its stop, judge it from the measured motion",
		ArgsUsage: "PATHS (comma-separated: " + floor.Paths.List() + ", or all: the stop paths, or holds: the hold paths)",
		Description: `Paths and their legs, in the order they run:
` + floor.Paths.Help() + `
Result lines as chapter 19's: "estop fwd 0.2 before: 0.19 m/s measured; measured still after 0.38 s; travel
after the trigger: LiDAR 3.1 cm PASS", then the table and RESULT.

Examples:
   stopproof floor prove --sim all
   stopproof floor prove --sim holds                                   (no motion without a deliberate act: docs/safety-case.md)
   stopproof floor prove --sim --sim-fault ignore-motor estop          (the board ignores the stop: FAIL, exit 1)
   stopproof floor prove --sim --sim-fault obstacle=0.9@start estop    (an obstacle in the corridor: NOT RUN, exit 2)
   stopproof floor prove --sim --sim-fault obstacle=0.4 estop          (an obstacle appears during the leg: ABORTED, exit 2)
   stopproof floor prove --sim --sim-room corridor estop               (degenerate odometry: refused, exit 2)`,
		Flags: append(floorTargetFlags(),
			&cli.DurationFlag{Name: "leg", Value: 1500 * time.Millisecond, Category: sectionProof, Usage: "how long each leg drives before its trigger"},
			&cli.DurationFlag{Name: "hold", Value: 2500 * time.Millisecond, Category: sectionProof,
				Usage: "how long the leg goes on after the trigger (commands keep coming; silence for the deadman)"},
			&cli.DurationFlag{Name: "timeout-per-path", Value: 60 * time.Second, Category: sectionProof,
				Usage: "hard timeout of each leg: past it the leg is TIMEOUT"}),
		Action: runFloorProve,
	}
}

// openFloor sets up the session for the floor world (the simulated robot on the floor, the charger
// unplugged) from the flags.
func openFloor(c *cli.Context, kind string) (*session.Session, error) {
	return open(c, kind, target.SimConfig{World: "floor", Room: c.String("sim-room")})
}

func runFloorLook(c *cli.Context) error {
	s, err := openFloor(c, "stop_proof_floor_look")
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := floor.Look(s.Ctx, s.Target, c.Duration("seconds"), c.App.Writer)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	if jerr := writeJSON(c.String("json"), rep); jerr != nil {
		fmt.Fprintln(c.App.ErrWriter, jerr)
	}
	if !rep.OK {
		return cli.Exit("", exitAbort)
	}
	return nil
}

func floorOptions(c *cli.Context, s *session.Session) (floor.Options, error) {
	o := floor.DefaultOptions()
	o.Leg, o.Hold, o.PathTimeout = c.Duration("leg"), c.Duration("hold"), c.Duration("timeout-per-path")
	o.Out = c.App.Writer
	if s != nil {
		o.Evidence = s.Evidence
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if min := o.Leg + o.Hold + 10*time.Second; o.PathTimeout < min {
		return o, fmt.Errorf("--timeout-per-path %v is shorter than leg %v + hold %v + 10 s", o.PathTimeout, o.Leg, o.Hold)
	}
	return o, nil
}

func runFloorProve(c *cli.Context) error {
	steps, err := stepsArg(c, "stopproof floor prove --sim "+floor.Paths.List(), floor.Paths.Parse)
	if err != nil {
		return err
	}
	if _, err := floorOptions(c, nil); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	s, err := openFloor(c, "stop_proof_floor")
	if err != nil {
		return err
	}
	defer s.Close()
	o, _ := floorOptions(c, s)
	rep, err := floor.Prove(s.Ctx, s.Target, steps, o)
	if rep == nil {
		return finish(c, nil, err, nil)
	}
	rep.Version = version()
	return finishWith(c, rep, err, func() int {
		switch {
		case rep.AnyFailed():
			return exitFail
		case !rep.AllPassed():
			return exitAbort
		}
		return 0
	})
}
