package service

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesBeforeThePort: a negative watchdog and a configuration of the wrong type are refused at
// start, before the board port is opened (the device does not exist, and the error is not about it).
func TestRunRefusesBeforeThePort(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "nodevice")
	log := slog.New(slog.DiscardHandler)
	o := Options{Device: &dev, Socket: filepath.Join(dir, "s.sock"), Watchdog: -1, Log: log}
	if err := Run(context.Background(), o); !errors.Is(err, ErrWatchdog) {
		t.Fatalf("negative watchdog: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rosorin_board_driver:\n  ros__parameters:\n    max_linear: fast\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Watchdog, o.Configs = 0, []string{bad}
	if err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "max_linear") {
		t.Fatalf("bad configuration: %v, want an error naming max_linear", err)
	}
}

func TestResolveConfigs(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	if got := ResolveConfigs([]string{"a.yaml"}, log); len(got) != 1 || got[0] != "a.yaml" {
		t.Fatalf("given files: %q", got)
	}
	if _, err := os.Stat(DefaultConfig); err == nil {
		t.Skip(DefaultConfig + " exists on this machine")
	}
	if got := ResolveConfigs(nil, log); got != nil {
		t.Fatalf("no files and no default: %q, want the built-in defaults", got)
	}
}

// TestBridgeParamArgs: the bridge's parameters set true become its flags; the ROS arguments' values win over
// the --config files' (a -p false drops a file's true).
func TestBridgeParamArgs(t *testing.T) {
	for _, c := range []struct {
		ros, files map[string]bool
		want       string
	}{
		{nil, nil, ""},
		{nil, map[string]bool{"allow_graph_enable": true}, "--allow-graph-enable"},
		{map[string]bool{"allow_graph_enable": false}, map[string]bool{"allow_graph_enable": true, "allow_graph_reset": true}, "--allow-graph-reset"},
		{map[string]bool{"allow_graph_enable": true, "allow_graph_reset": true}, nil, "--allow-graph-enable --allow-graph-reset"},
	} {
		if got := strings.Join(BridgeParamArgs(c.ros, c.files), " "); got != c.want {
			t.Errorf("ros %v files %v: %q, want %q", c.ros, c.files, got, c.want)
		}
	}
}
