package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/session"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// ros2Flags are --ros2 and its names: the proof talks to the driver over its ROS 2 interface.
func ros2Flags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "ros2", Category: sectionTarget,
			Usage: "drive the driver through its ROS 2 interface (cmd_vel, estop, ~/enable, ~/reset_estop, ~/state, imu/data_raw over Cyclone DDS) instead of its socket: ours (with --sim: rosorin-base run --ros2) or the robot's Python driver; needs stopproof built with -tags ros2; ROS_DOMAIN_ID and CYCLONEDDS_URI honoured (with --sim: pinned to 127.0.0.1 and a domain of its own)"},
		&cli.StringFlag{Name: "ros2-namespace", Category: sectionTarget, EnvVars: []string{"ROS_NAMESPACE"}, Usage: "the driver node's namespace (--ros2)"},
		&cli.StringFlag{Name: "ros2-node", Value: ros2.NodeName, Category: sectionTarget, Usage: "the driver node's name (--ros2)"},
	}
}

// ros2Prepare runs before the session opens. With --sim it makes the simulated service run the bridge
// (rosorin-base run --ros2 with the bridge rosorin-ros2 built with the tag beside it: basebin) and keeps DDS on
// loopback in a domain of this run's own.
func ros2Prepare(c *cli.Context) error {
	if !c.Bool("ros2") {
		return nil
	}
	if !dds.Available() {
		return cli.Exit("stopproof --ros2: "+dds.ErrNotBuilt.Error()+" (e.g. go run -tags ros2 ./cmd/stopproof ...)", exitAbort)
	}
	if !c.Bool("sim") {
		return nil
	}
	os.Setenv("ROSORIN_ROS2", "1")
	if g := os.Getenv("GOFLAGS"); !strings.Contains(g, "-tags") {
		os.Setenv("GOFLAGS", strings.TrimSpace(g+" -tags=ros2")) // the tree's bridge is built with the tag
	}
	os.Setenv("CYCLONEDDS_URI", dds.LoopbackConfig)
	os.Setenv("ROS_DOMAIN_ID", strconv.Itoa(100+os.Getpid()%100))
	os.Unsetenv("ROS_LOCALHOST_ONLY")
	// The proof enables and resets through ~/enable and ~/reset_estop, which the bridge refuses from the graph
	// unless allowed (docs/ros2.md). Here the graph is this machine's loopback in a domain of this run's own,
	// so the sim's bridge allows them; a robot's bridge must be started with them allowed for the proof.
	os.Setenv(ros2.AllowGraphEnableEnv, "1")
	os.Setenv(ros2.AllowGraphResetEnv, "1")
	return nil
}

// ros2Wrap puts the ROS 2 target around the session's target.
func ros2Wrap(c *cli.Context, s *session.Session) error {
	if !c.Bool("ros2") {
		return nil
	}
	dom := 0
	if v := os.Getenv("ROS_DOMAIN_ID"); v != "" {
		var err error
		if dom, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("ROS_DOMAIN_ID %q is not a number", v)
		}
	}
	t, err := target.WrapROS2(s.Target, target.ROS2Config{Domain: dom, Namespace: c.String("ros2-namespace"), Node: c.String("ros2-node")},
		clock.Real{}, s.Evidence)
	if err != nil {
		return fmt.Errorf("--ros2: %w", err)
	}
	s.Target = t
	s.Evidence.Logf("target: %s", t.Describe())
	return nil
}
