// Command rosorin-sim runs a simulated ROSOrin (board + COIN-D6 LiDAR behind pseudo-terminals) and
// triggers faults and events on a running one through its control socket. See package sim.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/sim"
)

func main() {
	if err := newApp().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-sim:", err)
		os.Exit(1)
	}
}

var socketFlags = []cli.Flag{
	&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Usage: "directory of the running sim (its `DIR`/sim.sock)", EnvVars: []string{"ROSORIN_SIM_DIR"}},
	&cli.StringFlag{Name: "socket", Usage: "control socket `PATH` (instead of --dir)"},
}

func newApp() *cli.App {
	return &cli.App{
		Name:  "rosorin-sim",
		Usage: "a simulated ROSOrin robot: board and COIN-D6 LiDAR behind pseudo-terminals",
		Description: `"run" starts a simulator whose board (DIR/ttyACM0, 1,000,000 baud) and LiDAR (DIR/lidar, 230400 baud)
look like the robot's serial devices; the other commands act on a running simulator through DIR/sim.sock.

Example:
   rosorin-sim run --dir /tmp/robot --world stand --fault lidar-silent@10s &
   rosorin-sim usb-drop --dir /tmp/robot 3s
   rosorin-sim sticks --dir /tmp/robot 0 64 0 0
   rosorin-sim truth --dir /tmp/robot`,
		Commands: []*cli.Command{
			runCommand(),
			durationCommand("usb-drop", "the board's USB device disappears for DURATION; a new one appears at the same path (wheels keep turning)"),
			switchCommand("hang", "the board firmware stops reading and sending (on) or resumes (off); wheels keep turning"),
			switchCommand("ignore-motor", "the board receives motor frames but does not obey them (a broken stop)"),
			switchCommand("lidar-silent", "the LiDAR port stays open but sends no bytes"),
			durationCommand("lidar-unplug", "the LiDAR device disappears for DURATION"),
			corruptCommand(),
			buttonCommand(),
			keyCommand(),
			batteryCommand(),
			switchCommand("stall", "the robot body is held (as against an obstacle); the wheels keep turning"),
			switchCommand("pad", "a gamepad is connected (20 Hz reports) or disconnected"),
			sticksCommand(),
			queryCommand("truth", "print the simulator's ground truth as JSON (for tests, never for judges)"),
			queryCommand("stats", "print the simulator's counters as JSON"),
		},
	}
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "start a simulator and run until SIGINT/SIGTERM",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Required: true, Usage: "`DIR` for the device links ttyACM0, lidar and the control socket sim.sock (created if missing)"},
			&cli.StringFlag{Name: "world", Value: "stand", Usage: "`stand` (wheels in the air) or floor (drives in the room)"},
			&cli.StringFlag{Name: "room", Usage: "room YAML `FILE` (walls and boxes; see package sim docs); default: a 5 m x 4 m living room"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of every noise generator"},
			&cli.StringFlag{Name: "truth", Usage: "write ground truth as JSON lines to `FILE`"},
			&cli.StringSliceFlag{Name: "fault", Usage: "apply a fault at start (repeatable): " + strings.ReplaceAll(sim.FaultHelp, "\n", " ")},
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
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := sim.Start(ctx, cfg)
			if err != nil {
				return err
			}
			w := cc.App.Writer
			fmt.Fprintf(w, "board:   %s -> %s (%d baud)\n", s.BoardPath(), target(s.BoardPath()), sim.BoardBaud)
			fmt.Fprintf(w, "lidar:   %s -> %s (%d baud)\n", s.LidarPath(), target(s.LidarPath()), sim.LidarBaud)
			fmt.Fprintf(w, "control: %s\n", s.ControlPath())
			fmt.Fprintf(w, "world %s, seed %d; Ctrl-C to stop\n", cfg.World, cfg.Seed)
			<-ctx.Done()
			err = s.Close()
			st := s.Stats()
			fmt.Fprintf(w, "stopped: IMU frames %d, LiDAR packets %d, board frames received %d (bad checksums %d)\n",
				st.IMUFrames, st.LidarPackets, st.BoardRx.Frames, st.BoardRx.BadChecksum)
			return err
		},
	}
}

func target(link string) string {
	t, err := os.Readlink(link)
	if err != nil {
		return "?"
	}
	return t
}

// socketPath resolves --socket or --dir to the control socket.
func socketPath(cc *cli.Context) (string, error) {
	if s := cc.String("socket"); s != "" {
		return s, nil
	}
	if d := cc.String("dir"); d != "" {
		return filepath.Join(d, sim.ControlName), nil
	}
	return "", errors.New("which simulator? give --dir DIR (as passed to run) or --socket PATH")
}

func send(cc *cli.Context, sock, req string) error {
	b, err := sim.Control(sock, req, 3*time.Second)
	if err != nil {
		return err
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, b, "", "  ") == nil && !bytes.HasPrefix(b, []byte(`{"ok"`)) {
		fmt.Fprint(cc.App.Writer, pretty.String())
		return nil
	}
	fmt.Fprintf(cc.App.Writer, "ok: %s\n", req)
	return nil
}

func argsN(cc *cli.Context, n int, usage string) ([]string, error) {
	if cc.NArg() != n {
		return nil, fmt.Errorf("%s needs %d argument(s): %s", cc.Command.Name, n, usage)
	}
	return cc.Args().Slice(), nil
}

func durationCommand(name, usage string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "DURATION (e.g. 3s)", Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			a, err := argsN(cc, 1, "DURATION, e.g. 3s")
			if err != nil {
				return err
			}
			return act(cc, name+"="+a[0])
		},
	}
}

func switchCommand(name, usage string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "on|off", Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			a, err := argsN(cc, 1, "on or off")
			if err != nil {
				return err
			}
			return act(cc, name+"="+a[0])
		},
	}
}

func corruptCommand() *cli.Command {
	return &cli.Command{
		Name: "corrupt", Usage: "flip a bit in a fraction RATE of the bytes in one direction (0 = off)",
		ArgsUsage: "to-board|from-board RATE (e.g. to-board 0.01)", Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			a := cc.Args().Slice()
			if len(a) == 1 && strings.Contains(a[0], ":") {
				return act(cc, "corrupt="+a[0])
			}
			if len(a) != 2 {
				return errors.New("corrupt needs a direction and a rate: corrupt to-board 0.01")
			}
			return act(cc, "corrupt="+a[0]+":"+a[1])
		},
	}
}

func buttonCommand() *cli.Command {
	return &cli.Command{
		Name: "button", Usage: "hold gamepad buttons MASK for N reports (20 Hz)", ArgsUsage: "MASK (e.g. 0x0100 = CROSS)",
		Flags: append([]cli.Flag{&cli.IntFlag{Name: "frames", Value: 1, Usage: "number of gamepad reports `N` carrying the mask"}}, socketFlags...),
		Action: func(cc *cli.Context) error {
			a, err := argsN(cc, 1, "MASK, e.g. 0x0100")
			if err != nil {
				return err
			}
			return act(cc, fmt.Sprintf("button=%s:%d", a[0], cc.Int("frames")))
		},
	}
}

func keyCommand() *cli.Command {
	return &cli.Command{
		Name: "key", Usage: "send one key frame", ArgsUsage: "ID EVENT (e.g. 1 0x01 = key 1 pressed)", Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			a, err := argsN(cc, 2, "ID EVENT, e.g. 1 0x01")
			if err != nil {
				return err
			}
			return act(cc, "key="+a[0]+":"+a[1])
		},
	}
}

// batteryCommand parses its own arguments: "-250" must be a value, not a flag.
func batteryCommand() *cli.Command {
	return &cli.Command{
		Name: "battery-step", Usage: "shift the battery voltage by MV (charger plugged +250, unplugged -250)",
		ArgsUsage: "[--dir DIR | --socket PATH] MV", SkipFlagParsing: true,
		Action: func(cc *cli.Context) error {
			sock, vals, help, err := rawArgs(cc)
			if help || err != nil {
				return err
			}
			if len(vals) == 0 {
				return errors.New("battery-step needs a step in mV, e.g. battery-step --dir DIR +250")
			}
			if len(vals) > 1 {
				return fmt.Errorf("battery-step takes one value in mV, got %q", vals)
			}
			if _, err := strconv.Atoi(vals[0]); err != nil {
				return fmt.Errorf("battery-step: %q is not a number of mV", vals[0])
			}
			return send(cc, sock, "battery-step="+vals[0])
		},
	}
}

// sticksCommand parses its own arguments like battery-step: "-100" must be an axis, not a flag.
func sticksCommand() *cli.Command {
	return &cli.Command{
		Name: "sticks", Usage: "set the gamepad stick axes (int8, raw/127 gives -1..1; held until changed, sent while a pad is connected or a button is held)",
		ArgsUsage: "[--dir DIR | --socket PATH] LX LY RX RY (e.g. 0 64 0 0: left stick half forward; 0 0 0 0 centres)", SkipFlagParsing: true,
		Action: func(cc *cli.Context) error {
			sock, vals, help, err := rawArgs(cc)
			if help || err != nil {
				return err
			}
			if len(vals) != 4 {
				return fmt.Errorf("sticks needs four axes LX LY RX RY, each -128..127, got %q", vals)
			}
			for _, v := range vals {
				if _, err := strconv.ParseInt(v, 10, 8); err != nil {
					return fmt.Errorf("sticks: axis %q is not an integer in -128..127", v)
				}
			}
			return send(cc, sock, "sticks="+strings.Join(vals, ","))
		},
	}
}

// rawArgs splits the arguments of a command with SkipFlagParsing into the control socket (--dir, --socket,
// ROSORIN_SIM_DIR) and the values, so negative numbers are values. help reports that help was printed.
func rawArgs(cc *cli.Context) (sock string, vals []string, help bool, err error) {
	var dir string
	a := cc.Args().Slice()
	for i := 0; i < len(a); i++ {
		k, v, hasV := strings.Cut(a[i], "=")
		switch k {
		case "--dir", "-dir", "-d", "--socket", "-socket":
			if !hasV {
				if i+1 >= len(a) {
					return "", nil, false, fmt.Errorf("%s needs a value", k)
				}
				i++
				v = a[i]
			}
			if strings.Contains(k, "socket") {
				sock = v
			} else {
				dir = v
			}
		case "--help", "-h":
			return "", nil, true, cli.ShowCommandHelp(cc, cc.Command.Name)
		default:
			vals = append(vals, a[i])
		}
	}
	if sock == "" && dir == "" {
		dir = os.Getenv("ROSORIN_SIM_DIR")
	}
	if sock == "" {
		if dir == "" {
			return "", nil, false, errors.New("which simulator? give --dir DIR (as passed to run) or --socket PATH")
		}
		sock = filepath.Join(dir, sim.ControlName)
	}
	return sock, vals, false, nil
}

func queryCommand(name, usage string) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, Flags: socketFlags,
		Action: func(cc *cli.Context) error {
			if _, err := argsN(cc, 0, "none"); err != nil {
				return err
			}
			return act(cc, name)
		},
	}
}

func act(cc *cli.Context, req string) error {
	sock, err := socketPath(cc)
	if err != nil {
		return err
	}
	return send(cc, sock, req)
}
