package rig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Version is the rig file's format.
const Version = 1

// The setups a rig is built for: the stand (wheels in the air) or a marked floor.
const (
	Stand = "stand"
	Floor = "floor"
)

// Rig is one robot (or the simulator) as a rig file names it.
type Rig struct {
	Version int    `yaml:"version"`
	Name    string `yaml:"name"`  // the robot's name, also its CI runner label: letters, digits, . _ -
	Setup   string `yaml:"setup"` // Stand or Floor
	// Sim, when present, makes the rig the simulator (stopproof --sim): no devices, no service commands.
	Sim *Sim `yaml:"sim,omitempty"`

	Board  string `yaml:"board,omitempty"`  // the board's serial device (stopproof --device, doctor --device)
	Lidar  string `yaml:"lidar,omitempty"`  // the LiDAR's device ("" = none; doctor --lidar)
	Socket string `yaml:"socket,omitempty"` // the driver's control socket (--socket; "" = the driver's default)
	// Service is how the driver service is started and stopped (--service-start, --service-stop).
	Service Service `yaml:"service,omitempty"`
	// DriverConfig are the driver's configuration files: the first is the one whose SHA-256 each campaign
	// run records (--driver-config); the doctor checks every one is readable.
	DriverConfig []string `yaml:"driver_config,omitempty"`
	// AllowPlugged lets the proofs drive with the charger plugged in (--allow-plugged; the stand only).
	AllowPlugged bool  `yaml:"allow_plugged,omitempty"`
	ROS2         *ROS2 `yaml:"ros2,omitempty"`
}

// Sim is the simulator's part: the noise seed, the rosorin-base binary and a fault for every simulated robot
// (--sim-seed, --base-bin, --sim-fault; a fault such as stop-lag=150ms makes a worn robot).
type Sim struct {
	Seed    int64  `yaml:"seed,omitempty"`
	BaseBin string `yaml:"base_bin,omitempty"`
	Fault   string `yaml:"fault,omitempty"`
}

// Service names the driver service's commands (shell lines, e.g. "systemctl stop rosorin-base") and its
// systemd unit, which the doctor asks about ("" = not systemd).
type Service struct {
	Unit    string `yaml:"unit,omitempty"`
	Start   string `yaml:"start,omitempty"`
	Stop    string `yaml:"stop,omitempty"`
	Restart string `yaml:"restart,omitempty"`
}

// ROS2 drives the driver through its ROS 2 interface (stopproof --ros2, --ros2-namespace, --ros2-node).
type ROS2 struct {
	Enabled   bool   `yaml:"enabled"`
	Namespace string `yaml:"namespace,omitempty"`
	Node      string `yaml:"node,omitempty"`
}

// IsSim reports whether the rig is the simulator.
func (r *Rig) IsSim() bool { return r.Sim != nil }

// Error is a rig file's fault: the file, the key (dotted, "service.stop"; "" for the whole file) and what
// to write instead.
type Error struct {
	File, Key, Msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// maxSize bounds a rig file: a rig is a dozen lines, and a megabyte is somebody's other file.
const maxSize = 64 << 10

// Parse reads and validates a rig file's bytes; file names it in errors.
func Parse(file string, b []byte) (*Rig, error) {
	if len(b) > maxSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%d bytes: a rig file is a few lines (at most %d bytes); is this the right file?", len(b), maxSize)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var r Rig
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "empty: a rig file names at least version, name, setup and the board (or sim:)"}
		}
		return nil, &Error{File: file, Msg: yamlMsg(err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Msg: "more than one YAML document: one rig a file (a robot per runner)"}
	}
	if err := r.Validate(); err != nil {
		var re *Error
		if errors.As(err, &re) {
			re.File = file
		}
		return nil, err
	}
	return &r, nil
}

// yamlMsg turns yaml.v3's unknown-field message into one that names the keys a rig file has.
func yamlMsg(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	if strings.Contains(s, "not found in type") {
		s = strings.ReplaceAll(s, " in type rig.Rig", "")
		s = strings.ReplaceAll(s, " in type rig.Service", " (service: unit, start, stop, restart)")
		s = strings.ReplaceAll(s, " in type rig.Sim", " (sim: seed, base_bin, fault)")
		s = strings.ReplaceAll(s, " in type rig.ROS2", " (ros2: enabled, namespace, node)")
		s += "; a rig file has version, name, setup, sim, board, lidar, socket, service, driver_config, allow_plugged, ros2 (docs/rigs.md)"
	}
	return s
}

// Load reads and validates the rig file at path.
func Load(path string) (*Rig, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rig file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("rig file %s: %w", path, err)
	}
	return Parse(path, b)
}

// Validate checks the rig's values (Parse calls it).
func (r *Rig) Validate() error {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	switch {
	case r.Version == 0:
		return bad("version", "missing: write version: %d", Version)
	case r.Version > Version:
		return bad("version", "%d is newer than this tool reads (%d): use a newer rosorin", r.Version, Version)
	case r.Version < 0:
		return bad("version", "%d: write version: %d", r.Version, Version)
	case r.Name == "":
		return bad("name", "missing: the robot's name (also its CI runner's label), e.g. name: rosorin-01")
	case !nameRE.MatchString(r.Name):
		return bad("name", "%q: letters, digits, '.', '_' and '-' only (it is a runner label and a folder name)", r.Name)
	case r.Setup != Stand && r.Setup != Floor:
		return bad("setup", "%q: stand (wheels in the air) or floor (a marked floor)", r.Setup)
	}
	paths := []struct{ key, v string }{{"board", r.Board}, {"lidar", r.Lidar}, {"socket", r.Socket}}
	for i, c := range r.DriverConfig {
		if strings.TrimSpace(c) == "" {
			return bad(fmt.Sprintf("driver_config[%d]", i), "empty: a configuration file's path")
		}
		paths = append(paths, struct{ key, v string }{fmt.Sprintf("driver_config[%d]", i), c})
	}
	if r.IsSim() {
		for _, p := range paths[:3] {
			if p.v != "" {
				return bad(p.key, "%q in a sim rig: the simulator makes its own devices and socket in a temporary folder; remove it, or remove sim: for a robot", p.v)
			}
		}
		if r.Service != (Service{}) {
			return bad("service", "in a sim rig: the simulator starts its own rosorin-base; remove it, or remove sim: for a robot")
		}
		if r.ROS2 != nil && r.ROS2.Enabled {
			return bad("ros2", "not with sim: in a rig file (the sim over ROS 2 needs stopproof built with -tags ros2: pass --sim --ros2 on the command line)")
		}
		return nil
	}
	if r.Board == "" {
		return bad("board", "missing: the board's serial device, e.g. board: /dev/serial/by-id/usb-...-if00 (rosorin-base doctor lists the devices present); or sim: {} for the simulator")
	}
	for _, p := range paths {
		if p.v != "" && !filepath.IsAbs(p.v) {
			return bad(p.key, "%q: an absolute path (a CI job's working folder is not the robot's)", p.v)
		}
	}
	if r.Lidar != "" && r.Lidar == r.Board {
		return bad("lidar", "%q is the board's device too: the LiDAR has its own (/dev/lidar from deploy/60-rosorin-lidar.rules)", r.Lidar)
	}
	if strings.TrimSpace(r.Service.Start) == "" || strings.TrimSpace(r.Service.Stop) == "" {
		return bad("service", "start and stop are needed (the service path stops and starts the driver), e.g. {unit: rosorin-base, start: sudo systemctl start rosorin-base, stop: sudo systemctl stop rosorin-base}")
	}
	if r.AllowPlugged && r.Setup == Floor {
		return bad("allow_plugged", "a floor rig drives away from its charger: allow_plugged is for the stand only")
	}
	return nil
}

// Flag is one command-line flag a rig file sets: --Name Value.
type Flag struct{ Name, Value string }

// Flags are the flags the rig stands for, for the commands that take them (a command applies the ones it
// has, and only those not given on its command line).
func (r *Rig) Flags() []Flag {
	var fs []Flag
	add := func(name, v string) {
		if v != "" {
			fs = append(fs, Flag{name, v})
		}
	}
	if r.IsSim() {
		add("sim", "true")
		if r.Sim.Seed != 0 {
			add("sim-seed", strconv.FormatInt(r.Sim.Seed, 10))
		}
		add("base-bin", r.Sim.BaseBin)
		add("sim-fault", r.Sim.Fault)
	} else {
		add("device", r.Board)
		add("socket", r.Socket)
		add("service-start", r.Service.Start)
		add("service-stop", r.Service.Stop)
		// "" = no LiDAR and no systemd unit, which overrides the doctor's defaults (/dev/lidar, rosorin-base).
		fs = append(fs, Flag{"unit", r.Service.Unit}, Flag{"lidar", r.Lidar})
		if len(r.DriverConfig) > 0 {
			add("driver-config", r.DriverConfig[0])
		}
	}
	if r.AllowPlugged {
		add("allow-plugged", "true")
	}
	if r.ROS2 != nil && r.ROS2.Enabled {
		add("ros2", "true")
		add("ros2-namespace", r.ROS2.Namespace)
		add("ros2-node", r.ROS2.Node)
	}
	return fs
}

// CheckSet checks a set of rigs (a CI matrix, a machine's rigs): names distinct (a name is a runner's label)
// and no board named by two rigs: a board's device, by its by-id serial, is one robot, and two rigs on it
// would be one robot twice or two robots on one port. The LiDAR's and the socket's names are per machine
// (/dev/lidar, /run/rosorin/base.sock on every robot) and may repeat. files name the rigs in errors.
func CheckSet(files []string, rigs []*Rig) error {
	names := map[string]string{}
	boards := map[string]string{}
	for i, r := range rigs {
		if f, ok := names[r.Name]; ok {
			return fmt.Errorf("%s and %s both name the robot %q: one rig a robot, one name a rig", f, files[i], r.Name)
		}
		names[r.Name] = files[i]
		if r.Board == "" {
			continue
		}
		if f, ok := boards[r.Board]; ok {
			return fmt.Errorf("%s and %s both name the board %s: one robot twice, or two on one port; name each board by its serial (/dev/serial/by-id/...)", f, files[i], r.Board)
		}
		boards[r.Board] = files[i]
	}
	return nil
}
