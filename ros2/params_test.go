package ros2

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// paramTable is what GET /v1/params gives for c started as start, through JSON as the bridge gets it.
func paramTable(t testing.TB, start, c config.Config) []api.ParamInfo {
	var tab []api.ParamInfo
	for _, p := range config.Params() {
		v, _ := c.Value(p.Name)
		s, _ := start.Value(p.Name)
		tab = append(tab, api.ParamInfo{Name: p.Name, Type: string(p.Type), Description: p.Description,
			ReadOnly: p.ReadOnly(), Limit: p.Limit, Value: v, Start: s})
	}
	b, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	tab = nil
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestListParameters(t *testing.T) {
	names := []string{"cmd_timeout", "a.b", "a.b.c", "a.x.y.z", "ab"}
	for _, tc := range []struct {
		prefixes []string
		depth    uint64
		names    string
		pre      string
	}{
		{nil, 0, "cmd_timeout a.b a.b.c a.x.y.z ab", "a a.b a.x.y"},
		{nil, 1, "cmd_timeout ab", ""},
		{nil, 2, "cmd_timeout a.b ab", "a"},
		{[]string{"a"}, 0, "a.b a.b.c a.x.y.z", "a a.b a.x.y"},
		{[]string{"a"}, 1, "", ""}, // rclcpp counts the separator after the prefix too
		{[]string{"a"}, 2, "a.b", "a"},
		{[]string{"a.b"}, 0, "a.b a.b.c", "a a.b"},
		{[]string{"cmd_timeout"}, 0, "cmd_timeout", ""},
		{[]string{"nope"}, 0, "", ""},
	} {
		r := ListParameters(names, tc.prefixes, tc.depth)
		if got := strings.Join(r.Names, " "); got != tc.names {
			t.Errorf("prefixes %v depth %d: names %q, want %q", tc.prefixes, tc.depth, got, tc.names)
		}
		if got := strings.Join(r.Prefixes, " "); got != tc.pre {
			t.Errorf("prefixes %v depth %d: prefixes %q, want %q", tc.prefixes, tc.depth, got, tc.pre)
		}
	}
}

func TestDescriptor(t *testing.T) {
	start := config.Default()
	start.MaxLinear = 0.35
	tab := paramTable(t, start, start)
	get := func(n string) api.ParamInfo { p, _ := find(tab, n); return p }
	d := Descriptor(get("max_linear"))
	if d.ReadOnly || d.Type != rosmsg.ParameterDouble || len(d.FloatingPointRange) != 1 || d.FloatingPointRange[0].ToValue != 0.35 ||
		!strings.Contains(d.AdditionalConstraints, "never weaken") {
		t.Errorf("max_linear: %+v", d)
	}
	if d := Descriptor(get("device")); !d.ReadOnly || d.Type != rosmsg.ParameterString || d.FloatingPointRange != nil || d.Description == "" {
		t.Errorf("device: %+v", d)
	}
	if d := Descriptor(get("scan_timeout")); !strings.Contains(d.AdditionalConstraints, "0 (scan gate off) is refused") {
		t.Errorf("scan_timeout: %+v", d)
	}
	if d := Descriptor(get("accel_scale")); d.Type != rosmsg.ParameterDoubleArray || !d.ReadOnly {
		t.Errorf("accel_scale: %+v", d)
	}
	off := start
	off.ScanTimeout = 0
	tab = paramTable(t, off, off)
	if d := Descriptor(get("scan_timeout")); d.FloatingPointRange != nil || !strings.Contains(d.AdditionalConstraints, "off at start") {
		t.Errorf("scan_timeout off at start: %+v", d)
	}
}

// TestParamValues: every running value survives JSON, ParameterValue and back into the driver's decoder.
func TestParamValues(t *testing.T) {
	c := config.Default()
	c.AccelScale = [3]float64{1, 1.01, 0.99}
	tab := paramTable(t, c, c)
	set := map[string]any{}
	for _, p := range tab {
		pv := rosValue(p.Type, p.Value)
		if pv.Type != rosType(p.Type) || pv.Type == rosmsg.ParameterNotSet {
			t.Fatalf("%s: type %d", p.Name, pv.Type)
		}
		v, why := driverValue(p, pv)
		if why != "" {
			t.Fatalf("%s: %s", p.Name, why)
		}
		set[p.Name] = v
	}
	b, _ := json.Marshal(set)
	got, err := config.DecodeValues(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c.Values()) {
		t.Errorf("round trip:\n%v\n%v", got, c.Values())
	}
}

func TestCheckParam(t *testing.T) {
	c := config.Default()
	tab := paramTable(t, c, c)
	for _, tc := range []struct {
		p    rosmsg.Parameter
		want string
	}{
		{rosmsg.Parameter{Name: "cmd_timeout", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDouble, Double: 0.2}}, ""},
		{rosmsg.Parameter{Name: "cmd_timeout", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterInteger, Integer: 1}},
			"Wrong parameter type, parameter {cmd_timeout} is of type {double}, setting it to {integer} is not allowed."},
		{rosmsg.Parameter{Name: "cmd_timeout", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterNotSet}}, "setting it to {not set}"},
		{rosmsg.Parameter{Name: "cmd_timeout", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDouble, Double: math.NaN()}}, "not a finite number"},
		{rosmsg.Parameter{Name: "device", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterString, String: "x"}}, "is read-only"},
		{rosmsg.Parameter{Name: "nope", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDouble}}, "is not declared"},
	} {
		_, why := check(tab, tc.p)
		if (tc.want == "") != (why == "") || !strings.Contains(why, tc.want) {
			t.Errorf("%s %+v: %q, want %q", tc.p.Name, tc.p.Value, why, tc.want)
		}
	}
	if _, why := check(nil, rosmsg.Parameter{Name: "cmd_timeout"}); !strings.Contains(why, "does not answer") {
		t.Errorf("no table: %q", why)
	}
}

// FuzzParamRequest: any bytes on a parameter service's request topic, through what the bridge does with them
// (split, decode, check) and what the driver then does (DecodeValues, SetRuntime): never a panic, and a set
// the driver accepts never weakens a limit.
func FuzzParamRequest(f *testing.F) {
	hdr := [RequestHeaderLen]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}
	seeds := []cdr.Marshaler{
		&rosmsg.ListParametersRequest{Depth: 1, Prefixes: []string{"a"}},
		&rosmsg.NamesRequest{Names: []string{"cmd_timeout", "device"}},
		&rosmsg.SetParametersRequest{Parameters: []rosmsg.Parameter{
			{Name: "max_linear", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDouble, Double: 0.1}},
			{Name: "cmd_timeout", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDouble, Double: 0.2}}}},
		&rosmsg.SetParametersRequest{Parameters: []rosmsg.Parameter{
			{Name: "accel_scale", Value: rosmsg.ParameterValue{Type: rosmsg.ParameterDoubleArray, DoubleArray: []float64{1, 1, 1}}}}},
	}
	for i, m := range seeds {
		f.Add(uint8(i), joinRequest(hdr, m))
	}
	start := config.Default()
	tab := paramTable(f, start, start)
	f.Fuzz(func(t *testing.T, pick uint8, b []byte) {
		_, body, err := SplitRequest(b)
		if err != nil {
			return
		}
		switch pick % 3 {
		case 0:
			var q rosmsg.ListParametersRequest
			if cdr.Unmarshal(body, &q) == nil {
				ListParameters([]string{"a.b", "c"}, q.Prefixes, q.Depth)
			}
		case 1:
			q := rosmsg.NamesRequest{Srv: rosmsg.SrvGetParameters}
			_ = cdr.Unmarshal(body, &q)
		case 2:
			q := rosmsg.SetParametersRequest{Srv: rosmsg.SrvSetParameters}
			if cdr.Unmarshal(body, &q) != nil {
				return
			}
			values := map[string]any{}
			for _, p := range q.Parameters {
				if v, why := check(tab, p); why == "" {
					values[p.Name] = v
				}
			}
			js, err := json.Marshal(values)
			if err != nil {
				t.Fatalf("checked values do not encode: %v", err)
			}
			m, err := config.DecodeValues(js)
			if err != nil {
				t.Fatalf("values the bridge let through are refused by the driver's decoder: %v (%s)", err, js)
			}
			got, err := config.SetRuntime(start, start, m)
			if err != nil {
				return
			}
			if got.CmdTimeout > start.CmdTimeout || got.MaxLinear > start.MaxLinear || got.ScanTimeout == 0 {
				t.Fatalf("accepted set weakens a limit: %+v", got)
			}
		}
	})
}

// TestBridgeParams: allow_graph_enable and allow_graph_reset are served after the driver's parameters,
// read-only, with their start values; a set is refused and says how to set them at the bridge's start.
func TestBridgeParams(t *testing.T) {
	c := config.Default()
	tab := append(paramTable(t, c, c), BridgeParams(true, false)...)
	for _, name := range []string{ParamAllowGraphEnable, ParamAllowGraphReset} {
		p, ok := find(tab, name)
		if !ok || !p.ReadOnly || p.Type != "bool" {
			t.Fatalf("%s: %+v %v", name, p, ok)
		}
		d := Descriptor(p)
		if !d.ReadOnly || d.Type != rosmsg.ParameterBool || !strings.Contains(d.AdditionalConstraints, "bridge's start") {
			t.Errorf("%s descriptor %+v", name, d)
		}
		_, why := check(tab, rosmsg.Parameter{Name: name, Value: rosmsg.ParameterValue{Type: rosmsg.ParameterBool, Bool: true}})
		if !strings.Contains(why, "read-only: the bridge reads it only at start") || !strings.Contains(why, name+":=true") {
			t.Errorf("set %s: %q", name, why)
		}
	}
	if p, _ := find(tab, ParamAllowGraphEnable); p.Value != true {
		t.Errorf("allow_graph_enable %v, want true", p.Value)
	}
	if v := rosValue("bool", BridgeParams(false, true)[1].Value); v.Type != rosmsg.ParameterBool || !v.Bool {
		t.Errorf("allow_graph_reset as a ROS value: %+v", v)
	}
	w := GraphAccess(7, false, true)
	for _, says := range []string{"any participant on domain 7", "velocity inputs", "latch the e-stop",
		"~/enable true (turn motion on): refused (allow_graph_enable false)", "~/reset_estop (clear the latch): ALLOWED (allow_graph_reset true)"} {
		if !strings.Contains(w, says) {
			t.Errorf("start-up warning lacks %q: %s", says, w)
		}
	}
	for _, m := range []string{GraphEnableRefused, GraphResetRefused} {
		if !strings.Contains(m, "over the ROS graph is off") || !strings.Contains(m, "=1 in the service's environment") {
			t.Errorf("refusal %q does not say why and how", m)
		}
	}
}
