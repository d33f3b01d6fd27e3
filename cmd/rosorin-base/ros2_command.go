package main

import (
	"os"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/service"
)

// ros2Command is `rosorin-base ros2 ARGS...`: the ROS 2 bridge is its own binary (rosorin-ros2, built with
// -tags ros2), so that rosorin-base never loads libddsc; this alias runs it in place with the same arguments.
func ros2Command() *cli.Command {
	return &cli.Command{
		Name:            "ros2",
		Usage:           "run the ROS 2 bridge (the binary " + service.BridgeName + ", found beside rosorin-base, on $PATH or by " + service.BridgeEnv + ") with these arguments",
		Description:     "The bridge is the node rosorin_board_driver on a Humble graph (Cyclone DDS), a client of the driver's control\nsocket. Build it with " + service.BridgeBuildHint + ".\nSee `" + service.BridgeName + " --help` for its flags.",
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			exe, err := service.FindBridge(os.Getenv(service.BridgeEnv))
			if err != nil {
				return cli.Exit("rosorin-base ros2: "+err.Error(), 2)
			}
			err = syscall.Exec(exe, append([]string{exe}, c.Args().Slice()...), os.Environ())
			return cli.Exit("rosorin-base ros2: "+exe+": "+err.Error(), 2)
		},
	}
}

func ros2Flag() cli.Flag {
	return &cli.BoolFlag{Name: "ros2", EnvVars: []string{"ROSORIN_ROS2"}, Usage: "also run the ROS 2 bridge (" + service.BridgeName + ", built with -tags ros2) as a child; without it, or when it cannot start, the driver runs on and the bridge is logged as failed (see docs/ros2.md)"}
}

func ros2UserFlag() cli.Flag {
	return &cli.StringFlag{Name: "ros2-user", EnvVars: []string{"ROSORIN_ROS2_USER"},
		Usage: "run the ROS 2 bridge as this user (name or uid) with its groups, not as the service's own user; needs CAP_SETUID and CAP_SETGID (deploy/ros2.conf)"}
}

func ros2BridgeFlag() cli.Flag {
	return &cli.StringFlag{Name: "ros2-bridge", EnvVars: []string{service.BridgeEnv}, Usage: "the ROS 2 bridge binary for --ros2 (default: " + service.BridgeName + " beside rosorin-base, else on $PATH)"}
}
