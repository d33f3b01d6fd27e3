package config

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/protocol/rosargs"
)

// ROSSources are a node's parameter sources when it is started with ROS arguments (`--ros-args`), in the
// order they apply: the driver's own files, then the parameter files, then the -p assignments (a later
// source wins key by key).
type ROSSources struct {
	// Configs are the driver's own files (--config), read as Load reads them.
	Configs []string
	// Node is the node's fully qualified name after remapping ("/r1/rosorin_board_driver"): a parameter
	// file's section applies when rosargs.MatchNode says so (rclcpp's rule: a bare "rosorin_board_driver" is
	// the root namespace's node; "/**" and "/**/rosorin_board_driver" apply everywhere).
	Node string
	// ParamsFiles are the --params-file paths; Params the -p assignments.
	ParamsFiles []string
	Params      []rosargs.Param
	// FramePrefix, when set ("r1/" for a node in /r1), is put before each frame id that no source set
	// (imu_frame_id, odom_frame_id, base_frame_id, lidar_frame_id): several robots on one /tf keep their
	// frames apart (docs/ros2.md, "Several robots on one graph").
	FramePrefix string
}

// FrameIDKeys are the frame-id parameters ROSSources.FramePrefix applies to.
var FrameIDKeys = []string{"imu_frame_id", "odom_frame_id", "base_frame_id", "lidar_frame_id"}

// LoadROS is Load for a node started with ROS arguments. Parameter files are stricter than --config
// files: values are typed as rcl types them (yes/on are booleans, 017 is octal), the layout may nest
// namespaces (`r1: rosorin_board_driver: ros__parameters:`), and a key the driver does not know is an error
// (a `ros2 param dump` of this node loads back; a typo must not start the robot on a default), except the
// arm's keys and use_sim_time: false (notes). A -p of an unknown name is an error too. All errors come at
// once; with any, the defaults are returned.
func LoadROS(s ROSSources) (Config, Notes, error) {
	c := Default()
	var notes Notes
	var errs []error
	origin := map[string]string{}
	for _, p := range s.Configs {
		b, err := os.ReadFile(p)
		if err != nil {
			return Default(), notes, fmt.Errorf("config file: %w; check the --config path", err)
		}
		n, e := apply(&c, p, b, origin)
		notes = append(notes, n...)
		errs = append(errs, e...)
	}
	for _, p := range s.ParamsFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: --params-file: %w", ErrConfig, err))
			continue
		}
		n, e := applyROS(&c, p, b, s.Node, origin)
		notes = append(notes, n...)
		errs = append(errs, e...)
	}
	for i, p := range s.Params {
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: p.Name, Line: i + 1}
		v := p.Value.YAML()
		v.Line = i + 1
		n, err := setROSKey(&c, "-p", k, v, origin)
		if n != nil {
			notes = append(notes, *n)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w (the -p %s)", err, p.Arg))
		}
	}
	if s.FramePrefix != "" {
		v := reflect.ValueOf(&c).Elem()
		for _, k := range FrameIDKeys {
			if origin[k] == "" {
				f := v.Field(fields[k])
				f.SetString(s.FramePrefix + f.String())
			}
		}
	}
	return finish(c, notes, errs, origin)
}

// applyROS applies the sections of one parameter file that match node.
func applyROS(c *Config, file string, b []byte, node string, origin map[string]string) (Notes, []error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, []error{fmt.Errorf("%w: %s: not valid YAML: %v", ErrConfig, file, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return Notes{{Kind: NoteNoSection, File: file, Line: 1, Key: node, Msg: "empty file"}}, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, []error{fmt.Errorf("%w: %s:%d: the top level must be a mapping `%s: ros__parameters: {...}`", ErrConfig, file, top.Line, node)}
	}
	var notes Notes
	var errs []error
	found := false
	var walk func(prefix string, m *yaml.Node)
	walk = func(prefix string, m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			name := k.Value
			if prefix != "" {
				name = strings.TrimSuffix(prefix, "/") + "/" + strings.TrimPrefix(name, "/")
			}
			if v.Kind != yaml.MappingNode {
				errs = append(errs, fmt.Errorf("%w: %s:%d: %s must be a mapping: a namespace or a node holding ros__parameters", ErrConfig, file, v.Line, name))
				continue
			}
			if !hasKey(v, "ros__parameters") {
				walk(name, v) // a namespace level: `r1: rosorin_board_driver: ros__parameters:`
				continue
			}
			if !rosargs.MatchNode(name, node) {
				notes = append(notes, Note{Kind: NoteOtherNode, File: file, Line: k.Line, Key: name, Msg: "this node is " + node})
				continue
			}
			found = true
			n, e := eachParam(file, k, v, func(pk, pv *yaml.Node) (*Note, error) { return setROSParam(c, file, pk, pv, origin) })
			notes, errs = append(notes, n...), append(errs, e...)
		}
	}
	walk("", top)
	if !found {
		notes = append(notes, Note{Kind: NoteNoSection, File: file, Line: 1, Key: node,
			Msg: "no section applies to this node (rclcpp's rule: a bare node name is the root namespace's; use " + node + ": or /**:)"})
	}
	return notes, errs
}

// setROSParam sets one parameter of a ROS parameter file: typed as rcl types it (a list of numbers may mix 1
// and 1.01, as Config.Marshal writes 1.0 as 1, which rcl would refuse); no nested parameters.
func setROSParam(c *Config, file string, pk, pv *yaml.Node, origin map[string]string) (*Note, error) {
	if pv.Kind == yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s:%d: %s.*: nested parameters; the driver has none (its parameters: driver/config.Config, docs/ros2.md)",
			ErrConfig, file, pk.Line, pk.Value)
	}
	if idx, ok := fields[pk.Value]; ok && pv.Kind == yaml.SequenceNode && fieldKind(idx) == "array" {
		return setROSKey(c, file, pk, pv, origin)
	}
	rv, err := rosargs.FromYAML(pv)
	if err != nil {
		return nil, fmt.Errorf("%w: %s:%d: %s: %v", ErrConfig, file, pv.Line, pk.Value, err)
	}
	typed := rv.YAML()
	typed.Line = pv.Line
	return setROSKey(c, file, pk, typed, origin)
}

func fieldKind(idx int) string { return reflect.TypeOf(Config{}).Field(idx).Type.Kind().String() }

func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// setROSKey is setKey where an unknown key is an error, with the arm's keys and use_sim_time: false noted.
func setROSKey(c *Config, file string, k, v *yaml.Node, origin map[string]string) (*Note, error) {
	name := k.Value
	if _, ok := fields[name]; ok {
		return setKey(c, file, k, v, origin)
	}
	switch {
	case IsArmKey(name):
		return &Note{Kind: NoteArmKey, File: file, Line: k.Line, Key: name}, nil
	case BridgeKeys[name]:
		return bridgeNote(file, k, v)
	case name == "use_sim_time":
		if v.Tag == "!!bool" && v.Value == "false" {
			return &Note{Kind: NoteUnknownKey, File: file, Line: k.Line, Key: name, Msg: "the driver runs on the wall clock"}, nil
		}
		return nil, fmt.Errorf("%w: %s:%d: use_sim_time: %s: the driver runs the wheels on the wall clock; only false is accepted", ErrConfig, file, v.Line, v.Value)
	}
	msg := "not a parameter of the driver"
	if s := closest(name); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return nil, fmt.Errorf("%w: %s:%d: %s: unknown parameter: %s", ErrConfig, file, k.Line, name, msg)
}
