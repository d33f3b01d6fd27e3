package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

func TestSplitROSArgs(t *testing.T) {
	defer func() { rosArgs = nil }()
	got, err := splitROSArgs([]string{"rosorin-base", "run", "--ros2", "--ros-args", "-r", "__ns:=/r1", "-p", "cmd_timeout:=0.25", "--", "--lidar", ""})
	if err != nil || strings.Join(got, " ") != "rosorin-base run --ros2 --lidar " || rosArgs == nil || len(rosArgs.Params) != 1 {
		t.Fatalf("splitROSArgs = %q, %v, %+v", got, err, rosArgs)
	}
	rosArgs = nil
	for _, argv := range [][]string{
		{"rosorin-base", "state", "--ros-args", "-p", "a:=1"},
		{"rosorin-base", "run", "--ros-args", "-p", "cmd_timeout"},
	} {
		if _, err := splitROSArgs(argv); err == nil || rosArgs != nil {
			t.Errorf("splitROSArgs(%q) accepted", argv)
		}
	}
	alias := []string{"rosorin-base", "ros2", "--ros-args", "-r", "__ns:=/r2"}
	if got, err := splitROSArgs(alias); err != nil || strings.Join(got, " ") != strings.Join(alias, " ") || rosArgs != nil {
		t.Errorf("the ros2 alias hands its ROS arguments to the bridge: %q, %v", got, err)
	}
	if got, err := splitROSArgs([]string{"rosorin-base", "drive", "--", "-0.1", "0", "0"}); err != nil || len(got) != 6 {
		t.Errorf("a plain -- is left alone: %q, %v", got, err)
	}
}

// TestApplyRunROSArgs: the service's side of the ROS arguments, without starting it: the bridge child's
// arguments, the merged parameter file with the namespace's frame prefix, and nothing at all without ROS
// arguments or a namespace.
func TestApplyRunROSArgs(t *testing.T) {
	defer func() { rosArgs = nil }()
	t.Setenv("ROS_NAMESPACE", "")
	t.Setenv("ROSORIN_LOG_LEVEL", "")
	o := service.Options{ROS2: true, Configs: []string{}}
	cleanup, err := applyRunROSArgs(&o)
	cleanup()
	if err != nil || o.BridgeArgs != nil || len(o.Configs) != 0 {
		t.Fatalf("no ROS arguments: %v, bridge %q, configs %q", err, o.BridgeArgs, o.Configs)
	}
	for _, tc := range []struct {
		env    string
		ros    []string
		bridge string
		frame  string
	}{
		{"/env_ns", nil, "--namespace /env_ns --node-name rosorin_board_driver", "env_ns/odom"},
		{"", []string{"-r", "__ns:=/r1", "-r", "__node:=base1", "-r", "cmd_vel:=nav/cmd_vel", "-r", "other:__ns:=/x"},
			"--namespace /r1 --node-name base1 --remap cmd_vel:=nav/cmd_vel", "r1/odom"},
		{"/env_ns", []string{"-r", "__ns:=/", "-p", "cmd_timeout:=0.25"}, "--namespace  --node-name rosorin_board_driver", "odom"},
		{"", []string{"-p", "allow_graph_enable:=true", "-p", "allow_graph_reset:=false"}, "--namespace  --node-name rosorin_board_driver", "odom"},
		{"", []string{"--enclave", "/rosorin", "-p", "cmd_timeout:=0.25"}, "--namespace  --node-name rosorin_board_driver --enclave /rosorin", "odom"},
	} {
		rosArgs = nil
		t.Setenv("ROS_NAMESPACE", tc.env)
		if tc.ros != nil {
			if _, err := splitROSArgs(append([]string{"rosorin-base", "run", "--ros-args"}, tc.ros...)); err != nil {
				t.Fatal(err)
			}
		}
		sock := filepath.Join(t.TempDir(), "run", "base.sock")
		o := service.Options{ROS2: true, Configs: []string{}, Socket: sock}
		cleanup, err := applyRunROSArgs(&o)
		if err != nil {
			t.Fatalf("%q: %v", tc.ros, err)
		}
		if len(o.Configs) != 1 || o.Configs[0] != sock+".params.yaml" {
			t.Errorf("%q: merged file %q, want it beside the socket: %s.params.yaml", tc.ros, o.Configs, sock)
		}
		if got := strings.Join(o.BridgeArgs, " "); got != tc.bridge {
			t.Errorf("%q: bridge args %q, want %q", tc.ros, got, tc.bridge)
		}
		// The bridge's own parameters go to it (service.BridgeParamArgs), not into the driver's file.
		wantEnable := strings.Contains(strings.Join(tc.ros, " "), "allow_graph_enable:=true")
		if got := o.BridgeParams["allow_graph_enable"]; got != wantEnable || o.BridgeParams["allow_graph_reset"] {
			t.Errorf("%q: bridge params %v", tc.ros, o.BridgeParams)
		}
		c, _, err := config.Load(o.Configs...)
		if err != nil || len(o.Configs) != 1 || c.OdomFrameID != tc.frame {
			t.Errorf("%q: merged %q: odom frame %q, %v; want %q", tc.ros, o.Configs, c.OdomFrameID, err, tc.frame)
		}
		cleanup()
		if _, err := os.Stat(o.Configs[0]); !os.IsNotExist(err) {
			t.Errorf("%q: the merged file is still there after cleanup", tc.ros)
		}
	}
}

// TestMergedParamsFile: the merged parameter file is written beside the control socket (not in the temporary
// directory, whose cleaner deleted it under a running service), whole, mode 0600, over a crashed run's
// stale file and its temporary leftovers never kept; and not while a service serves that socket (whose
// driver restarts read it).
func TestMergedParamsFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rosorin")
	sock := filepath.Join(dir, "base.sock")
	if err := os.MkdirAll(dir, 0o770); err != nil {
		t.Fatal(err)
	}
	stale := MergedParamsPath(sock)
	if err := os.WriteFile(stale, []byte("max_linear: 9\n"), 0o644); err != nil { // a crashed run's
		t.Fatal(err)
	}
	path, err := writeMergedParams(sock, []byte("cmd_timeout: 0.25\n"))
	if err != nil {
		t.Fatal(err)
	}
	if path != sock+".params.yaml" || filepath.Dir(path) != dir || strings.HasPrefix(path, os.TempDir()+"/rosorin-params") {
		t.Errorf("merged file at %s, want beside %s", path, sock)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "cmd_timeout: 0.25\n" {
		t.Errorf("merged file holds %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("merged file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(path + ".tmp-*"); len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
	// The directory made when missing, as the socket's.
	sock2 := filepath.Join(t.TempDir(), "a", "b", "base.sock")
	if p, err := writeMergedParams(sock2, []byte("x: 1\n")); err != nil || filepath.Dir(p) != filepath.Dir(sock2) {
		t.Errorf("socket directory missing: %q %v", p, err)
	}
	// A service on the socket: refused, and its file left as it is.
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := writeMergedParams(sock, []byte("cmd_timeout: 0.2\n")); err == nil || !strings.Contains(err.Error(), "already serves") {
		t.Errorf("with a service on the socket: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "cmd_timeout: 0.25\n" {
		t.Errorf("the serving service's file changed: %q", b)
	}
}

// TestRunROSArgsParams: `rosorin-base run ... --ros-args --params-file F1 --params-file F2 -p cmd_timeout:=0.25`
// on the simulated robot: the driver runs with the -p value over the files', the files' values over the
// --config file's (a later file over an earlier one), another node's section ignored; GET /v1/config shows it.
func TestRunROSArgsParams(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the simulated robot and rosorin-base run")
	}
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f1 := filepath.Join(dir, "all.yaml")
	f2 := filepath.Join(dir, "node.yaml")
	os.WriteFile(f1, []byte("/**:\n  ros__parameters:\n    max_linear: 0.31\n    scan_timeout: 0.6\n    cmd_timeout: 0.5\n"+
		"/other_node:\n  ros__parameters:\n    max_linear: 0.05\n"), 0o644)
	os.WriteFile(f2, []byte("rosorin_board_driver:\n  ros__parameters:\n    max_angular: 0.9\n    cmd_timeout: 0.45\n    use_sim_time: false\n"), 0o644)
	st := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 3}, stacktest.Options{Bin: bin, Config: stacktest.RobotConfig,
		Args: []string{"--ros-args", "--params-file", f1, "--params-file", f2, "-p", "cmd_timeout:=0.25", "--disable-rosout-logs", "--log-level", "info"},
		Env:  clientEnv()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	raw, err := st.Client.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	for k, want := range map[string]float64{"cmd_timeout": 0.25, "max_linear": 0.31, "scan_timeout": 0.6, "max_angular": 0.9, "max_accel_linear": 0.5} {
		if v, ok := got[k].(float64); !ok || v != want {
			t.Errorf("GET /v1/config %s = %v, want %v", k, got[k], want)
		}
	}
	log := st.Log.String()
	for _, w := range []string{"--disable-rosout-logs ignored", "/other_node: other node ignored"} {
		if !strings.Contains(log, w) {
			t.Errorf("the log does not say %q", w)
		}
	}
	m := regexp.MustCompile(`merged=(\S+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("the log names no merged parameter file:\n%s", log)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("the merged file is gone while the service runs: %v", err)
	}
	if m[1] != st.Socket+".params.yaml" {
		t.Errorf("the merged file is %s, want it beside the socket (%s.params.yaml)", m[1], st.Socket)
	}
	st.Close()
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("the merged file %s outlives the service: %v", m[1], err)
	}
}

// TestRunROSArgsRefused: malformed ROS arguments and bad parameter files stop `rosorin-base run` at once
// with exit 2 and a message naming the argument, the file and line, before anything starts (the board named
// here does not exist: an error about it would mean the service got that far).
func TestRunROSArgsRefused(t *testing.T) {
	bin, err := testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	syntax := write("syntax.yaml", "/**:\n  ros__parameters:\n    max_linear: [0.3\n")
	unknown := write("unknown.yaml", "/**:\n  ros__parameters:\n    cmd_timout: 0.25\n")
	sock := filepath.Join(dir, "s.sock")
	run := []string{"run", "--device", filepath.Join(dir, "no-such-board"), "--lidar", "", "--socket", sock, "--state-dir", dir}
	for _, tc := range []struct {
		ros  []string
		want []string
	}{
		{[]string{"-p", "cmd_timeout"}, []string{"-p cmd_timeout", "name:=value"}},
		{[]string{"--frobnicate"}, []string{"--frobnicate", "unknown ROS argument"}},
		{[]string{"--params-file"}, []string{"--params-file", "missing its value"}},
		{[]string{"--params-file", filepath.Join(dir, "absent.yaml")}, []string{"--params-file", "absent.yaml"}},
		{[]string{"--params-file", syntax}, []string{"syntax.yaml", "not valid YAML"}},
		{[]string{"--params-file", unknown}, []string{"unknown.yaml:3: cmd_timout: unknown parameter", "did you mean cmd_timeout?"}},
		{[]string{"-p", "cmd_timeout:=-1"}, []string{"cmd_timeout = -1"}},
		{[]string{"-r", "__ns:=r1"}, []string{"__ns:=r1", "not absolute"}},
	} {
		r := runCLI(t, bin, clientEnv(), append(append(append([]string{}, run...), "--ros-args"), tc.ros...)...)
		if r.code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", tc.ros, r.code, r.stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: stderr does not say %q:\n%s", tc.ros, w, r.stderr)
			}
		}
		if strings.Contains(r.stderr, "no-such-board") {
			t.Errorf("%q: the service got as far as the port:\n%s", tc.ros, r.stderr)
		}
		if _, err := os.Stat(sock); err == nil {
			t.Errorf("%q: the control socket exists", tc.ros)
		}
	}
	// The positive control: the same command line with good arguments gets as far as the missing port, and
	// logs at INFO; with --log-level error it does not.
	r := runCLI(t, bin, clientEnv(), append(append([]string{}, run...), "--ros-args", "-p", "cmd_timeout:=0.25")...)
	if r.code == 0 || !strings.Contains(r.stderr, "no-such-board") || !strings.Contains(r.stderr, "level=INFO") {
		t.Errorf("good arguments: exit %d, want a failure about the port and INFO lines:\n%s", r.code, r.stderr)
	}
	r = runCLI(t, bin, clientEnv(), append(append([]string{}, run...), "--ros-args", "-p", "cmd_timeout:=0.25", "--log-level", "error")...)
	if r.code == 0 || !strings.Contains(r.stderr, "no-such-board") || strings.Contains(r.stderr, "level=INFO") || strings.Contains(r.stderr, "level=WARN") {
		t.Errorf("--log-level error: exit %d, want a failure about the port and no INFO or WARN line:\n%s", r.code, r.stderr)
	}
}

// TestDeployParamsFile: the example parameter file loads as a --params-file too (strict: no unknown key),
// as the launch file passes it.
func TestDeployParamsFile(t *testing.T) {
	f := filepath.Join(deployDir, "base.yaml")
	if _, _, err := config.LoadROS(config.ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{f}}); err != nil {
		t.Errorf("--params-file %s: %v", f, err)
	}
}
