// Command rosorin-sim runs a simulated ROSOrin (board + COIN-D6 LiDAR behind pseudo-terminals) and
// triggers faults and events on a running one through its control socket. See package sim; the
// subcommands are made from sim.FaultSpecs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/internal/cliargs"
	"github.com/rosorin/rosorin/sim"
)

func main() {
	if err := run(os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-sim:", err)
		os.Exit(1)
	}
}

// run runs the app on args (program name first), flags allowed after the arguments.
func run(args []string, stdout, stderr io.Writer) error {
	app := newApp()
	app.Writer, app.ErrWriter = stdout, stderr
	return app.Run(cliargs.Reorder(args, app))
}

var socketFlags = []cli.Flag{
	&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Usage: "directory of the running sim (its `DIR`/sim.sock)", EnvVars: []string{"ROSORIN_SIM_DIR"}},
	&cli.StringFlag{Name: "socket", Usage: "control socket `PATH` (instead of --dir)"},
}

func newApp() *cli.App {
	cmds := []*cli.Command{runCommand()}
	for _, sp := range sim.FaultSpecs {
		cmds = append(cmds, faultCommand(sp))
	}
	cmds = append(cmds,
		queryCommand("truth", "print the simulator's ground truth as JSON (for tests, never for judges)"),
		queryCommand("stats", "print the simulator's counters as JSON"))
	return &cli.App{
		Name:  "rosorin-sim",
		Usage: "a simulated ROSOrin robot: board and COIN-D6 LiDAR behind pseudo-terminals",
		Description: fmt.Sprintf(`"run" starts a simulator whose board (DIR/%s, %d baud) and LiDAR (DIR/%s, %d baud)
look like the robot's serial devices; the other commands act on a running simulator through DIR/%s.

Example:
   rosorin-sim run --dir /tmp/robot --world stand --fault lidar-silent@10s &
   rosorin-sim usb-drop --dir /tmp/robot 3s
   rosorin-sim sticks --dir /tmp/robot 0 64 0 0
   rosorin-sim truth --dir /tmp/robot`, sim.BoardLinkName, sim.BoardBaud, sim.LidarLinkName, sim.LidarBaud, sim.ControlName),
		Commands: cmds,
	}
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "start a simulator and run until SIGINT/SIGTERM",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Required: true, Usage: "`DIR` for the device links ttyACM0, lidar and the control socket sim.sock (created if missing)"},
			&cli.StringFlag{Name: "world", Value: "stand", Usage: "`stand` (wheels in the air) or floor (drives in the room)"},
			&cli.StringFlag{Name: "room", Usage: "room YAML `FILE` (walls and boxes; see docs/sim.md); default: a 5 m x 4 m living room"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of every noise generator"},
			&cli.StringFlag{Name: "truth", Usage: "write ground truth as JSON lines to `FILE`"},
			&cli.StringSliceFlag{Name: "fault", Usage: "apply a fault at start (repeatable): " + sim.FaultHelp},
		},
		Action: func(cc *cli.Context) error {
			if cc.NArg() > 0 {
				return fmt.Errorf("run takes no arguments, got %q; did you mean --fault %s?", cc.Args().Slice(), cc.Args().First())
			}
			cfg := sim.Config{Dir: cc.String("dir"), World: cc.String("world"), Seed: cc.Int64("seed"),
				TruthPath: cc.String("truth"), Faults: cc.StringSlice("fault")}
			if f := cc.String("room"); f != "" {
				r, err := sim.LoadRoom(f)
				if err != nil {
					return err
				}
				cfg.Room = r
			}
			return sim.Run(context.Background(), cfg, cc.App.Writer)
		},
	}
}

// faultCommand is the subcommand of one fault table entry.
func faultCommand(sp sim.FaultSpec) *cli.Command {
	flags := socketFlags
	if sp.Option != "" {
		flags = append([]cli.Flag{&cli.StringFlag{Name: sp.Option, Value: sp.OptionDefault, Usage: sp.OptionUsage}}, socketFlags...)
	}
	return &cli.Command{
		Name: string(sp.Kind), Usage: sp.Doc, Flags: flags,
		ArgsUsage: strings.Join(sp.CLIArgs(), " ") + " (the fault " + sp.Form + ", e.g. " + sp.Example + ")",
		Action: func(cc *cli.Context) error {
			var opt string
			if sp.Option != "" {
				opt = cc.String(sp.Option)
			}
			req, err := sp.Request(cc.Args().Slice(), opt)
			if err != nil {
				return err
			}
			return send(cc, req)
		},
	}
}

func queryCommand(name, usage string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			if cc.NArg() != 0 {
				return fmt.Errorf("%s takes no arguments, got %q", name, cc.Args().Slice())
			}
			return send(cc, name)
		},
	}
}

func send(cc *cli.Context, req string) error {
	sock, err := sim.SocketPath(cc.String("dir"), cc.String("socket"))
	if err != nil {
		return err
	}
	return sim.Send(cc.App.Writer, sock, req)
}
