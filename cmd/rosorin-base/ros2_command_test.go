package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// TestROS2AliasWithoutBridge: `rosorin-base ros2` with no bridge binary to run says where it looked and how to
// build one, exit 2; with a bridge built without the tag, the bridge's own refusal (exit 2, the build hint).
func TestROS2AliasWithoutBridge(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base") // the same build as the other tests of the package
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(bridge string) (string, int) {
		cmd := exec.Command(bin, "ros2", "--socket", filepath.Join(dir, "s.sock"))
		cmd.Env = append(os.Environ(), "ROSORIN_ROS2_BRIDGE="+bridge)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("bridge %s: exit 0\n%s", bridge, out)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run(filepath.Join(dir, "no-such-bridge"))
	if code != 2 || !strings.Contains(out, "no-such-bridge") || !strings.Contains(out, "./cmd/rosorin-ros2") {
		t.Errorf("missing bridge: exit %d, want 2 with the path and the build hint:\n%s", code, out)
	}
	// The alias hands its arguments to the bridge unchanged (no flag reordering: they are the bridge's flags).
	echo := filepath.Join(dir, "echo-bridge")
	if err := os.WriteFile(echo, []byte("#!/bin/sh\necho \"$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "ros2", "--socket", "s", "--namespace", "stamped", "--node-name", "n", "--cmd-vel-stamped")
	cmd.Env = append(os.Environ(), "ROSORIN_ROS2_BRIDGE="+echo)
	if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "--socket s --namespace stamped --node-name n --cmd-vel-stamped" {
		t.Errorf("alias passed %q (%v)", out, err)
	}
	if testing.Short() {
		return
	}
	untagged := filepath.Join(dir, "rosorin-ros2")
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-tags", "", "-o", untagged, "./cmd/rosorin-ros2")
	build.Dir, build.Env = root, append(os.Environ(), "GOFLAGS=")
	if o, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/rosorin-ros2: %v\n%s", err, o)
	}
	out, code = run(untagged)
	if code != 2 || !strings.Contains(out, "go build -tags ros2") {
		t.Errorf("untagged bridge: exit %d, want 2 with the build hint:\n%s", code, out)
	}
}
