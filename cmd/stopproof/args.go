package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorder moves a subcommand's flags in front of its positional arguments, so that
// `stopproof prove --sim deadman,estop --spin 2s` means what it says: urfave/cli stops reading flags at the
// first positional argument and would take "--spin" for a path. A "--" ends the reordering.
func reorder(args []string, app *cli.App) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	ci := -1
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue
		}
		cmd, ci = app.Command(args[i]), i
		break
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	out := append([]string(nil), args[:ci+1]...)
	var pos []string
	rest := args[ci+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			out = append(out, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				out = append(out, rest[i+1])
				i++
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(out, pos...)
}
