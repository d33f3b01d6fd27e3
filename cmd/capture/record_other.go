//go:build !linux

package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "record a serial device passively into an MCAP capture (Linux only)",
		Action: func(*cli.Context) error {
			return errors.New("capture record needs Linux (termios, /proc); record on the robot and copy the file")
		},
	}
}
