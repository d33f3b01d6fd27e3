package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// TestDriverWatchdogFlag: `run --driver-watchdog` defaults to the supervisor's timeout, and a negative value
// is refused before the port is touched.
func TestDriverWatchdogFlag(t *testing.T) {
	var def time.Duration
	for _, f := range runCommand().Flags {
		if d, ok := f.(*cli.DurationFlag); ok && d.Name == "driver-watchdog" {
			def = d.Value
		}
	}
	if def != supervisor.DefaultWatchdogTimeout {
		t.Fatalf("--driver-watchdog default %v, want %v", def, supervisor.DefaultWatchdogTimeout)
	}
	app := &cli.App{Name: "rosorin-base", Commands: processCommands(), ExitErrHandler: func(*cli.Context, error) {}}
	dir := t.TempDir()
	err := app.Run([]string{"rosorin-base", "run", "--device", dir + "/nodevice", "--socket", dir + "/s.sock",
		"--lidar", "", "--driver-watchdog", "-1s"})
	if err == nil || !strings.Contains(err.Error(), "--driver-watchdog must be 0 (off) or positive") {
		t.Fatalf("run --driver-watchdog -1s: %v", err)
	}
}

// TestChildArgsMatchTheHiddenCommands: the command lines the service starts its children with use only
// flags the hidden driver and lidar-reader commands have, and they parse to what the service meant.
func TestChildArgsMatchTheHiddenCommands(t *testing.T) {
	o := service.Options{Socket: "/run/x.sock", StateDir: "/var/lib/x", TestDriverHoldsBoardEOF: true}
	dargs, rargs := service.ChildArgs(o, []string{"/etc/a.yaml", "/etc/b.yaml"}, "/dev/lidar", 42)
	if dargs[0] != "driver" || rargs[0] != "lidar-reader" {
		t.Fatalf("child commands %q, %q", dargs[0], rargs[0])
	}
	var got []string
	cmds := processCommands()
	for _, c := range cmds {
		switch c.Name {
		case "driver":
			c.Action = func(c *cli.Context) error {
				got = append(got, fmt.Sprintln(c.Int("supervisor-pid"), c.String("socket"), c.StringSlice("config"),
					c.String("state-dir"), c.Bool("test-hold-board-eof")))
				return nil
			}
		case "lidar-reader":
			c.Action = func(c *cli.Context) error {
				got = append(got, fmt.Sprintln(c.String("lidar"), c.String("socket"), c.StringSlice("config")))
				return nil
			}
		}
	}
	app := &cli.App{Name: "rosorin-base", Commands: cmds}
	for _, args := range [][]string{dargs, rargs} {
		if err := app.Run(append([]string{"rosorin-base"}, args...)); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
	}
	want := []string{"42 /run/x.sock [/etc/a.yaml /etc/b.yaml] /var/lib/x true\n", "/dev/lidar /run/x.sock [/etc/a.yaml /etc/b.yaml]\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("children parsed %q, want %q", got, want)
	}
	if _, r := service.ChildArgs(o, nil, "", 42); r != nil {
		t.Fatalf("no LiDAR device, yet a reader: %q", r)
	}
}
