package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParamTable(t *testing.T) {
	ps := Params()
	if len(ps) != reflect.TypeOf(Config{}).NumField() {
		t.Fatalf("%d parameters for %d Config fields", len(ps), reflect.TypeOf(Config{}).NumField())
	}
	want := map[string]ParamType{"device": TypeString, "control_rate_hz": TypeDouble, "estop_key": TypeInteger,
		"pad_sounds": TypeBool, "accel_scale": TypeDoubleArray, "cmd_timeout": TypeDouble}
	var rt []string
	for _, p := range ps {
		if p.Description == "" {
			t.Errorf("%s has no description", p.Name)
		}
		if w, ok := want[p.Name]; ok && p.Type != w {
			t.Errorf("%s is %s, want %s", p.Name, p.Type, w)
		}
		if p.Runtime {
			rt = append(rt, p.Name)
		}
		if _, ok := Default().Value(p.Name); !ok {
			t.Errorf("no value for %s", p.Name)
		}
	}
	if got := strings.Join(rt, " "); got != "max_linear max_angular max_accel_linear max_accel_angular cmd_timeout scan_timeout source_timeout" {
		t.Errorf("runtime parameters %q", got)
	}
	for _, n := range []string{"device", "control_rate_hz", "imu_frame_id", "lidar_device", "accel_offset_g", "priority_manual", "contact_hold"} {
		if p, _ := ParamByName(n); !p.ReadOnly() {
			t.Errorf("%s must be read-only", n)
		}
	}
}

// running is a driver started with the robot's 0.35 m/s.
func running() Config {
	c := Default()
	c.MaxLinear = 0.35
	return c
}

func TestSetRuntimeTightens(t *testing.T) {
	start := running()
	cur, err := SetRuntime(start, start, map[string]any{"cmd_timeout": 0.2, "source_timeout": 0.15})
	if err != nil {
		t.Fatal(err)
	}
	if cur.CmdTimeout != 0.2 || cur.SourceTimeout != 0.15 {
		t.Fatalf("got cmd_timeout %v source_timeout %v", cur.CmdTimeout, cur.SourceTimeout)
	}
	// Back to the start value: allowed.
	if cur, err = SetRuntime(start, cur, map[string]any{"cmd_timeout": 0.3}); err != nil || cur.CmdTimeout != 0.3 {
		t.Fatalf("back to 0.3: %v %v", cur.CmdTimeout, err)
	}
	// An integer is a fine number of seconds (as in the YAML).
	if cur, err = SetRuntime(start, cur, map[string]any{"max_linear": int64(0)}); err == nil {
		t.Fatalf("max_linear 0 accepted: %+v", cur)
	}
	if c2, err := SetRuntime(start, cur, map[string]any{"max_angular": int64(1)}); err != nil || c2.MaxAngular != 1 {
		t.Fatalf("max_angular 1 (integer): %v %v", c2.MaxAngular, err)
	}
}

func TestSetRuntimeRefusals(t *testing.T) {
	start := running()
	cur, err := SetRuntime(start, start, map[string]any{"max_linear": 0.2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  map[string]any
		want string
	}{
		{"cmd_timeout above start", map[string]any{"cmd_timeout": 0.4}, "cmd_timeout: 0.4 would weaken a safety limit beyond the value the driver started with (0.3)"},
		{"max_linear above start", map[string]any{"max_linear": 0.36}, "max_linear: 0.36 would weaken"},
		{"scan gate off", map[string]any{"scan_timeout": 0.0}, "scan_timeout: 0 (scan gate off) would weaken"},
		{"scan_timeout above", map[string]any{"scan_timeout": 0.6}, "scan_timeout: 0.6 would weaken"},
		{"accel above", map[string]any{"max_accel_linear": 0.6}, "max_accel_linear: 0.6 would weaken"},
		{"read-only", map[string]any{"device": "/dev/ttyUSB0"}, "device: read-only"},
		{"read-only int", map[string]any{"estop_key": int64(2)}, "estop_key: read-only"},
		{"unknown", map[string]any{"max_lineer": 0.1}, "max_lineer: no such parameter"},
		{"wrong type", map[string]any{"cmd_timeout": "0.2"}, "cmd_timeout: wrong type: it is double"},
		{"wrong type bool", map[string]any{"max_angular": true}, "max_angular: wrong type"},
		{"NaN", map[string]any{"max_angular": nanValue()}, "max_angular = NaN"},
		{"validate", map[string]any{"cmd_timeout": 0.1}, "source_timeout = 0.2 is above cmd_timeout 0.1"},
		{"empty", map[string]any{}, "nothing to set"},
		{"half good", map[string]any{"max_angular": 0.5, "cmd_timeout": 0.5}, "cmd_timeout: 0.5 would weaken"},
	} {
		got, err := SetRuntime(start, cur, tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrParam) && !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
		if got != cur {
			t.Errorf("%s: refused set changed the config", tc.name)
		}
	}
	// A start with the scan gate off: any scan_timeout tightens it, 0 returns it to start.
	off := running()
	off.ScanTimeout = 0
	c, err := SetRuntime(off, off, map[string]any{"scan_timeout": 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SetRuntime(off, c, map[string]any{"scan_timeout": 0.0}); err != nil {
		t.Errorf("scan gate back off (as started): %v", err)
	}
}

func nanValue() float64 { var z float64; return z / z }

func TestDecodeValues(t *testing.T) {
	m, err := DecodeValues([]byte(`{"max_linear": 0.3, "estop_key": 2, "accel_scale": [1, 1, 1.5], "device": "x", "clockwise": false, "nope": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"max_linear": 0.3, "estop_key": int64(2), "accel_scale": []float64{1, 1, 1.5}, "device": "x", "clockwise": false, "nope": "1"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %#v", m)
	}
	for _, bad := range []string{`{"estop_key": 1.5}`, `{"max_linear": "0.3"}`, `{"max_linear": null}`, `[1]`, `null`, `{`, `{"clockwise": 1}`} {
		if m, err := DecodeValues([]byte(bad)); err == nil {
			t.Errorf("%s decoded to %v", bad, m)
		}
	}
}

func TestValuesRoundTrip(t *testing.T) {
	c := running()
	c.AccelScale = [3]float64{1, 1.01, 0.99}
	var back Config = Default()
	for n, v := range c.Values() {
		if err := back.setValue(n, v); err != nil {
			t.Fatal(err)
		}
	}
	if back != c {
		t.Errorf("Values then setValue: %+v, want %+v", back, c)
	}
}

func FuzzDecodeValues(f *testing.F) {
	f.Add([]byte(`{"max_linear": 0.3, "cmd_timeout": 0.2}`))
	f.Add([]byte(`{"accel_scale": [1, 1, 1], "estop_key": 3, "device": "/dev/x"}`))
	f.Add([]byte(`{"scan_timeout": 0}`))
	start := running()
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeValues(b)
		if err != nil {
			return
		}
		got, err := SetRuntime(start, start, m)
		if err != nil {
			if got != start {
				t.Fatal("a refused set changed the config")
			}
			return
		}
		if verr := got.Validate(); verr != nil {
			t.Fatalf("accepted set fails Validate: %v", verr)
		}
		for _, p := range Params() {
			if !p.Limit {
				continue
			}
			nv, _ := got.Value(p.Name)
			sv, _ := start.Value(p.Name)
			if looseness(p.Name, nv.(float64)) > looseness(p.Name, sv.(float64)) {
				t.Fatalf("%s weakened from %v to %v", p.Name, sv, nv)
			}
		}
	})
}
