package main

import (
	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/contact"
)

// checkSimContact refuses --sim-contact without --sim, or with a mode rosorin-base would refuse.
func checkSimContact(c *cli.Context) error {
	m := c.String("sim-contact")
	if m == "" {
		return nil
	}
	if !c.Bool("sim") {
		return cli.Exit("--sim-contact needs --sim (a running driver's reflex is set by its own --contact)", exitAbort)
	}
	if _, err := contact.ParseMode(m); err != nil {
		return cli.Exit("--sim-contact: "+err.Error(), exitAbort)
	}
	return nil
}
