package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// NoteKind says what a Note is about.
type NoteKind int

const (
	// NoteArmKey: a key of the arm (chapters 12-13, out of scope here) was ignored. Expected with
	// config/arm_limits.yaml.
	NoteArmKey NoteKind = iota
	// NoteUnknownKey: a key nobody knows was ignored: a warning (a typo keeps its default!).
	NoteUnknownKey
	// NoteOtherNode: a section for another ROS node was ignored.
	NoteOtherNode
	// NoteNoSection: the file has no rosorin_board_driver section; nothing was read from it.
	NoteNoSection
	// NoteBridgeKey: a parameter of the ROS 2 bridge (BridgeKeys), not of the driver: not read here; Msg is its
	// value ("true" or "false"), which `run --ros-args` hands to the bridge.
	NoteBridgeKey
)

// String describes the kind in a few words.
func (k NoteKind) String() string {
	switch k {
	case NoteArmKey:
		return "arm key ignored"
	case NoteUnknownKey:
		return "unknown key ignored"
	case NoteOtherNode:
		return "other node ignored"
	case NoteNoSection:
		return "no driver section"
	case NoteBridgeKey:
		return "the ROS 2 bridge's parameter"
	}
	return fmt.Sprintf("NoteKind(%d)", int(k))
}

// Note is something Load did not use, with where it was.
type Note struct {
	Kind NoteKind
	File string
	Line int
	// Key is the parameter (or node) name.
	Key string
	// Msg says more, e.g. the closest known key for a likely typo.
	Msg string
}

// String formats the note as "file:line: key: kind (msg)".
func (n Note) String() string {
	s := fmt.Sprintf("%s:%d: %s: %s", n.File, n.Line, n.Key, n.Kind)
	if n.Msg != "" {
		s += " (" + n.Msg + ")"
	}
	return s
}

// Warning reports whether the note deserves a warning in the log (everything but expected arm and bridge
// keys).
func (n Note) Warning() bool { return n.Kind != NoteArmKey && n.Kind != NoteBridgeKey }

// BridgeKeys are the ROS 2 bridge's own parameters (ros2/bridge.go: who may enable and reset over the graph),
// read-only booleans that share the node with the driver's: `ros2 param dump` writes them beside the
// driver's, so the driver's files may hold them.
var BridgeKeys = map[string]bool{"allow_graph_enable": true, "allow_graph_reset": true}

// BridgeParams returns the bridge keys' values the notes carry, the last one of each key winning (files
// in order, then -p), as ROS applies them.
func (ns Notes) BridgeParams() map[string]bool {
	var m map[string]bool
	for _, n := range ns {
		if n.Kind == NoteBridgeKey {
			if m == nil {
				m = map[string]bool{}
			}
			m[n.Key] = n.Msg == "true"
		}
	}
	return m
}

// bridgeNote is the note of a bridge key with value v, or an error when v is not a boolean.
func bridgeNote(file string, k, v *yaml.Node) (*Note, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		return nil, fmt.Errorf("%w: %s:%d: %s: want true or false (a read-only parameter of the ROS 2 bridge)", ErrConfig, file, v.Line, k.Value)
	}
	val := "false"
	if b, err := strconv.ParseBool(v.Value); err == nil && b {
		val = "true"
	}
	return &Note{Kind: NoteBridgeKey, File: file, Line: k.Line, Key: k.Value, Msg: val}, nil
}

// Notes lists what Load ignored, in file order.
type Notes []Note

// Warnings returns the notes that deserve a warning.
func (ns Notes) Warnings() Notes {
	var w Notes
	for _, n := range ns {
		if n.Warning() {
			w = append(w, n)
		}
	}
	return w
}

// Ignored returns the arm keys that were ignored.
func (ns Notes) Ignored() Notes {
	var w Notes
	for _, n := range ns {
		if n.Kind == NoteArmKey {
			w = append(w, n)
		}
	}
	return w
}

// ErrConfig is wrapped by every error Load returns for a file's content (not for an unreadable file).
var ErrConfig = errors.New("config")

// nodeAliases are the section names that address the driver: its name, with the root namespace, and the ROS 2
// wildcard that applies to every node.
var nodeAliases = map[string]bool{NodeName: true, "/" + NodeName: true, "/**": true}

// fields maps a ROS parameter name to the Config field index.
var fields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		m[name] = i
	}
	return m
}()

// sections are the prefixes of dotted parameter names ("stop_monitor" of "stop_monitor.mode"): a file may
// give them as a nested mapping.
var sections = func() map[string]bool {
	m := map[string]bool{}
	for name := range fields {
		if pre, _, ok := strings.Cut(name, "."); ok {
			m[pre] = true
		}
	}
	return m
}()

// Arm parameters (chapters 12-13) live in the same node and file (config/arm_limits.yaml) but are not the
// wheels' business: they are ignored with a note. The arm's exact key list is not in the seeds, so the rule is
// by name: these keys, these prefixes and suffixes.
var (
	armKeys     = map[string]bool{"drive_pan": true, "auto_tuck_s": true, "servo_ids": true, "poses": true, "joint_names": true, "robot_model": true, "gripper": true}
	armPrefixes = []string{"arm_", "arm.", "servo_", "servos.", "joint_", "joints.", "pose_", "poses.", "tuck_", "gripper_", "drive_pose"}
	armSuffixes = []string{"_pose", "_poses", "_pulses"}
)

// IsArmKey reports whether name is an arm parameter (ignored with a note).
func IsArmKey(name string) bool {
	if armKeys[name] {
		return true
	}
	for _, p := range armPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range armSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Load reads ROS parameter files in order onto Default(): a later file wins key by key (as ROS applies
// several parameter files). It returns the merged, validated config, the notes on what was ignored, and an
// error if a file cannot be read, is not YAML, has a value of the wrong type, or a value out of range.
// All content errors are reported at once (errors.Join), each naming file, line and key. With no paths it
// returns the defaults.
func Load(paths ...string) (Config, Notes, error) {
	c := Default()
	var notes Notes
	var errs []error
	origin := map[string]string{} // key -> "file:line" of the value in force
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return Default(), notes, fmt.Errorf("config file: %w; check the --config path", err)
		}
		n, e := apply(&c, p, b, origin)
		notes = append(notes, n...)
		errs = append(errs, e...)
	}
	return finish(c, notes, errs, origin)
}

// Parse applies one file's content (named name in messages) onto c. It is Load for bytes in hand; it does
// not validate ranges (call Validate).
func Parse(c *Config, name string, b []byte) (Notes, error) {
	n, errs := apply(c, name, b, map[string]string{})
	return n, errors.Join(errs...)
}

func apply(c *Config, file string, b []byte, origin map[string]string) (Notes, []error) {
	var notes Notes
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, []error{fmt.Errorf("%w: %s: not valid YAML: %v", ErrConfig, file, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty file
		return Notes{{Kind: NoteNoSection, File: file, Line: 1, Key: NodeName, Msg: "empty file"}}, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, []error{fmt.Errorf("%w: %s:%d: the top level must be a mapping `%s: ros__parameters: {...}`",
			ErrConfig, file, top.Line, NodeName)}
	}
	var errs []error
	found := false
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if !nodeAliases[k.Value] {
			notes = append(notes, Note{Kind: NoteOtherNode, File: file, Line: k.Line, Key: k.Value})
			continue
		}
		found = true
		n, e := eachParam(file, k, v, func(pk, pv *yaml.Node) (*Note, error) { return setKey(c, file, pk, pv, origin) })
		notes, errs = append(notes, n...), append(errs, e...)
	}
	if !found {
		notes = append(notes, Note{Kind: NoteNoSection, File: file, Line: 1, Key: NodeName,
			Msg: "nothing read from this file; is the node name right?"})
	}
	return notes, errs
}

// eachParam calls set with each key and value of node section k: v's ros__parameters mapping, and collects
// what it notes and the errors. A key given twice is an error: yaml.v3 checks duplicate keys only when
// decoding into maps and structs, not into a Node.
func eachParam(file string, k, v *yaml.Node, set func(pk, pv *yaml.Node) (*Note, error)) (notes []Note, errs []error) {
	params, err := rosParameters(file, k, v)
	if err != nil || params == nil {
		if err != nil {
			errs = append(errs, err)
		}
		return nil, errs
	}
	seen := map[string]int{}
	for j := 0; j+1 < len(params.Content); j += 2 {
		pk, pv := params.Content[j], params.Content[j+1]
		if pv.Kind == yaml.MappingNode && sections[pk.Value] {
			// A nested section (`stop_monitor: {mode: hold}`) is its dotted parameters, as ROS 2 reads it.
			for i := 0; i+1 < len(pv.Content); i += 2 {
				ik, iv := *pv.Content[i], pv.Content[i+1]
				ik.Value = pk.Value + "." + ik.Value
				if first, dup := seen[ik.Value]; dup {
					errs = append(errs, fmt.Errorf("%w: %s:%d: %s given twice (first at line %d); keep one",
						ErrConfig, file, ik.Line, ik.Value, first))
					continue
				}
				seen[ik.Value] = ik.Line
				n, err := set(&ik, iv)
				if n != nil {
					notes = append(notes, *n)
				}
				if err != nil {
					errs = append(errs, err)
				}
			}
			continue
		}
		if first, dup := seen[pk.Value]; dup {
			errs = append(errs, fmt.Errorf("%w: %s:%d: %s given twice (first at line %d); YAML forbids it, keep one",
				ErrConfig, file, pk.Line, pk.Value, first))
			continue
		}
		seen[pk.Value] = pk.Line
		n, err := set(pk, pv)
		if n != nil {
			notes = append(notes, *n)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return notes, errs
}

// rosParameters returns the ros__parameters mapping of a node section (nil if the section is empty).
func rosParameters(file string, k, v *yaml.Node) (*yaml.Node, error) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s:%d: %s must be a mapping holding ros__parameters", ErrConfig, file, v.Line, k.Value)
	}
	var params *yaml.Node
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value == "ros__parameters" {
			params = v.Content[i+1]
		} else {
			return nil, fmt.Errorf("%w: %s:%d: %s: only ros__parameters may be under a node name, found %q",
				ErrConfig, file, v.Content[i].Line, k.Value, v.Content[i].Value)
		}
	}
	if params == nil || (params.Kind == yaml.ScalarNode && params.Tag == "!!null") {
		return nil, nil
	}
	if params.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s:%d: ros__parameters must be a mapping of parameter names to values", ErrConfig, file, params.Line)
	}
	return params, nil
}

// setKey sets one parameter, or returns a note for an ignored one, or a type error.
func setKey(c *Config, file string, k, v *yaml.Node, origin map[string]string) (*Note, error) {
	name := k.Value
	idx, ok := fields[name]
	if !ok {
		if IsArmKey(name) {
			return &Note{Kind: NoteArmKey, File: file, Line: k.Line, Key: name}, nil
		}
		if BridgeKeys[name] {
			return bridgeNote(file, k, v)
		}
		n := &Note{Kind: NoteUnknownKey, File: file, Line: k.Line, Key: name}
		if s := closest(name); s != "" {
			n.Msg = "did you mean " + s + "?"
		}
		return n, nil
	}
	f := reflect.ValueOf(c).Elem().Field(idx)
	where := fmt.Sprintf("%s:%d", file, v.Line)
	bad := func(want string) error {
		got := v.Tag
		if v.Kind == yaml.ScalarNode {
			got = fmt.Sprintf("%s %q", v.Tag, v.Value)
		} else if v.Kind == yaml.SequenceNode {
			got = fmt.Sprintf("a list of %d", len(v.Content))
		} else if v.Kind == yaml.MappingNode {
			got = "a mapping"
		}
		return fmt.Errorf("%w: %s: %s: wrong type: want %s, got %s; fix the value in %s", ErrConfig, where, name, want, got, file)
	}
	scalar := func(tags ...string) bool {
		if v.Kind != yaml.ScalarNode {
			return false
		}
		for _, t := range tags {
			if v.Tag == t {
				return true
			}
		}
		return false
	}
	switch f.Kind() {
	case reflect.String:
		if !scalar("!!str") {
			return nil, bad("a string")
		}
		f.SetString(v.Value)
	case reflect.Bool:
		if !scalar("!!bool") {
			return nil, bad("true or false")
		}
		var b bool
		if err := v.Decode(&b); err != nil {
			return nil, bad("true or false")
		}
		f.SetBool(b)
	case reflect.Int:
		var i int
		if !scalar("!!int") || v.Decode(&i) != nil {
			return nil, bad("an integer")
		}
		f.SetInt(int64(i))
	case reflect.Float64:
		// An integer is a fine number of metres or seconds (max_linear: 1); ROS itself is stricter.
		var x float64
		if !scalar("!!float", "!!int") || v.Decode(&x) != nil {
			return nil, bad("a number")
		}
		f.SetFloat(x)
	case reflect.Array:
		n := f.Len()
		if v.Kind != yaml.SequenceNode || len(v.Content) != n {
			return nil, bad(fmt.Sprintf("a list of %d numbers", n))
		}
		var vals [8]float64
		for i, e := range v.Content {
			if e.Kind != yaml.ScalarNode || (e.Tag != "!!float" && e.Tag != "!!int") || e.Decode(&vals[i]) != nil {
				return nil, bad(fmt.Sprintf("a list of %d numbers (item %d is %s %q)", n, i+1, e.Tag, e.Value))
			}
		}
		for i := 0; i < n; i++ {
			f.Index(i).SetFloat(vals[i])
		}
	default:
		return nil, fmt.Errorf("config: internal: field %s has unsupported kind %v", name, f.Kind())
	}
	origin[name] = where
	return nil, nil
}

// closest returns the known key within edit distance 2 of name, if exactly one is closest.
func closest(name string) string {
	best, bestD, ties := "", 3, 0
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d := editDistance(name, k)
		switch {
		case d < bestD:
			best, bestD, ties = k, d, 0
		case d == bestD:
			ties++
		}
	}
	if ties > 0 {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Marshal returns c as a ROS parameter file (`rosorin_board_driver: ros__parameters: {...}`) that Load reads
// back to the same values.
func (c Config) Marshal() ([]byte, error) {
	return yaml.Marshal(map[string]map[string]Config{NodeName: {"ros__parameters": c}})
}

// finish checks the merged configuration c (each failed check named by where its value came from, origin[key]
// or "default") unless reading it failed already; on any error it returns the defaults with every error.
func finish(c Config, notes Notes, errs []error, origin map[string]string) (Config, Notes, error) {
	if len(errs) == 0 {
		for _, e := range c.check() {
			where := origin[e.key]
			if where == "" {
				where = "default"
			}
			errs = append(errs, fmt.Errorf("%w: %s: %s = %s", ErrConfig, where, e.key, e.msg))
		}
	}
	if len(errs) > 0 {
		return Default(), notes, errors.Join(errs...)
	}
	return c, notes, nil
}
