// Command rosorin-ros2 is the ROS 2 bridge: the node rosorin_board_driver on a Humble graph (Cyclone DDS), a
// client of the driver's control socket. `rosorin-base run --ros2` starts it as a child; it also runs on its
// own against a running driver. It is the only program of the project that loads libddsc: build it with
// `go build -tags ros2` (cyclonedds-dev); without the tag it says so and exits 2.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/internal/pprofenv"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

func newApp() *cli.App {
	return &cli.App{
		Name:  "rosorin-ros2",
		Usage: "the ROS 2 node rosorin_board_driver (Cyclone DDS): topics and services of chapter 11, bridged to the driver's control socket",
		Description: "Publishes imu/data_raw, battery, wheel/odom, gamepad, scan, ~/state and ~/source, /rosout, /diagnostics and\n" +
			"/tf_static (/tf with publish_odom_tf); serves the driver's parameters (~/list_parameters ... ~/set_parameters_atomically,\n" +
			"/parameter_events); subscribes the velocity\n" +
			"inputs manual/cmd_vel, autonomous/cmd_vel and cmd_vel (arbitrated by the driver) and estop; serves ~/enable and\n" +
			"~/reset_estop (rmw_cyclonedds conventions, Humble). Two matched publishers on one input latch the e-stop.\n" +
			"ROS_DOMAIN_ID and CYCLONEDDS_URI are honoured, ROS_LOCALHOST_ONLY=1 keeps it on 127.0.0.1. Built with\n" +
			"`go build -tags ros2 ./cmd/rosorin-ros2` (cyclonedds-dev). See docs/ros2.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Value: api.DefaultSocket, EnvVars: []string{api.SocketEnv}, Usage: "control socket of the running driver"},
			&cli.StringFlag{Name: "namespace", EnvVars: []string{"ROS_NAMESPACE"}, Usage: "node namespace (\"\" = /)"},
			&cli.StringFlag{Name: "node-name", Value: ros2.NodeName, Usage: "node name"},
			&cli.StringSliceFlag{Name: "remap", Usage: "a remap rule from:=to (repeat; rcl's syntax; `rosorin-base run --ros-args -r` passes its rules here; docs/ros2.md)"},
			&cli.StringFlag{Name: "domain", EnvVars: []string{"ROS_DOMAIN_ID"}, Value: "0", Usage: "ROS_DOMAIN_ID (0..232)"},
			&cli.BoolFlag{Name: "allow-graph-enable", EnvVars: []string{ros2.AllowGraphEnableEnv},
				Usage: "the parameter allow_graph_enable: serve ~/enable true (turn motion on) from the ROS graph; off by default, as without DDS security anyone on the domain could call it (also --ros-args -p allow_graph_enable:=true)"},
			&cli.BoolFlag{Name: "allow-graph-reset", EnvVars: []string{ros2.AllowGraphResetEnv},
				Usage: "the parameter allow_graph_reset: serve ~/reset_estop (clear the e-stop) from the ROS graph; off by default (also --ros-args -p allow_graph_reset:=true)"},
			&cli.StringFlag{Name: "enclave", Usage: "the node's SROS2 enclave (/rosorin) when ROS_SECURITY_ENABLE=true; ROS_SECURITY_ENCLAVE_OVERRIDE wins over it, a --ros-args --enclave over this flag (docs/ros2-security.md)"},
			&cli.BoolFlag{Name: "cmd-vel-stamped", EnvVars: []string{"ROSORIN_CMD_VEL_STAMPED"},
				Usage: "the velocity inputs take geometry_msgs/msg/TwistStamped instead of Twist (a run --ros2 child inherits the variable)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("rosorin-ros2: unexpected arguments %q", c.Args().Slice()), 2)
			}
			if !dds.Available() {
				return cli.Exit("rosorin-ros2: "+dds.ErrNotBuilt.Error(), 2)
			}
			dom, err := strconv.Atoi(c.String("domain"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("rosorin-ros2: ROS_DOMAIN_ID %q is not a number", c.String("domain")), 2)
			}
			name, ns, remap, err := bridgeNames(c.String("node-name"), c.String("namespace"), c.StringSlice("remap"))
			if err != nil {
				return cli.Exit("rosorin-ros2: "+err.Error(), 2)
			}
			allowEnable, allowReset, err := bridgeParams(c.Bool("allow-graph-enable"), c.Bool("allow-graph-reset"))
			if err != nil {
				return cli.Exit("rosorin-ros2: "+err.Error(), 2)
			}
			enclave := c.String("enclave")
			if rosArgs != nil && rosArgs.Enclave != "" {
				enclave = rosArgs.Enclave
			}
			ctx, stop := service.SignalContext(c.Context)
			defer stop()
			b, err := ros2.New(ros2.Config{Socket: c.String("socket"), Domain: dom, Namespace: ns, Name: name,
				CmdVelStamped: c.Bool("cmd-vel-stamped"), Log: service.ProcLogger("ros2"), Remap: remap,
				SupervisorLog: ros2.SupervisorLogFromEnv(), AllowGraphEnable: allowEnable, AllowGraphReset: allowReset,
				Enclave: enclave})
			if err != nil {
				return cli.Exit("rosorin-ros2: "+err.Error(), 1)
			}
			if err := b.Run(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "rosorin-ros2:", err)
			}
			return nil
		},
	}
}

func main() {
	pprofenv.Start("ros2")             // when ROSORIN_PPROF_DIR asks
	args, err := splitROSArgs(os.Args) // `--ros-args ... [--]`, as ros2 launch passes them (names.go)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-ros2:", err)
		os.Exit(2)
	}
	if err := newApp().Run(args); err != nil {
		fmt.Fprintln(os.Stderr, "rosorin-ros2:", err)
		os.Exit(1)
	}
}
