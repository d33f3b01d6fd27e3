package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/internal/cliargs"
)

// TestDriveArguments: the orders a person types reach drive as three numbers and its flags (the socket
// has no driver, so a well-read command ends at "no driver"), and bad ones are refused by name.
func TestDriveArguments(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	for _, c := range []struct{ args, want string }{
		{"drive 0.1 0 0 --for 3s", "no driver at"},
		{"drive -0.1 0 0 --for 3s", "no driver at"},
		{"drive -- -0.1 0 0", "no driver at"},
		{"drive --for 2s -- -0.1 0 0.5", "no driver at"},
		{"drive 0.1 0 0 --for 3s --coast --rate 10", "no driver at"},
		{"drive 0.1 0", "drive needs VX VY WZ (three numbers), got 2"},
		{"drive 0.1 0 0 0.2", "drive needs VX VY WZ (three numbers), got 4"},
		{"drive 0.1 x 0", `drive: argument 2 "x" is not a number`},
		{"drive 0.1 0 0 --rate 500", "drive: --rate 500 out of 1..100 Hz"},
		{"drive 0.1 0 0 --for 0s", "drive: --for 0s must be > 0"},
		{"drive 0.1 0 0 --input manual", "no driver at"},
		{"drive 0.1 0 0 --input teleop", `drive: --input: unknown velocity input "teleop": use manual, autonomous or cmd_vel`},
	} {
		app := newApp()
		app.ExitErrHandler = func(*cli.Context, error) {}
		f := strings.Fields(c.args)
		args := append([]string{"rosorin-base", f[0], "--socket", sock}, f[1:]...)
		err := app.Run(cliargs.Reorder(args, app))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
}
