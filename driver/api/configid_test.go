package api

import "testing"

func TestConfigIdentity(t *testing.T) {
	base, err := ConfigIdentity([]byte(`{"max_linear": 0.35, "cmd_timeout": 0.3}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, in string
		same     bool
	}{
		{"the same, keys in another order and spaced", `{ "cmd_timeout":0.3,"max_linear":0.35 }`, true},
		{"the monitor's settings added", `{"max_linear": 0.35, "cmd_timeout": 0.3, "stop_monitor.mode": "hold", "stop_monitor.limits_file": "/x.json"}`, true},
		{"a stopping parameter changed", `{"max_linear": 0.5, "cmd_timeout": 0.3}`, false},
		{"a parameter added", `{"max_linear": 0.35, "cmd_timeout": 0.3, "ramp": 1}`, false},
	} {
		got, err := ConfigIdentity([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (got == base) != c.same {
			t.Errorf("%s: identity %s, base %s, want same %v", c.name, got, base, c.same)
		}
	}
	if _, err := ConfigIdentity([]byte(`[1, 2]`)); err == nil {
		t.Error("a JSON array: no error")
	}
}
