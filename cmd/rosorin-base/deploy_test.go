package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/internal/testkit"
)

// deployFile reads a file of deploy/ (the tests run in cmd/rosorin-base).
func deployFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// requireTool skips without the tool, or fails when ROSORIN_REQUIRE_DEPLOY_TOOLS=1 (CI).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("ROSORIN_REQUIRE_DEPLOY_TOOLS") == "1" {
			t.Fatalf("%s not found (ROSORIN_REQUIRE_DEPLOY_TOOLS=1)", name)
		}
		t.Skipf("%s not found", name)
	}
	return p
}

// bridgeEnv are the variables the bridge (cmd/rosorin-ros2) and Cyclone read; run's own come from its flags.
var bridgeEnv = map[string]bool{"ROS_DOMAIN_ID": true, "ROS_NAMESPACE": true, "ROSORIN_CMD_VEL_STAMPED": true,
	"CYCLONEDDS_URI": true, "ROS_LOCALHOST_ONLY": true, "ROS_SECURITY_ENABLE": true, "ROS_SECURITY_STRATEGY": true,
	"ROS_SECURITY_KEYSTORE": true, "ROS_SECURITY_ENCLAVE_OVERRIDE": true}

// checkUnit checks a unit (and its drop-ins, in order) against this CLI: every ExecStart/ExecStopPost runs
// /usr/local/bin/rosorin-base with a subcommand it has and flags that subcommand takes, and every
// Environment= variable is read by `run` (a flag's variable) or by the bridge.
func checkUnit(app *cli.App, texts ...string) error {
	exec := map[string][]string{}
	var env []string
	for _, text := range texts {
		section := ""
		for n, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
			if line[0] == '[' {
				section = strings.Trim(line, "[]")
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return fmt.Errorf("line %d: %q is not KEY=VALUE", n+1, line)
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case section == "Service" && (k == "ExecStart" || k == "ExecStopPost"):
				if v == "" {
					delete(exec, k) // a drop-in's reset
				} else {
					exec[k] = append(exec[k], strings.TrimLeft(v, "-@:+!"))
				}
			case section == "Service" && k == "Environment":
				for _, kv := range strings.Fields(v) {
					name, _, _ := strings.Cut(strings.Trim(kv, `"`), "=")
					env = append(env, name)
				}
			}
		}
	}
	if len(exec["ExecStart"]) != 1 {
		return fmt.Errorf("%d ExecStart lines, want 1", len(exec["ExecStart"]))
	}
	runEnv := map[string]bool{}
	for k, lines := range exec {
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) < 2 || f[0] != "/usr/local/bin/rosorin-base" {
				return fmt.Errorf("%s=%s: not /usr/local/bin/rosorin-base SUBCOMMAND", k, l)
			}
			cmd := app.Command(f[1])
			if cmd == nil {
				return fmt.Errorf("%s: rosorin-base has no subcommand %q", k, f[1])
			}
			names := map[string]bool{}
			for _, fl := range cmd.Flags {
				for _, n := range fl.Names() {
					names[n] = true
				}
				if ev, ok := fl.(interface{ GetEnvVars() []string }); ok && f[1] == "run" {
					for _, e := range ev.GetEnvVars() {
						runEnv[e] = true
					}
				}
			}
			for _, a := range f[2:] {
				if !strings.HasPrefix(a, "-") {
					continue
				}
				n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
				if !names[n] {
					return fmt.Errorf("%s: rosorin-base %s has no flag %s", k, f[1], a)
				}
			}
		}
	}
	for _, e := range env {
		if !runEnv[e] && !bridgeEnv[e] {
			return fmt.Errorf("Environment=%s: read by neither rosorin-base run nor the bridge", e)
		}
	}
	return nil
}

// TestDeployUnitROS2: the unit with the ROS 2 drop-in names this CLI's subcommands, flags and variables;
// systemd-analyze verify accepts both (binaries in place, no warning). Negative controls: a flag the CLI
// does not have, a variable nobody reads, and a directive systemd does not know are each caught.
func TestDeployUnitROS2(t *testing.T) {
	unit, dropin := deployFile(t, "rosorin-base.service"), deployFile(t, "ros2.conf")
	app := newApp()
	if err := checkUnit(app, unit, dropin); err != nil {
		t.Fatalf("deploy/rosorin-base.service + deploy/ros2.conf: %v", err)
	}
	if !strings.Contains(dropin, "Environment=ROSORIN_ROS2=1") {
		t.Error("the drop-in does not turn on --ros2")
	}
	for _, bad := range []string{"[Service]\nExecStart=\nExecStart=/usr/local/bin/rosorin-base run --ros3\n", "[Service]\nEnvironment=ROSORIN_ROS3=1\n"} {
		if err := checkUnit(app, unit, bad); err == nil {
			t.Errorf("negative control passed: %q", bad)
		}
	}

	analyze := requireTool(t, "systemd-analyze")
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	verify := func(dropin string) (string, error) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "rosorin-base.service.d"), 0o755)
		// The unit's binary at /usr/local/bin is this tree's build: verify checks that it is executable.
		u := regexp.MustCompile(`/usr/local/bin/rosorin-base\b`).ReplaceAllString(unit, bin)
		os.WriteFile(filepath.Join(dir, "rosorin-base.service"), []byte(u), 0o644)
		os.WriteFile(filepath.Join(dir, "rosorin-base.service.d", "ros2.conf"), []byte(dropin), 0o644)
		cmd := exec.Command(analyze, "verify", filepath.Join(dir, "rosorin-base.service"))
		cmd.Env = append(os.Environ(), "SYSTEMD_UNIT_PATH="+dir+":")
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := verify(dropin); err != nil || out != "" {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	if out, err := verify(dropin + "Enviroment=ROS_DOMAIN_ID=1\n"); err == nil && !strings.Contains(out, "Enviroment") {
		t.Errorf("negative control: systemd-analyze verify did not see a misspelled directive (%q)", out)
	}
}

// TestDeployLaunchFileROS2: deploy/rosorin_base.launch.py is valid Python, and it starts `rosorin-base run
// --ros2` through launch_ros's Node (which appends --ros-args with the name, namespace and parameter file).
func TestDeployLaunchFileROS2(t *testing.T) {
	py := requireTool(t, "python3")
	path := filepath.Join(deployDir, "rosorin_base.launch.py")
	out, err := exec.Command(py, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
		path, filepath.Join(t.TempDir(), "launch.pyc")).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 py_compile %s: %v\n%s", path, err, out)
	}
	src := deployFile(t, "rosorin_base.launch.py")
	for _, want := range []string{"def generate_launch_description(", "Node(", "arguments=['run', '--ros2'",
		"namespace=LaunchConfiguration('namespace')", "parameters=[LaunchConfiguration('params_file')]"} {
		if !strings.Contains(src, want) {
			t.Errorf("launch file lacks %q", want)
		}
	}
	// The negative control: py_compile does reject a syntax error.
	bad := filepath.Join(t.TempDir(), "bad.launch.py")
	os.WriteFile(bad, []byte(src+"\ndef broken(:\n"), 0o644)
	if exec.Command(py, "-m", "py_compile", bad).Run() == nil {
		t.Error("negative control: py_compile accepted a syntax error")
	}
}
