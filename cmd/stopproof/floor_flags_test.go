package main

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/cliargs"
)

func TestFloorFlags(t *testing.T) {
	app := newApp()
	got := strings.Join(cliargs.Reorder(strings.Fields("stopproof floor prove estop,kill --sim --sim-room corridor --leg 2s"), app), " ")
	if want := "stopproof floor prove --sim --sim-room corridor --leg 2s estop,kill"; got != want {
		t.Errorf("reorder:\n got %q\nwant %q", got, want)
	}
	for _, args := range [][]string{
		{"stopproof", "floor", "prove", "--sim", "--hold", "1s", "estop"},
		{"stopproof", "floor", "prove", "--sim", "--leg", "0.5s", "estop"},
		{"stopproof", "floor", "prove", "--sim", "scanloss"},
		{"stopproof", "floor", "prove", "--sim"},
		{"stopproof", "floor", "prove", "--sim", "--timeout-per-path", "5s", "estop"},
		{"stopproof", "floor", "prove", "--sim-room", "corridor", "estop"},
		{"stopproof", "floor", "look", "--sim-room", "corridor"},
	} {
		err := app.Run(cliargs.Reorder(args, app))
		if ec, ok := err.(interface{ ExitCode() int }); !ok || ec.ExitCode() != exitAbort {
			t.Errorf("%v: %v, want exit status %d", args, err, exitAbort)
		}
	}
	for _, c := range app.Commands {
		if c.Name != "floor" {
			continue
		}
		for _, s := range c.Subcommands {
			for _, f := range s.Flags {
				if f.Names()[0] == "allow-plugged" {
					t.Errorf("floor %s offers --allow-plugged: the floor proof never drives plugged in", s.Name)
				}
			}
		}
	}
}
