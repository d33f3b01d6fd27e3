package cliargs

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	return &cli.App{
		Name:  "tool",
		Flags: []cli.Flag{&cli.StringFlag{Name: "socket"}},
		Commands: []*cli.Command{
			{Name: "prove", Flags: []cli.Flag{&cli.BoolFlag{Name: "sim"}, &cli.DurationFlag{Name: "spin"}, &cli.DurationFlag{Name: "hold"}, &cli.StringFlag{Name: "json"}}},
			{Name: "drive", Flags: []cli.Flag{&cli.DurationFlag{Name: "for"}, &cli.BoolFlag{Name: "coast"}}},
			{Name: "fault", Subcommands: []*cli.Command{{Name: "set", Aliases: []string{"s"}, Flags: []cli.Flag{&cli.StringFlag{Name: "dir"}}}}},
		},
	}
}

func TestReorder(t *testing.T) {
	app := testApp()
	for _, c := range []struct{ in, want string }{
		{"tool prove --sim estop,kill --spin 2s --hold=3s", "tool prove --sim --spin 2s --hold=3s estop,kill"},
		{"tool prove estop --sim --json f.json kill", "tool prove --sim --json f.json estop kill"},
		{"tool prove --spin 2s -- --odd", "tool prove --spin 2s -- --odd"},
		{"tool --help", "tool --help"},
		{"tool", "tool"},
		{"tool unknown a --b", "tool unknown a --b"},
		{"tool --socket s prove estop --sim", "tool --socket s prove --sim estop"},
		{"tool drive 0.1 0 0 --for 3s --coast", "tool drive --for 3s --coast 0.1 0 0"},
		{"tool drive -0.1 0 0.5 --for 3s", "tool drive --for 3s -- -0.1 0 0.5"},
		{"tool drive -- -0.1 0 0", "tool drive -- -0.1 0 0"},
		{"tool fault set drop-imu --dir /x", "tool fault set --dir /x drop-imu"},
		{"tool fault s drop-imu --dir=/x", "tool fault s --dir=/x drop-imu"},
	} {
		got := strings.Join(Reorder(strings.Fields(c.in), app), " ")
		if got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestReorderParses checks that what Reorder returns means to urfave/cli what the person typed.
func TestReorderParses(t *testing.T) {
	app := testApp()
	var gotFor string
	var gotArgs []string
	app.Commands[1].Action = func(c *cli.Context) error {
		gotFor, gotArgs = c.Duration("for").String(), c.Args().Slice()
		return nil
	}
	if err := app.Run(Reorder(strings.Fields("tool drive -0.1 0 0.5 --for 3s"), app)); err != nil {
		t.Fatal(err)
	}
	if gotFor != "3s" || strings.Join(gotArgs, " ") != "-0.1 0 0.5" {
		t.Fatalf("for %q args %q", gotFor, gotArgs)
	}
}
