package main

import "github.com/urfave/cli/v2"

// processCommands returns run (the supervisor), the hidden driver and lidar-reader child commands, and
// stop-motors. (Placeholder until the supervisor lands.)
func processCommands() []*cli.Command { return nil }
