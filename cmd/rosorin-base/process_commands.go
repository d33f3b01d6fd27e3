package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/supervisor"
)

// processCommands returns run (the supervisor), the hidden driver and lidar-reader child commands, and
// stop-motors.
func processCommands() []*cli.Command {
	return []*cli.Command{stopMotorsCommand()}
}

func stopMotorsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stop-motors",
		Usage: "write the stop frame to the board directly (systemd ExecStopPost; the last resort when the driver is gone)",
		Description: "Opens the board port without lock or exclusivity (it must not lock out the driver systemd starts next),\n" +
			"retries every 0.2 s while the device is missing or busy, writes three stop frames and says how long it took.\n" +
			"While a non-root driver owns the port this cannot open it: it is a tool for when the driver is gone.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Usage: "board serial device"},
			&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "keep retrying the open this long (a USB drop re-enumerates in seconds)"},
		},
		Action: func(c *cli.Context) error {
			ctx, cancel := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer cancel()
			el, err := supervisor.StopMotors(ctx, supervisor.StopMotorsConfig{
				Device: c.String("device"), Wait: c.Duration("wait"), Warn: os.Stderr,
			})
			if err != nil {
				return cli.Exit("stop-motors: "+err.Error(), 1)
			}
			fmt.Printf("stop-motors: stop frame sent x3 (after %.1f s)\n", el.Seconds())
			return nil
		},
	}
}

