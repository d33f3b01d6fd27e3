package rosargs

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/protocol/rosname"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in, rest, ros []string
		found         bool
	}{
		{[]string{"run", "--sim"}, []string{"run", "--sim"}, nil, false},
		{[]string{"run", "--ros-args", "-r", "__ns:=/r1"}, []string{"run"}, []string{"-r", "__ns:=/r1"}, true},
		{[]string{"run", "--ros-args", "-p", "a:=1", "--", "--sim", "--ros-args", "-r", "x:=y"},
			[]string{"run", "--sim"}, []string{"-p", "a:=1", "-r", "x:=y"}, true},
		{[]string{"drive", "--", "-1"}, []string{"drive", "--", "-1"}, nil, false},
	} {
		rest, ros, found := Split(tc.in)
		if !reflect.DeepEqual(rest, tc.rest) || !reflect.DeepEqual(ros, tc.ros) || found != tc.found {
			t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", tc.in, rest, ros, found, tc.rest, tc.ros, tc.found)
		}
	}
}

func TestParse(t *testing.T) {
	a, err := Parse(strings.Fields("-r __ns:=/r1 --remap other:__node:=x -r __node:=base1 -r cmd_vel:=/teleop/cmd_vel " +
		"--params-file a.yaml -p cmd_timeout:=0.25 --param max_linear:=1 --params-file b.yaml --log-level debug " +
		"--log-level base1:=WARN -e /robot --disable-rosout-logs --enable-stdout-logs --ros-args -p pad_sounds:=yes"))
	if err != nil {
		t.Fatal(err)
	}
	if name, ns := a.Node("rosorin_board_driver", ""); name != "base1" || ns != "/r1" {
		t.Errorf("Node = %q, %q; want base1, /r1", name, ns)
	}
	if !reflect.DeepEqual(a.ParamsFiles, []string{"a.yaml", "b.yaml"}) {
		t.Errorf("ParamsFiles = %q", a.ParamsFiles)
	}
	if len(a.Params) != 3 || a.Params[0].Name != "cmd_timeout" || a.Params[0].Value.Type != Double || a.Params[0].Value.Doubles[0] != 0.25 ||
		a.Params[1].Value.Type != Integer || a.Params[2].Value.Type != Bool || !a.Params[2].Value.Bools[0] {
		t.Errorf("Params = %+v", a.Params)
	}
	if a.LogLevel != "DEBUG" || a.Level("base1") != "WARN" || a.Level("other") != "DEBUG" {
		t.Errorf("levels: %q, base1 %q, other %q", a.LogLevel, a.Level("base1"), a.Level("other"))
	}
	if a.Enclave != "/robot" || len(a.Notes) != 2 { // the enclave is used (the bridge's node), not noted as ignored
		t.Errorf("enclave %q, notes %q", a.Enclave, a.Notes)
	}
	empty, err := Parse(nil)
	if err != nil || empty.Level("x") != "" || len(empty.Remaps) != 0 {
		t.Errorf("Parse(nil) = %+v, %v", empty, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ args, arg, msg string }{
		{"-p cmd_timeout", "-p cmd_timeout", "name:=value"},
		{"-p", "-p", "missing its value"},
		{"--params-file", "--params-file", "missing its value"},
		{"--params-file --", "--params-file", "missing its value"},
		{"--frobnicate", "--frobnicate", "unknown ROS argument"},
		{"cmd_timeout:=1", "cmd_timeout:=1", "without its flag"},
		{"-r cmd_vel", "-r cmd_vel", "from:=to"},
		{"-r __ns:=r1", "-r __ns:=r1", "not absolute"},
		{"-r __node:=a/b", "-r __node:=a/b", "not allowed"},
		{"-r a/*:=b", "-r a/*:=b", "wildcards"},
		{`-r a:=\1`, `-r a:=\1`, "back-references"},
		{"-r 1abc:=x", "-r 1abc:=x", "not allowed"},
		{"-r a//b:=x", "-r a//b:=x", "empty token"},
		{"-r a:=b/", "-r a:=b/", "empty token"},
		{"-r ~x:=y", "-r ~x:=y", `"~" must be followed`},
		{"-r a:={robot}/x", "-r a:={robot}/x", "unknown substitution"},
		{"-p a:=", "-p a:=", "no value"},
		{"-p a:=[]", "-p a:=[]", "empty list"},
		{"-p a:=[1,2.5]", "-p a:=[1,2.5]", "one type"},
		{"-p a:={b:", "-p a:={b:", "not YAML"},
		{"-p a:={b:1}", "-p a:={b:1}", "mapping"},
		{"-p a:=[[1]]", "-p a:=[[1]]", "not a scalar"},
		{"-p node:a:=1", "-p node:a:=1", "node prefix"},
		{"-p a..b:=1", "-p a..b:=1", "empty token"},
		{"--log-level loud", "--log-level loud", "not one of"},
		{"--log-level :=info", "--log-level :=info", "empty logger name"},
		{"-e robot", "-e robot", "absolute"},
	} {
		_, err := Parse(strings.Fields(tc.args))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v; want an *Error", tc.args, err)
			continue
		}
		if e.Arg != tc.arg && !strings.HasPrefix(e.Arg, tc.arg) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Parse(%q) = %q; want arg %q and %q", tc.args, err, tc.arg, tc.msg)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Value
	}{
		{"1", Value{Type: Integer, Ints: []int64{1}}},
		{"-7", Value{Type: Integer, Ints: []int64{-7}}},
		{"0x1f", Value{Type: Integer, Ints: []int64{31}}},
		{"017", Value{Type: Integer, Ints: []int64{15}}}, // strtol base 0: octal
		{"0b11", Value{Type: String, Strings: []string{"0b11"}}},
		{"1_000", Value{Type: String, Strings: []string{"1_000"}}},
		{"9223372036854775808", Value{Type: Double, Doubles: []float64{9223372036854775808}}}, // strtol overflows
		{"0.25", Value{Type: Double, Doubles: []float64{0.25}}},
		{"1e3", Value{Type: Double, Doubles: []float64{1000}}},
		{".5", Value{Type: Double, Doubles: []float64{0.5}}},
		{"-.inf", Value{Type: Double, Doubles: []float64{math.Inf(-1)}}},
		{"true", Value{Type: Bool, Bools: []bool{true}}},
		{"Off", Value{Type: Bool, Bools: []bool{false}}},
		{"y", Value{Type: Bool, Bools: []bool{true}}},
		{"tRUE", Value{Type: String, Strings: []string{"tRUE"}}},
		{"'1'", Value{Type: String, Strings: []string{"1"}}},
		{`"true"`, Value{Type: String, Strings: []string{"true"}}},
		{"/dev/ttyACM0", Value{Type: String, Strings: []string{"/dev/ttyACM0"}}},
		{"null", Value{Type: String, Strings: []string{"null"}}},
		{"[1, 2]", Value{Type: IntArray, Ints: []int64{1, 2}}},
		{"[0.0,0.01,-0.02]", Value{Type: DoubleArray, Doubles: []float64{0, 0.01, -0.02}}},
		{"[true, no]", Value{Type: BoolArray, Bools: []bool{true, false}}},
		{"[a, 'b']", Value{Type: StringArray, Strings: []string{"a", "b"}}},
	} {
		got, err := ParseValue(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseValue(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		// The YAML form reads back to the same value (driver/config reads -p values through it).
		back, err := FromYAML(got.YAML())
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("FromYAML(%q.YAML()) = %+v, %v", tc.in, back, err)
		}
	}
	nan, err := ParseValue(".nan")
	if err != nil || nan.Type != Double || !math.IsNaN(nan.Doubles[0]) {
		t.Errorf("ParseValue(.nan) = %+v, %v", nan, err)
	}
}

func TestRemapName(t *testing.T) {
	a, err := Parse(strings.Fields("-r __ns:=/r1 -r cmd_vel:=nav/cmd_vel -r /estop:=/fleet/estop -r ~/state:=~/status " +
		"-r rosservice://~/enable:=~/arm -r rostopic://~/enable:=~/never -r other:imu/data_raw:=imu/never " +
		"-r rosorin_board_driver:battery:=power/battery -r gamepad:=/r1/joy -r scan:=/{ns}/{node}/scan"))
	if err != nil {
		t.Fatal(err)
	}
	name, ns := a.Node("rosorin_board_driver", "")
	for _, tc := range []struct {
		fq      string
		service bool
		want    string
	}{
		{"/r1/cmd_vel", false, "/r1/nav/cmd_vel"},
		{"/r1/cmd_vel", true, "/r1/nav/cmd_vel"}, // a plain rule applies to services too
		{"/estop", false, "/fleet/estop"},
		{"/r1/estop", false, "/r1/estop"}, // "/estop" is absolute: it does not match the namespaced name
		{"/r1/rosorin_board_driver/state", false, "/r1/rosorin_board_driver/status"},
		{"/r1/rosorin_board_driver/enable", true, "/r1/rosorin_board_driver/arm"},
		{"/r1/rosorin_board_driver/enable", false, "/r1/rosorin_board_driver/never"},
		{"/r1/imu/data_raw", false, "/r1/imu/data_raw"}, // targeted at another node
		{"/r1/battery", false, "/r1/power/battery"},
		{"/r1/gamepad", false, "/r1/joy"},
		{"/r1/scan", false, "/r1/rosorin_board_driver/scan"},
		{"/r1/nav/cmd_vel", false, "/r1/nav/cmd_vel"}, // one rule, no chaining
	} {
		if got := a.RemapName(tc.fq, name, ns, tc.service); got != tc.want {
			t.Errorf("RemapName(%q, service %v) = %q; want %q", tc.fq, tc.service, got, tc.want)
		}
	}
	// The first rule that applies wins, for names as for topics.
	b, _ := Parse(strings.Fields("-r other:__node:=no -r __node:=first -r __node:=second -r __ns:=/ -r __ns:=/x"))
	if name, ns := b.Node("rosorin_board_driver", "/env"); name != "first" || ns != "" {
		t.Errorf("Node = %q, %q; want first and the root namespace", name, ns)
	}
	if name, ns := b.Node("other", ""); name != "no" || ns != "" {
		t.Errorf("Node(other) = %q, %q", name, ns)
	}
}

func TestMatchNode(t *testing.T) {
	for _, tc := range []struct {
		section, fqn string
		want         bool
	}{
		{"rosorin_board_driver", "/rosorin_board_driver", true},
		{"rosorin_board_driver", "/r1/rosorin_board_driver", false}, // as in rclcpp: a bare name is in the root namespace
		{"/r1/rosorin_board_driver", "/r1/rosorin_board_driver", true},
		{"/r2/rosorin_board_driver", "/r1/rosorin_board_driver", false},
		{"/**", "/r1/rosorin_board_driver", true},
		{"/**/rosorin_board_driver", "/r1/rosorin_board_driver", true},
		{"/**/rosorin_board_driver", "/rosorin_board_driver", true},
		{"/*/rosorin_board_driver", "/rosorin_board_driver", false},
		{"/*/rosorin_board_driver", "/a/rosorin_board_driver", true},
		{"/r1/*", "/r1/rosorin_board_driver", true},
		{"/**/x", "/r1/rosorin_board_driver", false},
	} {
		if got := MatchNode(tc.section, tc.fqn); got != tc.want {
			t.Errorf("MatchNode(%q, %q) = %v", tc.section, tc.fqn, got)
		}
	}
	long := strings.Repeat("/**", 200) + "/x"
	if MatchNode(long, "/"+strings.Repeat("a/", 200)+"b") {
		t.Error("a long wildcard pattern matched a name it does not end with")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"-r __ns:=/r1", "-p a:=[1,2]", "-p b:='x'", "--log-level x:=info", "-r n:rostopic://a:=~/b",
		"--params-file f -e /e", "-p c:=0x10", "-r {node}:=/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		a, err := Parse(args)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Arg == "" {
				t.Fatalf("Parse(%q): %v is not an *Error naming the argument", args, err)
			}
			return
		}
		name, ns := a.Node("rosorin_board_driver", "")
		if rosname.CheckToken(name) != nil || (ns != "" && checkName(ns) != nil) {
			t.Fatalf("Parse(%q) gave node %q in %q", args, name, ns)
		}
		out := a.RemapName(Expand("cmd_vel", name, ns), name, ns, false)
		if !strings.HasPrefix(out, "/") {
			t.Fatalf("RemapName gave %q, not absolute", out)
		}
		for _, p := range a.Params {
			back, err := FromYAML(p.Value.YAML())
			if err != nil || back.Type != p.Value.Type {
				t.Fatalf("-p %s: YAML round trip %+v -> %+v, %v", p.Arg, p.Value, back, err)
			}
		}
		MatchNode(s, "/r1/"+name)
	})
}
