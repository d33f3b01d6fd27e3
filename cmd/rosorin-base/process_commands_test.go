package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
)

// deployDir is ../../deploy: the unit, the udev rule and the example parameters must agree with the code.
var deployDir = filepath.Join("..", "..", "deploy")

func unitKeys(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(deployDir, "rosorin-base.service"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("unit line without '=': %q", line)
		}
		keys[k] = append(keys[k], v)
	}
	return keys
}

// flagsKnown checks that every --flag of a command line exists on cmd.
func flagsKnown(t *testing.T, cmd *cli.Command, args []string) map[string]string {
	t.Helper()
	names := map[string]bool{}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			names[n] = true
		}
	}
	vals := map[string]string{}
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "--") {
			t.Errorf("%s: stray argument %q", cmd.Name, args[i])
			continue
		}
		n := strings.TrimPrefix(args[i], "--")
		if !names[n] {
			t.Errorf("%s: unknown flag --%s", cmd.Name, n)
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			vals[n] = args[i+1]
			i++
		}
	}
	return vals
}

func TestDeployUnit(t *testing.T) {
	k := unitKeys(t)
	want := map[string]string{
		"KillSignal": "SIGINT", "KillMode": "mixed", "TimeoutStopSec": "10", "Restart": "always", "RestartSec": "3",
		"RuntimeDirectory": "rosorin", "SupplementaryGroups": "dialout", "User": "rosorin",
	}
	for key, v := range want {
		if got := k[key]; len(got) != 1 || got[0] != v {
			t.Errorf("%s=%v, want %s", key, got, v)
		}
	}
	start := strings.Fields(k["ExecStart"][0])
	if start[0] != "/usr/local/bin/rosorin-base" || start[1] != "run" {
		t.Fatalf("ExecStart %v", start)
	}
	vals := flagsKnown(t, runCommand(), start[2:])
	if vals["socket"] != api.DefaultSocket || vals["device"] != "/dev/ttyACM0" || vals["lidar"] != "/dev/lidar" {
		t.Errorf("ExecStart flags %v: socket must be %s under RuntimeDirectory", vals, api.DefaultSocket)
	}
	post := strings.Fields(k["ExecStopPost"][0])
	if post[0] != "/usr/local/bin/rosorin-base" || post[1] != "stop-motors" {
		t.Fatalf("ExecStopPost %v", post)
	}
	flagsKnown(t, stopMotorsCommand(), post[2:])
}

func TestDeployConfigLoads(t *testing.T) {
	cfg, notes, err := config.Load(filepath.Join(deployDir, "base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes on the example parameters: %v", notes)
	}
	if cfg.Device != "/dev/ttyACM0" || cfg.LidarDevice != "/dev/lidar" || !cfg.Clockwise || !cfg.LidarRespawn {
		t.Errorf("example parameters: %+v", cfg)
	}
}

func TestDeployUdevRule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(deployDir, "60-rosorin-lidar.rules"))
	if err != nil {
		t.Fatal(err)
	}
	var rule string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			rule = l
		}
	}
	for _, part := range []string{`SUBSYSTEM=="tty"`, `KERNELS=="`, `SYMLINK+="lidar"`} {
		if !strings.Contains(rule, part) {
			t.Errorf("udev rule %q lacks %s", rule, part)
		}
	}
}
