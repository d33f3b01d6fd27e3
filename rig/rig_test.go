package rig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const robot = `version: 1
name: rosorin-01
setup: stand
board: /dev/serial/by-id/usb-1a86_USB_Serial-if00
lidar: /dev/lidar
socket: /run/rosorin/base.sock
service:
  unit: rosorin-base
  start: sudo systemctl start rosorin-base
  stop: sudo systemctl stop rosorin-base
  restart: sudo systemctl restart rosorin-base
driver_config: [/etc/rosorin/base.yaml]
`

const simRig = "version: 1\nname: sim-a\nsetup: stand\nsim: {seed: 3}\n"

var cases = []struct {
	name, file, wantErr string // wantErr "" = valid
}{
	{"robot", robot, ""},
	{"sim", simRig, ""},
	{"sim empty block", "version: 1\nname: sim\nsetup: floor\nsim: {}\n", ""},
	{"unknown key", robot + "boards: /dev/ttyUSB0\n", "field boards not found"},
	{"unknown service key", strings.Replace(robot, "  unit:", "  units:", 1), "service: unit, start, stop, restart"},
	{"no version", strings.Replace(robot, "version: 1\n", "", 1), "version: missing"},
	{"newer version", strings.Replace(robot, "version: 1", "version: 2", 1), "newer"},
	{"no name", strings.Replace(robot, "name: rosorin-01\n", "", 1), "name: missing"},
	{"bad name", strings.Replace(robot, "rosorin-01", "robot one", 1), "letters, digits"},
	{"bad setup", strings.Replace(robot, "setup: stand", "setup: table", 1), "stand (wheels in the air) or floor"},
	{"no board", strings.Replace(robot, "board: /dev/serial/by-id/usb-1a86_USB_Serial-if00\n", "", 1), "board: missing"},
	{"relative board", strings.Replace(robot, "board: /dev/serial", "board: dev/serial", 1), "absolute path"},
	{"lidar is board", strings.Replace(robot, "lidar: /dev/lidar", "lidar: /dev/serial/by-id/usb-1a86_USB_Serial-if00", 1), "board's device too"},
	{"no stop", strings.Replace(robot, "  stop: sudo systemctl stop rosorin-base\n", "", 1), "start and stop are needed"},
	{"sim with board", simRig + "board: /dev/ttyACM0\n", "board: \"/dev/ttyACM0\" in a sim rig"},
	{"sim with service", simRig + "service: {start: x, stop: y}\n", "service: in a sim rig"},
	{"two documents", robot + "---\n" + simRig, "more than one YAML document"},
	{"empty", "", "empty"},
	{"not a map", "- a\n- b\n", "cannot unmarshal"},
	{"plugged floor", strings.Replace(robot, "setup: stand", "setup: floor", 1) + "allow_plugged: true\n", "stand only"},
	{"empty config", strings.Replace(robot, "[/etc/rosorin/base.yaml]", "[\"\"]", 1), "driver_config[0]: empty"},
}

func TestParse(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse("rig.yaml", []byte(c.file))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("valid rig refused: %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("accepted %+v, want an error with %q", r, c.wantErr)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Fatalf("error %q, want it to say %q", err, c.wantErr)
			case c.wantErr != "" && !strings.HasPrefix(err.Error(), "rig.yaml: "):
				t.Fatalf("error %q does not name the file", err)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	r, err := Parse("robot", []byte(robot))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range r.Flags() {
		got[f.Name] = f.Value
	}
	want := map[string]string{"device": "/dev/serial/by-id/usb-1a86_USB_Serial-if00", "lidar": "/dev/lidar",
		"socket": "/run/rosorin/base.sock", "service-start": "sudo systemctl start rosorin-base",
		"service-stop": "sudo systemctl stop rosorin-base", "unit": "rosorin-base", "driver-config": "/etc/rosorin/base.yaml"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("--%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["sim"]; ok {
		t.Error("a robot's rig sets --sim")
	}
	s, err := Parse("sim", []byte(simRig))
	if err != nil {
		t.Fatal(err)
	}
	fs := s.Flags()
	if len(fs) != 2 || fs[0] != (Flag{"sim", "true"}) || fs[1] != (Flag{"sim-seed", "3"}) {
		t.Errorf("sim rig flags %v", fs)
	}
}

func TestCheckSet(t *testing.T) {
	a, _ := Parse("a", []byte(robot))
	b, _ := Parse("b", []byte(strings.Replace(robot, "rosorin-01", "rosorin-02", 1)))
	if err := CheckSet([]string{"a.yaml", "b.yaml"}, []*Rig{a, b}); err == nil || !strings.Contains(err.Error(), "both name the board /dev/serial") {
		t.Errorf("two rigs on one device: %v", err)
	}
	if err := CheckSet([]string{"a.yaml", "a2.yaml"}, []*Rig{a, a}); err == nil || !strings.Contains(err.Error(), `both name the robot "rosorin-01"`) {
		t.Errorf("two rigs of one name: %v", err)
	}
	s1, _ := Parse("s1", []byte(simRig))
	s2, _ := Parse("s2", []byte(strings.Replace(simRig, "sim-a", "sim-b", 1)))
	if err := CheckSet([]string{"s1", "s2"}, []*Rig{s1, s2}); err != nil {
		t.Errorf("two sim rigs: %v", err)
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rig.yaml")
	if _, err := Load(p); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(p, []byte(simRig), 0o644)
	if r, err := Load(p); err != nil || r.Name != "sim-a" {
		t.Errorf("Load: %+v %v", r, err)
	}
	os.WriteFile(p, make([]byte, maxSize+10), 0o644)
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "a rig file is a few lines") {
		t.Errorf("huge file: %v", err)
	}
}

// FuzzParse: no input panics, and a rig Parse accepts validates and gives flags with names.
func FuzzParse(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c.file))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse("fuzz", b)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		for _, fl := range r.Flags() {
			if fl.Name == "" {
				t.Fatalf("flag without a name: %+v", r.Flags())
			}
		}
	})
}
