package cliargs

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// A command with SkipFlagParsing hands its arguments on unchanged: its flags belong to another program.
func TestReorderLeavesSkipFlagParsingAlone(t *testing.T) {
	app := &cli.App{Commands: []*cli.Command{{Name: "ros2", SkipFlagParsing: true}}}
	args := []string{"rosorin-base", "ros2", "--socket", "s", "--namespace", "stamped", "--node-name", "n"}
	if got := Reorder(args, app); !slices.Equal(got, args) {
		t.Fatalf("Reorder = %q, want %q", got, args)
	}
	app.Commands[0].SkipFlagParsing = false // the negative control: unknown flags are moved, values left behind
	if got := Reorder(args, app); slices.Equal(got, args) {
		t.Fatalf("without SkipFlagParsing Reorder left %q alone: the test proves nothing", got)
	}
}
