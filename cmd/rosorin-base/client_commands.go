package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// socketFlag is --socket on every client command (env ROSORIN_SOCKET, default /run/rosorin/base.sock).
func socketFlag() cli.Flag {
	return &cli.StringFlag{Name: "socket", Value: api.DefaultSocket, EnvVars: []string{api.SocketEnv},
		Usage: "control socket of the running driver"}
}

// clientCommands returns the control-socket clients: state, enable, disable, estop, reset, drive, imu.
func clientCommands() []*cli.Command {
	return []*cli.Command{
		followCommand("state", "print the driver's state record (JSON) with the ROS 2 bridge's status from the supervisor (ros2_bridge); --follow prints one line per record at 10 Hz", api.TopicState,
			func(ctx context.Context, cl *api.Client) error {
				s, err := cl.State(ctx)
				if err != nil {
					return err
				}
				return printJSON(withBridge(s, cl.Path()))
			}),
		replyCommand("enable", "enable motion (refused while the e-stop is latched)", func(ctx context.Context, cl *api.Client) (api.Reply, error) {
			return cl.Enable(ctx, true)
		}),
		replyCommand("disable", "disable motion (the stop frame goes out at once)", func(ctx context.Context, cl *api.Client) (api.Reply, error) {
			return cl.Enable(ctx, false)
		}),
		{
			Name:  "estop",
			Usage: "latch the e-stop (stays until reset; then motion is still disabled)",
			Flags: []cli.Flag{socketFlag(), &cli.StringFlag{Name: "reason", Usage: "recorded with the latch"}},
			Action: func(c *cli.Context) error {
				return runReply(c, func(ctx context.Context, cl *api.Client) (api.Reply, error) {
					return cl.EStop(ctx, c.String("reason"))
				})
			},
		},
		replyCommand("reset", "clear the e-stop latch (motion stays disabled until enable)", func(ctx context.Context, cl *api.Client) (api.Reply, error) {
			return cl.Reset(ctx)
		}),
		{
			Name:      "drive",
			Usage:     "publish a velocity command at 20 Hz over one stream for a while, then stop",
			ArgsUsage: "VX VY WZ   (m/s forward, m/s left, rad/s counter-clockwise; use -- before negative values)",
			Flags: []cli.Flag{socketFlag(),
				&cli.DurationFlag{Name: "for", Value: 3 * time.Second, Usage: "how long to publish"},
				&cli.Float64Flag{Name: "rate", Value: 20, Usage: "publish rate (Hz)"},
				&cli.BoolFlag{Name: "coast", Usage: "end by silence (the deadman stops the wheels 0.3 s later) instead of a final zero command"},
				&cli.StringFlag{Name: "input", Value: "cmd_vel", Usage: "the velocity input to drive on: manual (priority 100, a person), autonomous (10, navigation) or cmd_vel (1); the freshest input of the highest priority drives"},
			},
			Action: drive,
		},
		followCommand("source", "print which velocity input drives (manual, autonomous, cmd_vel or none); --follow prints every hand-over", api.TopicSource,
			func(ctx context.Context, cl *api.Client) error {
				s, err := cl.State(ctx)
				if err != nil {
					return err
				}
				fmt.Println(s.Source)
				return nil
			}),
		followCommand("imu", "print IMU messages (JSON lines); --follow keeps printing", api.TopicIMU,
			func(ctx context.Context, cl *api.Client) error {
				// One message: follow and stop at the first.
				errDone := errors.New("done")
				err := cl.Follow(ctx, api.TopicIMU, func(b []byte) error {
					if err := printLine(b); err != nil {
						return err
					}
					return errDone
				})
				if errors.Is(err, errDone) {
					return nil
				}
				return quietCancel(err)
			}),
	}
}

// followCommand prints what once prints, or with --follow one line per message of topic until Ctrl-C.
func followCommand(name, usage, topic string, once func(context.Context, *api.Client) error) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage,
		Flags: []cli.Flag{socketFlag(), &cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing"}},
		Action: func(c *cli.Context) error {
			cl := api.NewClient(c.String("socket"))
			ctx, stop := service.SignalContext(c.Context)
			defer stop()
			if c.Bool("follow") {
				return quietCancel(cl.Follow(ctx, topic, printLine))
			}
			return once(ctx, cl)
		},
	}
}

func replyCommand(name, usage string, fn func(context.Context, *api.Client) (api.Reply, error)) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, Flags: []cli.Flag{socketFlag()},
		Action: func(c *cli.Context) error { return runReply(c, fn) },
	}
}

// runReply prints the driver's message; a refusal (success false) exits 1.
func runReply(c *cli.Context, fn func(context.Context, *api.Client) (api.Reply, error)) error {
	ctx, cancel := context.WithTimeout(c.Context, 5*time.Second)
	defer cancel()
	r, err := fn(ctx, api.NewClient(c.String("socket")))
	if err != nil {
		return err
	}
	fmt.Println(r.Message)
	if !r.Success {
		return cli.Exit("", 1)
	}
	return nil
}

func drive(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) != 3 {
		return fmt.Errorf("drive needs VX VY WZ (three numbers), got %d; e.g. rosorin-base drive 0.1 0 0 --for 3s "+
			"(a negative first value needs --: rosorin-base drive -- -0.1 0 0)", len(args))
	}
	var v [3]float64
	for i := range v {
		f, err := strconv.ParseFloat(args[i], 64)
		if err != nil {
			return fmt.Errorf("drive: argument %d %q is not a number", i+1, args[i])
		}
		v[i] = f
	}
	d := api.DriveConfig{Twist: api.Twist{VX: v[0], VY: v[1], WZ: v[2]}, For: c.Duration("for"), Rate: c.Float64("rate"),
		Coast: c.Bool("coast"), Input: c.String("input")}
	if err := d.Check(); err != nil {
		return err
	}
	ctx, stop := service.SignalContext(c.Context)
	defer stop()
	cl := api.NewClient(c.String("socket"))
	if st, err := cl.State(ctx); err != nil {
		return err
	} else if st.Blocked != nil && *st.Blocked != "cmd timeout" {
		fmt.Fprintf(os.Stderr, "note: wheels held (%s); commands are sent anyway\n", *st.Blocked)
	}
	res, err := cl.Drive(ctx, d)
	if !res.Opened {
		return err
	}
	end := "then silence (the deadman stops the wheels)"
	if res.Stopped {
		end = "then a zero command (stop now)"
	}
	fmt.Printf("sent %d commands in %v, %s: driver accepted %d, rejected %d, dropped %d (%s)\n",
		res.Sent, d.For, end, res.Stream.Accepted, res.Stream.Rejected, res.Stream.Dropped, res.Stream.Message)
	return err
}

func printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Println(string(b))
	return err
}

func printLine(b []byte) error {
	_, err := fmt.Println(string(b))
	return err
}

func quietCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// stateWithBridge is the state record with the ROS 2 bridge child's status, which the supervisor knows and the
// driver does not (run --ros2; absent without it).
type stateWithBridge struct {
	api.State
	ROS2Bridge *supervisor.BridgeStatus `json:"ros2_bridge,omitempty"`
}

// withBridge adds the bridge's status from the supervisor serving socket; a bridge that is down or failing is
// said on stderr too, so a person reading the record cannot miss it.
func withBridge(s api.State, socket string) stateWithBridge {
	out := stateWithBridge{State: s}
	if st, err := supervisor.ReadStatus(socket); err == nil && st.Bridge != nil {
		out.ROS2Bridge = st.Bridge
		if p := st.Bridge.Problem(); p != "" {
			fmt.Fprintln(os.Stderr, "WARNING:", p)
		}
	}
	return out
}
