//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
	"github.com/rosorin/rosorin/sim"
)

// value parses the peer's "d:0.3", "i:1", "b:1", "s:x", "a:1,2,3" into the driver's JSON shapes.
func value(t *testing.T, s string) any {
	t.Helper()
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		t.Fatalf("value %q", s)
	}
	num := func(x string) float64 {
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			t.Fatalf("value %q: %v", s, err)
		}
		return f
	}
	switch k {
	case "d", "i":
		return num(v)
	case "b":
		return v == "1"
	case "s":
		return v
	case "a":
		var out []any
		for _, x := range strings.Split(v, ",") {
			out = append(out, num(x))
		}
		return out
	}
	t.Fatalf("value %q of no known type", s)
	return nil
}

// TestParamsEndToEnd: the C parameter peer (Cyclone's own types for rcl_interfaces) against `rosorin-base run
// --ros2` on the sim. It lists, gets, describes and sets through the six services; the accepted set shows in
// /v1/config and on /parameter_events; a set above the start value, of a read-only parameter, of the wrong
// type or of an unknown name is refused with a reason and changes nothing; set_parameters_atomically is all
// or nothing; the values got through the services, dumped as `ros2 param dump` writes them, load back
// unchanged with config.Load; and the get round trip is measured.
func TestParamsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a C peer")
	}
	loopbackEnv(t)
	t.Setenv("ROSORIN_ROS2", "1")
	dir := t.TempDir()
	bin := buildParamsPeer(t)
	// The peer first: /parameter_events is volatile, so only a reader that is there when the node starts
	// sees its new_parameters.
	p := startPeer(t, bin)
	st, logPath := startSimTarget(t, 30*time.Second, target.SimConfig{BaseLog: filepath.Join(dir, "base.log")})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(30*time.Second))
	defer cancel()
	cl := st.Client()
	running := func() map[string]any {
		b, err := cl.Config(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	table, err := cl.Params(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := map[string]api.ParamInfo{}
	for _, pi := range table {
		start[pi.Name] = pi
	}
	node := "/" + ros2.NodeName

	p.wait(t, 0, "ready", 30*time.Second, nil)
	ev := p.wait(t, 0, "event "+node+" ", 10*time.Second, nil)
	// The driver's parameters and the bridge's two (allow_graph_enable, allow_graph_reset).
	nParams := len(config.Params()) + len(ros2.BridgeParams(false, false))
	if f := strings.Fields(ev); len(f) < 4 || f[2] != strconv.Itoa(nParams) || f[3] != "0" {
		t.Errorf("start event %q: want %d new parameters, 0 changed", ev, nParams)
	}

	ask := func(cmd, prefix string) string {
		t.Helper()
		m := p.mark()
		p.send(t, cmd)
		l := p.wait(t, m, prefix, 10*time.Second, func(l string) bool { return true })
		if strings.HasPrefix(l, "error") {
			t.Fatalf("%s: %s", cmd, l)
		}
		return l
	}

	// list: every parameter the driver reads.
	f := strings.Fields(ask("list", "list "))
	if f[1] != strconv.Itoa(nParams) || len(f) != 2+nParams {
		t.Fatalf("list: %v", f)
	}
	names := f[2:]
	for _, want := range []string{"cmd_timeout", "max_linear", "device", "accel_scale", "estop_key", "pad_sounds", ros2.ParamAllowGraphEnable, ros2.ParamAllowGraphReset} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("list lacks %s", want)
		}
	}

	// get: the running values, typed.
	f = strings.Fields(ask("get cmd_timeout max_linear estop_key pad_sounds accel_scale", "get "))
	if len(f) != 7 || f[1] != "5" {
		t.Fatalf("get: %v", f)
	}
	if v := value(t, f[2]); v != 0.3 || !strings.HasPrefix(f[2], "d:") {
		t.Errorf("cmd_timeout %v (%s), want the double 0.3", v, f[2])
	}
	if v := value(t, f[3]); v != start["max_linear"].Value {
		t.Errorf("max_linear %v, driver %v", v, start["max_linear"].Value)
	}
	if !strings.HasPrefix(f[4], "i:") || !strings.HasPrefix(f[5], "b:") || !strings.HasPrefix(f[6], "a:") {
		t.Errorf("types in get: %v", f[4:])
	}
	if l := ask("get cmd_timeout no_such_param", "get "); l != "get 0" {
		t.Errorf("get with an unknown name: %q, want an empty answer (rclcpp)", l)
	}
	if l := ask("types cmd_timeout estop_key device pad_sounds accel_scale", "types "); l != "types 5 3 2 4 1 8" {
		t.Errorf("types: %q", l)
	}
	maxLin := start["max_linear"].Start.(float64)
	if l := ask("describe max_linear", "describe "); !strings.HasPrefix(l, "describe 1 max_linear 3 0 0 ") ||
		value(t, "d:"+strings.Fields(l)[6]) != maxLin || !strings.Contains(l, "never weaken") {
		t.Errorf("describe max_linear: %q, want the range 0..%v and the rule", l, maxLin)
	}
	if l := ask("describe device", "describe "); !strings.HasPrefix(l, "describe 1 device 4 1 - - | read at start only") {
		t.Errorf("describe device: %q", l)
	}
	if l := ask("describe allow_graph_reset", "describe "); !strings.HasPrefix(l, "describe 1 allow_graph_reset 1 1 - - | read at the bridge's start only") {
		t.Errorf("describe allow_graph_reset: %q", l)
	}

	// An accepted set: max_linear lower than the start value.
	lower := maxLin - 0.1
	m := p.mark()
	if l := ask(fmt.Sprintf("set max_linear d:%v", lower), "set "); l != "set 0 1 " && l != "set 0 1" {
		t.Fatalf("set max_linear %v: %q", lower, l)
	}
	if v := running()["max_linear"]; v != lower {
		t.Errorf("/v1/config max_linear %v after the set, want %v", v, lower)
	}
	ev = p.wait(t, m, "event "+node+" 0 1 max_linear ", 5*time.Second, nil)
	if v := value(t, strings.Fields(ev)[5]); v != lower {
		t.Errorf("event %q: want max_linear %v", ev, lower)
	}

	// Refusals: each with a reason, each changing nothing.
	before := running()
	for _, tc := range []struct{ cmd, want string }{
		{"set cmd_timeout d:0.4", "set 0 0 "},
		{"set device s:/dev/ttyUSB9", "set 0 0 parameter 'device' cannot be set because it is read-only"},
		{"set cmd_timeout i:1", "set 0 0 Wrong parameter type, parameter {cmd_timeout} is of type {double}, setting it to {integer}"},
		{"set cmd_timeout s:0.2", "set 0 0 Wrong parameter type"},
		{"set no_such_param d:1", "set 0 0 parameter 'no_such_param' is not declared"},
		{fmt.Sprintf("set max_linear d:%v", maxLin+0.05), "set 0 0 "},
		{"set scan_timeout d:0", "set 0 0 "},
		{"seta max_angular d:0.5 cmd_timeout d:0.5", "seta 0 "},
		{"seta max_angular d:0.5 device s:x", "seta 0 nothing was set: parameter 'device' cannot be set because it is read-only"},
	} {
		l := ask(tc.cmd, strings.Fields(tc.want)[0]+" ")
		if !strings.HasPrefix(l, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.cmd, l, tc.want)
		}
		if strings.Contains(tc.cmd, "d:0.4") && !strings.Contains(l, "weaken a safety limit beyond the value the driver started with (0.3)") {
			t.Errorf("%s: reason %q does not say why", tc.cmd, l)
		}
	}
	if after := running(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("refused sets changed the configuration:\n%v\n%v", before, after)
	}
	// set_parameters is per parameter: the good one goes in, the bad one not.
	m = p.mark()
	p.send(t, "set max_angular d:0.8 cmd_timeout d:0.4")
	p.wait(t, m, "set 1 0 ", 10*time.Second, nil)
	if l := p.wait(t, m, "set 0 ", 10*time.Second, nil); l != "set 0 1 " && l != "set 0 1" {
		t.Errorf("set max_angular 0.8 in a mixed request: %q", l)
	}
	if c := running(); c["max_angular"] != 0.8 || c["cmd_timeout"] != 0.3 {
		t.Errorf("after a mixed set_parameters: max_angular %v cmd_timeout %v", c["max_angular"], c["cmd_timeout"])
	}
	// set_parameters_atomically: both or none; here both.
	if l := ask("seta cmd_timeout d:0.25 source_timeout d:0.15", "seta "); !strings.HasPrefix(l, "seta 1") {
		t.Errorf("seta cmd_timeout 0.25 source_timeout 0.15: %q", l)
	}
	if c := running(); c["cmd_timeout"] != 0.25 || c["source_timeout"] != 0.15 {
		t.Errorf("after seta: %v %v", c["cmd_timeout"], c["source_timeout"])
	}
	if l := ask("get cmd_timeout", "get "); value(t, strings.Fields(l)[2]) != 0.25 {
		t.Errorf("get after seta: %q", l)
	}

	// A set through the control socket shows on /parameter_events too (the bridge's poll, within ParamPoll).
	m = p.mark()
	if r, err := cl.SetParams(ctx, map[string]any{"max_accel_linear": 0.4}); err != nil || !r.Success {
		t.Fatalf("socket set: %+v %v", r, err)
	}
	ev = p.wait(t, m, "event "+node+" 0 1 max_accel_linear ", 5*time.Second, nil)
	if v := value(t, strings.Fields(ev)[5]); v != 0.4 {
		t.Errorf("event %q: want max_accel_linear 0.4", ev)
	}

	// Malformed requests on a parameter service are counted and dropped; the next good one is answered.
	malformed(t, node, logPath)
	if l := ask("get cmd_timeout", "get "); value(t, strings.Fields(l)[2]) != 0.25 {
		t.Errorf("get after malformed requests: %q", l)
	}

	// `ros2 param dump`: the values got through get_parameters, written as a params file, load back as the
	// configuration the driver runs with.
	f = strings.Fields(ask("get "+strings.Join(names, " "), "get "))
	if len(f) != 2+len(names) {
		t.Fatalf("get all: %d values for %d names", len(f)-2, len(names))
	}
	vals := map[string]string{}
	for i, n := range names {
		vals[n] = f[2+i]
	}
	// The bridge's own two parameters are not the driver's: driver/config does not know them (config.Load
	// warns "unknown key ignored", --params-file refuses the file), so the dump that goes back to the driver
	// leaves them out (docs/ros2.md, "Who may do what on the graph").
	var driverNames []string
	for _, n := range names {
		if n != ros2.ParamAllowGraphEnable && n != ros2.ParamAllowGraphReset {
			driverNames = append(driverNames, n)
		}
	}
	if len(driverNames) != len(names)-2 {
		t.Errorf("the list has %d parameters that are not the driver's, want the bridge's 2", len(names)-len(driverNames))
	}
	if v := vals[ros2.ParamAllowGraphEnable]; v != "b:1" {
		t.Errorf("allow_graph_enable got as %q, want b:1 (TestMain allows it)", v)
	}
	names = driverNames
	dump := dumpYAML(node, names, vals)
	path := filepath.Join(dir, "dump.yaml")
	if err := os.WriteFile(path, []byte(dump), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, notes, err := config.Load(path)
	if err != nil || len(notes.Warnings()) > 0 {
		t.Fatalf("config.Load of the dump: %v %v\n%s", err, notes, dump)
	}
	now := running()
	for n, v := range loaded.Values() {
		want, _ := json.Marshal(now[n])
		got, _ := json.Marshal(v)
		if string(got) != string(want) {
			t.Errorf("dump of %s loads as %s, the driver runs with %s", n, got, want)
		}
	}
	t.Logf("dump (first lines):\n%s", strings.Join(strings.SplitN(dump, "\n", 8)[:7], "\n"))

	// The dump starts a node with those values: `rosorin-base run --ros-args --params-file` of it on a second
	// simulated robot shows them on GET /v1/config. The dump's device and lidar_device are the first robot's
	// ptys: they are left out of the file, as for another robot, whose ports are its own.
	var other []string
	for _, l := range strings.Split(dump, "\n") {
		if !strings.HasPrefix(l, "    device:") && !strings.HasPrefix(l, "    lidar_device:") {
			other = append(other, l)
		}
	}
	path2 := filepath.Join(dir, "dump-other-robot.yaml")
	if err := os.WriteFile(path2, []byte(strings.Join(other, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err = testkit.Binary("./cmd/rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	st2 := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 5}, stacktest.Options{Bin: bin,
		Args: []string{"--ros-args", "--params-file", path2}})
	defer st2.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), testkit.Bound(10*time.Second))
	defer cancel2()
	raw, err := st2.Client.Config(ctx2)
	if err != nil {
		t.Fatal(err)
	}
	var started map[string]any
	if err := json.Unmarshal(raw, &started); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	checked := 0
	for _, n := range names {
		if n == "device" || n == "lidar_device" {
			continue
		}
		want, _ := json.Marshal(now[n])
		got, _ := json.Marshal(started[n])
		if string(got) != string(want) {
			t.Errorf("started from the dump: %s = %s, the dumped driver ran with %s", n, got, want)
		}
		checked++
	}
	if v, _ := started["cmd_timeout"].(float64); v != 0.25 || checked < 40 {
		t.Errorf("started from the dump: cmd_timeout %v (want the tightened 0.25), %d parameters checked", started["cmd_timeout"], checked)
	}

	// The round trip of one get_parameters call, as `ros2 param get` makes it.
	l := ask("bench 50 cmd_timeout", "bench ")
	t.Logf("get_parameters round trip over 50 calls (median, p99, max in µs): %s", l)
	// A generous bound, not the figure: a reply held by Service.Reply's 100 ms wait for a reply reader (a
	// request writer of a client that never matched its reply reader) takes over 100 ms.
	if f := strings.Fields(l); len(f) != 5 {
		t.Errorf("bench: %q", l)
	} else if med, _ := strconv.ParseFloat(f[2], 64); med > float64(testkit.Bound(50*time.Millisecond).Microseconds()) {
		t.Errorf("get_parameters median round trip %v µs", med)
	}
}

// malformed writes three malformed requests on ~/get_parameters from a participant of the test's own (closed
// on return: a request writer without a reply reader would hold every later reply in Service.Reply's wait)
// and waits for the bridge to log them dropped.
func malformed(t *testing.T, node, logPath string) {
	dp, err := dds.NewParticipant(mustAtoi(os.Getenv("ROS_DOMAIN_ID")), "")
	if err != nil {
		t.Fatal(err)
	}
	defer dp.Close()
	w, err := dp.NewWriter(ros2.RequestTopic(node+"/get_parameters"), "rcl_interfaces::srv::dds_::GetParameters_Request_", dds.Services, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if n, _ := w.Matched(); n < 1 {
			return fmt.Errorf("get_parameters request reader not matched")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	hdr16 := make([]byte, 16)
	for _, bad := range [][]byte{{0, 1, 0, 0}, append(append([]byte{0, 1, 0, 0}, hdr16...), 0xff, 0xff, 0xff, 0x7f), append([]byte{0, 7, 0, 0}, hdr16...)} {
		if err := w.Write(bad); err != nil {
			t.Fatal(err)
		}
	}
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		b, _ := os.ReadFile(logPath)
		if n := strings.Count(string(b), "malformed parameter request dropped"); n < 3 {
			return fmt.Errorf("%d malformed requests logged", n)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
}
