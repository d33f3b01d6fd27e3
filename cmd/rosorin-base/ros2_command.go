package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// ros2Command is the ROS 2 bridge: the node rosorin_board_driver on a Humble graph (Cyclone DDS), a client
// of the driver's control socket. `rosorin-base run --ros2` starts it as a child; it also runs on its own.
func ros2Command() *cli.Command {
	return &cli.Command{
		Name:  "ros2",
		Usage: "the ROS 2 node rosorin_board_driver (Cyclone DDS): topics and services of chapter 11, bridged to the driver's control socket",
		Description: "Publishes imu/data_raw, battery, wheel/odom, gamepad, scan, ~/state and ~/source, /rosout, /diagnostics and\n" +
			"/tf_static (/tf with publish_odom_tf); subscribes the velocity\n" +
			"inputs manual/cmd_vel, autonomous/cmd_vel and cmd_vel (arbitrated by the driver) and estop; serves ~/enable and\n" +
			"~/reset_estop (rmw_cyclonedds conventions, Humble). Two matched publishers on one input latch the e-stop.\n" +
			"ROS_DOMAIN_ID and CYCLONEDDS_URI are honoured, ROS_LOCALHOST_ONLY=1 keeps it on 127.0.0.1. Needs a binary built\n" +
			"with `go build -tags ros2` (cyclonedds-dev). See docs/ros2.md.",
		Flags: []cli.Flag{
			socketFlag(),
			&cli.StringFlag{Name: "namespace", EnvVars: []string{"ROS_NAMESPACE"}, Usage: "node namespace (\"\" = /)"},
			&cli.StringFlag{Name: "node-name", Value: ros2.NodeName, Usage: "node name"},
			&cli.StringFlag{Name: "domain", EnvVars: []string{"ROS_DOMAIN_ID"}, Value: "0", Usage: "ROS_DOMAIN_ID (0..232)"},
			&cli.BoolFlag{Name: "cmd-vel-stamped", EnvVars: []string{"ROSORIN_CMD_VEL_STAMPED"},
				Usage: "the velocity inputs take geometry_msgs/msg/TwistStamped instead of Twist (a run --ros2 child inherits the variable)"},
		},
		Action: func(c *cli.Context) error {
			if !dds.Available() {
				return cli.Exit("rosorin-base ros2: "+dds.ErrNotBuilt.Error(), 2)
			}
			dom, err := strconv.Atoi(c.String("domain"))
			if err != nil {
				return cli.Exit(fmt.Sprintf("rosorin-base ros2: ROS_DOMAIN_ID %q is not a number", c.String("domain")), 2)
			}
			ctx, stop := service.SignalContext(c.Context)
			defer stop()
			b, err := ros2.New(ros2.Config{Socket: c.String("socket"), Domain: dom, Namespace: c.String("namespace"),
				Name: c.String("node-name"), CmdVelStamped: c.Bool("cmd-vel-stamped"), Log: service.ProcLogger("ros2"),
				SupervisorLog: ros2.SupervisorLogFromEnv()})
			if err != nil {
				return cli.Exit("rosorin-base ros2: "+err.Error(), 1)
			}
			if err := b.Run(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "rosorin-base ros2:", err)
			}
			return nil
		},
	}
}

func ros2Flag() cli.Flag {
	return &cli.BoolFlag{Name: "ros2", EnvVars: []string{"ROSORIN_ROS2"}, Usage: "also run the ROS 2 node (rosorin-base ros2) as a child; needs a binary built with -tags ros2 (see docs/ros2.md)"}
}
