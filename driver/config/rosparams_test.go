package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/protocol/rosargs"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func overrides(t *testing.T, s ...string) []rosargs.Param {
	t.Helper()
	var out []rosargs.Param
	for _, a := range s {
		p, err := rosargs.ParseParam(a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestLoadROSPrecedence(t *testing.T) {
	base := writeFile(t, "base.yaml", "rosorin_board_driver:\n  ros__parameters:\n    max_linear: 0.3\n    cmd_timeout: 0.4\n")
	f1 := writeFile(t, "f1.yaml", "/**:\n  ros__parameters:\n    max_linear: 0.31\n    scan_timeout: 0.6\n    use_sim_time: false\n"+
		"/r2/rosorin_board_driver:\n  ros__parameters:\n    max_linear: 0.05\n")
	f2 := writeFile(t, "f2.yaml", "r1:\n  rosorin_board_driver:\n    ros__parameters:\n      max_linear: 0.32\n      pad_sounds: yes\n      cmd_timeout: 1\n      drive_pan: 3\n")
	c, notes, err := LoadROS(ROSSources{Configs: []string{base}, Node: "/r1/rosorin_board_driver", ParamsFiles: []string{f1, f2},
		Params: overrides(t, "cmd_timeout:=0.25", "odom_frame_id:=odom1")})
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxLinear != 0.32 || c.ScanTimeout != 0.6 || !c.PadSounds || c.CmdTimeout != 0.25 || c.OdomFrameID != "odom1" {
		t.Errorf("got max_linear %v scan_timeout %v pad_sounds %v cmd_timeout %v odom_frame_id %q", c.MaxLinear, c.ScanTimeout, c.PadSounds, c.CmdTimeout, c.OdomFrameID)
	}
	var other, arm, sim bool
	for _, n := range notes {
		other = other || n.Kind == NoteOtherNode && n.Key == "/r2/rosorin_board_driver"
		arm = arm || n.Kind == NoteArmKey
		sim = sim || n.Key == "use_sim_time"
	}
	if !other || !arm || !sim {
		t.Errorf("notes %v: want the other node's section, the arm key and use_sim_time", notes)
	}
	// A bare node name is the root namespace's node (rclcpp): it does not reach /r1's node.
	bare := writeFile(t, "bare.yaml", "rosorin_board_driver:\n  ros__parameters:\n    max_linear: 0.05\n")
	c, notes, err = LoadROS(ROSSources{Node: "/r1/rosorin_board_driver", ParamsFiles: []string{bare}})
	if err != nil || c.MaxLinear != Default().MaxLinear || len(notes) != 2 || notes[1].Kind != NoteNoSection {
		t.Errorf("bare section for /r1: max_linear %v, notes %v, %v", c.MaxLinear, notes, err)
	}
	c, _, err = LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{bare}})
	if err != nil || c.MaxLinear != 0.05 {
		t.Errorf("bare section for the root node: max_linear %v, %v", c.MaxLinear, err)
	}
	// A dumped configuration loads back to the same values.
	want := Default()
	want.CmdTimeout, want.AccelScale = 0.25, [3]float64{1, 1.01, 0.99}
	b, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err = LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{writeFile(t, "dump.yaml", string(b))}})
	if err != nil || c != want {
		t.Errorf("dump round trip: %+v, %v", c, err)
	}
}

func TestLoadROSErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		params     []string
		want       []string
	}{
		{"syntax", "/**:\n  ros__parameters:\n    max_linear: [0.3\n", nil, []string{"not valid YAML"}},
		{"unknown key", "/**:\n  ros__parameters:\n    cmd_timout: 0.3\n", nil, []string{":3: cmd_timout: unknown parameter", "did you mean cmd_timeout?"}},
		{"wrong type", "/**:\n  ros__parameters:\n    cmd_timeout: fast\n", nil, []string{"cmd_timeout: wrong type"}},
		{"nested", "/**:\n  ros__parameters:\n    gate:\n      x: 1\n", nil, []string{"gate.*: nested"}},
		{"sim time", "/**:\n  ros__parameters:\n    use_sim_time: true\n", nil, []string{"use_sim_time: true"}},
		{"list", "/**:\n  ros__parameters:\n    accel_scale: [1, a, 1]\n", nil, []string{"accel_scale: wrong type"}},
		{"not a mapping", "/**: 3\n", nil, []string{"must be a mapping"}},
		{"range", "", []string{"cmd_timeout:=-1"}, []string{"-p:1: cmd_timeout = -1"}},
		{"unknown -p", "", []string{"cmd_timout:=0.2"}, []string{"cmd_timout: unknown parameter", "the -p cmd_timout:=0.2"}},
		{"wrong -p type", "", []string{"pad_sounds:=1"}, []string{"pad_sounds: wrong type", "the -p pad_sounds:=1"}},
	} {
		var files []string
		if tc.file != "" {
			files = []string{writeFile(t, "p.yaml", tc.file)}
		}
		c, _, err := LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: files, Params: overrides(t, tc.params...)})
		if err == nil || !errors.Is(err, ErrConfig) || c != Default() {
			t.Errorf("%s: err %v (want ErrConfig and the defaults)", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
	if _, _, err := LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{filepath.Join(t.TempDir(), "missing.yaml")}}); err == nil || !strings.Contains(err.Error(), "--params-file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestLoadROSFramePrefix(t *testing.T) {
	f := writeFile(t, "f.yaml", "/**:\n  ros__parameters:\n    base_frame_id: base_footprint\n")
	c, _, err := LoadROS(ROSSources{Node: "/r1/rosorin_board_driver", ParamsFiles: []string{f}, Params: overrides(t, "imu_frame_id:=imu"), FramePrefix: "r1/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.OdomFrameID != "r1/odom" || c.LidarFrameID != "r1/laser" || c.BaseFrameID != "base_footprint" || c.IMUFrameID != "imu" {
		t.Errorf("frames: odom %q lidar %q base %q imu %q; want the defaults prefixed, the set ones as set", c.OdomFrameID, c.LidarFrameID, c.BaseFrameID, c.IMUFrameID)
	}
	if c, _, _ := LoadROS(ROSSources{Node: "/rosorin_board_driver"}); c.OdomFrameID != "odom" {
		t.Errorf("no prefix: odom %q", c.OdomFrameID)
	}
}

// FuzzApplyROS: any parameter file is parsed without a panic; one that applies cleanly and validates
// round-trips through Marshal to the same values.
func FuzzApplyROS(f *testing.F) {
	for _, s := range []string{
		"/**:\n  ros__parameters:\n    max_linear: 0.31\n",
		"r1:\n  rosorin_board_driver:\n    ros__parameters:\n      pad_sounds: yes\n      accel_scale: [1, 1.0, 1]\n",
		"/r1/*:\n  ros__parameters:\n    cmd_timeout: 0x1\n    device: '017'\n",
		"a: [b]\n",
		"/**:\n  ros__parameters:\n    gate: {x: 1}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := Default()
		_, errs := applyROS(&c, "f.yaml", b, "/r1/rosorin_board_driver", map[string]string{})
		if len(errs) > 0 || c.Validate() != nil {
			return
		}
		m, err := c.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back := Default()
		if _, errs := applyROS(&back, "m.yaml", append([]byte("/**:\n  ros__parameters:\n"), indent(m)...), "/r1/rosorin_board_driver", map[string]string{}); len(errs) > 0 || back != c {
			t.Fatalf("round trip: %v\n%+v\n%+v", errs, c, back)
		}
	})
}

// indent drops Marshal's node and ros__parameters lines and keeps the parameters, for a /** section.
func indent(m []byte) []byte {
	lines := strings.SplitAfter(string(m), "\n")
	return []byte(strings.Join(lines[2:], ""))
}

// TestLoadROSDumpLayout: the layout `ros2 param dump /r1/rosorin_board_driver` writes (Humble: the fully
// qualified node, block lists, doubles with a decimal point, use_sim_time) loads for that node.
func TestLoadROSDumpLayout(t *testing.T) {
	dump := writeFile(t, "dump.yaml", `/r1/rosorin_board_driver:
  ros__parameters:
    accel_scale:
    - 1.0
    - 1.02
    - 0.98
    clockwise: true
    cmd_timeout: 0.25
    device: /dev/ttyACM0
    estop_key: 1
    odom_frame_id: r1/odom
    use_sim_time: false
`)
	c, _, err := LoadROS(ROSSources{Node: "/r1/rosorin_board_driver", ParamsFiles: []string{dump}, FramePrefix: "r1/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.AccelScale != [3]float64{1, 1.02, 0.98} || c.CmdTimeout != 0.25 || c.OdomFrameID != "r1/odom" || c.BaseFrameID != "r1/base_link" {
		t.Errorf("got accel_scale %v cmd_timeout %v odom %q base %q", c.AccelScale, c.CmdTimeout, c.OdomFrameID, c.BaseFrameID)
	}
}

// TestBridgeKeys: the ROS 2 bridge's parameters in the driver's node (as `ros2 param dump` writes them) are
// neither an error nor a warning, nor the driver's: they come back as notes with their values, the last one
// winning (a file, then -p). A non-boolean value is an error naming the file and line.
func TestBridgeKeys(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "dump.yaml")
	os.WriteFile(f, []byte("rosorin_board_driver:\n  ros__parameters:\n    allow_graph_enable: true\n    allow_graph_reset: true\n    cmd_timeout: 0.25\n"), 0o644)
	_, notes, err := LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{f},
		Params: overrides(t, "allow_graph_reset:=false")})
	if err != nil {
		t.Fatal(err)
	}
	if w := notes.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	if got := notes.BridgeParams(); !got["allow_graph_enable"] || got["allow_graph_reset"] || len(got) != 2 {
		t.Errorf("bridge params %v, want enable true, reset false (the -p wins)", got)
	}
	// In a --config file too.
	_, notes, err = Load(f)
	if err != nil || len(notes.Warnings()) != 0 || !notes.BridgeParams()["allow_graph_reset"] {
		t.Errorf("--config: %v, notes %v", err, notes)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("rosorin_board_driver:\n  ros__parameters:\n    allow_graph_enable: 1\n"), 0o644)
	if _, _, err := LoadROS(ROSSources{Node: "/rosorin_board_driver", ParamsFiles: []string{bad}}); err == nil ||
		!strings.Contains(err.Error(), "bad.yaml:3") {
		t.Errorf("a non-boolean bridge key: %v", err)
	}
}
