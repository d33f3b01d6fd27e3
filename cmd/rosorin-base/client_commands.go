package main

import "github.com/urfave/cli/v2"

// clientCommands returns the control-socket clients: state, enable, disable, estop, reset, drive, imu.
// (Placeholder until the control API lands.)
func clientCommands() []*cli.Command { return nil }
