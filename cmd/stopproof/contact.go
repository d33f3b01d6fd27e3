package main

import (
	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/proofs/target"
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

// checkSimParams refuses --sim-param without --sim, or overrides the simulated driver would refuse (an unknown
// key, a value of the wrong type or out of range): nothing is started then.
func checkSimParams(c *cli.Context) error {
	ps := c.StringSlice("sim-param")
	if len(ps) == 0 {
		return nil
	}
	if !c.Bool("sim") {
		return cli.Exit("--sim-param needs --sim (a running driver's parameters are set by its own configuration files)", exitAbort)
	}
	if _, err := target.SimParamsYAML(ps); err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	return nil
}
