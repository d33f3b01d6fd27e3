package main

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/cliargs"
)

func TestReorderPutsFlagsBeforePaths(t *testing.T) {
	app := newApp()
	for _, c := range []struct{ in, want string }{
		{"stopproof prove --sim estop,kill --spin 2s --hold=3s", "stopproof prove --sim --spin 2s --hold=3s estop,kill"},
		{"stopproof prove estop --sim --json f.json kill", "stopproof prove --sim --json f.json estop kill"},
		{"stopproof prove --spin 2s -- --odd", "stopproof prove --spin 2s -- --odd"},
		{"stopproof scangate --sim --sim-no-lidar-respawn", "stopproof scangate --sim --sim-no-lidar-respawn"},
		{"stopproof --help", "stopproof --help"},
	} {
		got := strings.Join(cliargs.Reorder(strings.Fields(c.in), app), " ")
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestBadFlagsExitWithoutStartingAnything(t *testing.T) {
	app := newApp()
	for _, args := range [][]string{
		{"stopproof", "prove", "--sim", "--hold", "1s", "estop"},
		{"stopproof", "prove", "--sim", "estop,bumper"}, // no such path
		{"stopproof", "prove", "--sim"},
		{"stopproof", "prove", "--sim", "--spin", "3s", "--hold", "5s", "--timeout-per-path", "5s", "estop"},
	} {
		err := app.Run(cliargs.Reorder(args, app))
		if err == nil {
			t.Errorf("%v: no error", args)
		}
		if ec, ok := err.(interface{ ExitCode() int }); !ok || ec.ExitCode() != exitAbort {
			t.Errorf("%v: %v, want exit status %d", args, err, exitAbort)
		}
	}
}
