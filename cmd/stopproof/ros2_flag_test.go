package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/ros2/dds"
)

// TestROS2WithoutTag: a stopproof built without the ros2 tag refuses --ros2 with the build hint (exit 2)
// before it starts anything: no evidence log, no simulated robot.
func TestROS2WithoutTag(t *testing.T) {
	if dds.Available() {
		t.Skip("built with the ros2 tag: the default build's refusal is what is tested")
	}
	ev := t.TempDir()
	for _, args := range [][]string{
		{"stopproof", "prove", "--sim", "--ros2", "--evidence-dir", ev, "estop"},
		{"stopproof", "floor", "look", "--sim", "--ros2", "--evidence-dir", ev},
	} {
		app := newApp()
		app.ExitErrHandler = func(*cli.Context, error) {}
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(args)
		var ec cli.ExitCoder
		if !errors.As(err, &ec) || ec.ExitCode() != exitAbort || !strings.Contains(err.Error(), "-tags ros2") {
			t.Errorf("%v: %v (want exit %d with the build hint)\n%s", args, err, exitAbort, out.String())
		}
		if strings.Contains(out.String(), "starting the simulated") {
			t.Errorf("%v: started a simulated robot:\n%s", args, out.String())
		}
	}
	if ents, _ := os.ReadDir(ev); len(ents) != 0 {
		t.Errorf("evidence written: %v", ents)
	}
}
