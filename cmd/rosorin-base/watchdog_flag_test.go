package main

import (
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

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
