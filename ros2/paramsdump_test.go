package ros2_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/ros2"
)

// dumpYAML writes parameters the way `ros2 param dump` (Humble) does: the node's fully qualified name,
// ros__parameters, the names sorted, doubles always with a point, lists one item a line.
func dumpYAML(node string, names []string, vals map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n  ros__parameters:\n", node)
	sort.Strings(names)
	dbl := func(x string) string {
		if !strings.ContainsAny(x, ".eEn") {
			x += ".0"
		}
		return x
	}
	for _, n := range names {
		k, v, _ := strings.Cut(vals[n], ":")
		switch k {
		case "d":
			fmt.Fprintf(&b, "    %s: %s\n", n, dbl(v))
		case "i":
			fmt.Fprintf(&b, "    %s: %s\n", n, v)
		case "b":
			fmt.Fprintf(&b, "    %s: %v\n", n, v == "1")
		case "s":
			if v == "" {
				v = "''" // PyYAML's dump quotes an empty string (stop_monitor.limits_file by default)
			}
			fmt.Fprintf(&b, "    %s: %s\n", n, v)
		case "a":
			fmt.Fprintf(&b, "    %s:\n", n)
			for _, x := range strings.Split(v, ",") {
				fmt.Fprintf(&b, "    - %s\n", dbl(x))
			}
		}
	}
	return b.String()
}

// peerText is a value as the parameter peer prints it ("d:0.3", "a:1,1,1").
func peerText(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("d:%.17g", x)
	case int64:
		return fmt.Sprintf("i:%d", x)
	case bool:
		if x {
			return "b:1"
		}
		return "b:0"
	case string:
		return "s:" + x
	case []float64:
		s := make([]string, len(x))
		for i, f := range x {
			s[i] = fmt.Sprintf("%.17g", f)
		}
		return "a:" + strings.Join(s, ",")
	}
	return "n:"
}

// TestParamsDumpLoads: a configuration written as `ros2 param dump` writes it (what TestParamsEndToEnd does
// with the values got over DDS) loads back unchanged with config.Load, and a changed value shows (the check
// can fail).
func TestParamsDumpLoads(t *testing.T) {
	c := config.Default()
	c.MaxLinear, c.CmdTimeout, c.AccelScale, c.EStopKey, c.GyroNoiseRadS = 0.35, 0.25, [3]float64{1, 1.01, 0.99}, 3, 1e-5
	vals := map[string]string{}
	var names []string
	for n, v := range c.Values() {
		vals[n] = peerText(v)
		names = append(names, n)
	}
	dump := dumpYAML("/"+ros2.NodeName, names, vals)
	if !strings.HasPrefix(dump, "/rosorin_board_driver:\n  ros__parameters:\n    accel_offset_g:\n    - 0.0\n") ||
		!strings.Contains(dump, "\n    max_linear: 0.34999999999999998\n") || !strings.Contains(dump, "\n    estop_key: 3\n") {
		t.Errorf("dump:\n%s", dump)
	}
	path := filepath.Join(t.TempDir(), "dump.yaml")
	os.WriteFile(path, []byte(dump), 0o644)
	got, notes, err := config.Load(path)
	if err != nil || len(notes) > 0 {
		t.Fatalf("Load: %v %v", err, notes)
	}
	if got != c {
		t.Errorf("loaded %+v\nwant   %+v", got, c)
	}
	vals["cmd_timeout"] = "d:0.2"
	os.WriteFile(path, []byte(dumpYAML("/"+ros2.NodeName, names, vals)), 0o644)
	if got, _, _ := config.Load(path); got.CmdTimeout != 0.2 {
		t.Errorf("a changed value did not load: %v", got.CmdTimeout)
	}
}
