// Package cliargs lets the toolkit's commands take flags after their positional arguments
// (`stopproof prove estop,kill --spin 2s`, `rosorin-base drive 0.1 0 0 --for 3s`). urfave/cli v2 stops
// reading flags at the first positional argument and would take "--spin" for an argument; Reorder moves the
// flags of the (sub)command being run in front of its arguments before the app parses them. One way for
// every command, instead of one workaround each.
package cliargs

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// Reorder returns args (os.Args: program name first) with the flags of the innermost named subcommand moved
// in front of its positional arguments, in their order. "--" ends the reordering: it and everything after it
// stay positional. A negative number ("-0.1") is a positional argument, not a flag. Global flags and
// unknown commands are left as they are, for the app to report.
func Reorder(args []string, app *cli.App) []string {
	if len(args) < 2 {
		return args
	}
	cmds, flags := app.Commands, app.Flags
	var cmd *cli.Command
	ci := -1
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if isFlag(a) {
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valueFlags(flags)[name] {
				i++ // its value
			}
			continue
		}
		next := find(cmds, a)
		if next == nil {
			break
		}
		cmd, ci, cmds, flags = next, i, next.Subcommands, next.Flags
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return args // a command that passes its arguments on as they are (rosorin-base ros2)
	}
	takesValue := valueFlags(cmd.Flags)
	out := append([]string(nil), args[:ci+1]...)
	var pos []string
	rest := args[ci+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			pos = append(pos, rest[i:]...)
			i = len(rest)
		case isFlag(a):
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
	if len(pos) > 0 && pos[0] != "--" && needsTerminator(pos) {
		// a negative number among the arguments: "--" keeps urfave/cli from reading it as a flag.
		out = append(out, "--")
	}
	return append(out, pos...)
}

// valueFlags names the flags that take a value (all but booleans).
func valueFlags(flags []cli.Flag) map[string]bool {
	m := map[string]bool{}
	for _, f := range flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			m[n] = !isBool
		}
	}
	return m
}

func find(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// isFlag tells a flag ("-x", "--name", "--name=v") from a positional argument; "-" alone and negative numbers
// are arguments.
func isFlag(a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

func needsTerminator(pos []string) bool {
	for _, p := range pos {
		if len(p) > 1 && p[0] == '-' {
			return true
		}
	}
	return false
}
