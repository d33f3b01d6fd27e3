// Command stopproof proves, from the board's IMU, that every way of stopping the ROSOrin's wheels works: with
// the robot on a stand (wheels in the air) it spins the wheels, triggers one stop path, keeps commanding, and
// judges from the gyro's vibration when the wheels are physically still (chapter 19's stop_proof.py and
// scan_gate_live.py). "The software said stopped" is never evidence.
//
// It talks to a running rosorin-base through its control socket, or, with --sim, starts a simulated stand
// robot and the real driver against it in a temporary folder. This file only wires flags to packages:
// proofs/stand runs the proof, proofs/scangate the scan-gate check, proofs/target the targets.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/internal/cliargs"
)

func main() {
	app := newApp()
	if err := app.Run(cliargs.Reorder(os.Args, app)); err != nil {
		if ec, ok := err.(cli.ExitCoder); ok {
			if msg := err.Error(); msg != "" {
				fmt.Fprintln(os.Stderr, "stopproof:", msg)
			}
			os.Exit(ec.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "stopproof:", err)
		os.Exit(2)
	}
}
