package main

import (
	"os"
	"path/filepath"
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

// A --sim-param the simulated driver would refuse (or without --sim) exits 2 before anything starts: no
// evidence folder, no simulated robot.
func TestSimParamRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prove", "--sim", "--sim-param", "priority_manul=5", "takeover"}, "priority_manul: not a parameter of the driver; did you mean priority_manual?"},
		{[]string{"prove", "--sim", "--sim-param", "priority_manual=five", "takeover"}, "priority_manual: wrong type: want an integer"},
		{[]string{"prove", "--sim", "--sim-param", "priority_manual=10", "takeover"}, "priority_autonomous = 10, the same as priority_manual"},
		{[]string{"prove", "--sim", "--sim-param", "priority_manual", "takeover"}, `"priority_manual": want KEY=VALUE`},
		{[]string{"prove", "--sim", "--sim-param", "priority_manual=5", "--sim-param", "priority_manual=6", "takeover"}, "priority_manual given twice"},
		{[]string{"prove", "--sim", "--sim-param", "max_linear=[1, 2]", "takeover"}, "the value must be one number"},
		{[]string{"prove", "--sim", "--sim-param", "arm_speed=1", "takeover"}, "arm_speed: not a parameter of the driver"},
		{[]string{"prove", "--sim-param", "priority_manual=5", "takeover"}, "--sim-param needs --sim"},
		{[]string{"floor", "prove", "--sim", "--sim-param", "cmd_timeout=0", "takeover"}, "cmd_timeout = 0; want a number > 0"},
	} {
		ev := filepath.Join(t.TempDir(), "evidence")
		app := newApp()
		var out strings.Builder
		app.Writer, app.ErrWriter = &out, &out
		args := append([]string{"stopproof"}, c.args...)
		args = append(args, "--evidence-dir", ev)
		err := app.Run(cliargs.Reorder(args, app))
		if ec, ok := err.(interface{ ExitCode() int }); !ok || ec.ExitCode() != exitAbort {
			t.Errorf("%v: %v, want exit status %d", c.args, err, exitAbort)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %q, want %q", c.args, err, c.want)
		}
		if _, serr := os.Stat(ev); !os.IsNotExist(serr) {
			t.Errorf("%v: the evidence folder was created: something started", c.args)
		}
	}
}
