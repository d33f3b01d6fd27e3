package rosargs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Type is a parameter value's type (rcl_interfaces/msg/ParameterType's numbering).
type Type int

const (
	NotSet      Type = 0
	Bool        Type = 1
	Integer     Type = 2
	Double      Type = 3
	String      Type = 4
	BoolArray   Type = 6
	IntArray    Type = 7
	DoubleArray Type = 8
	StringArray Type = 9
)

func (t Type) String() string {
	switch t {
	case Bool:
		return "bool"
	case Integer:
		return "integer"
	case Double:
		return "double"
	case String:
		return "string"
	case BoolArray:
		return "bool array"
	case IntArray:
		return "integer array"
	case DoubleArray:
		return "double array"
	case StringArray:
		return "string array"
	}
	return "not set"
}

// Value is a typed parameter value. Scalars hold one element in their slice.
type Value struct {
	Type    Type
	Bools   []bool
	Ints    []int64
	Doubles []float64
	Strings []string
}

// String formats v as YAML would (for messages).
func (v Value) String() string {
	n := v.YAML()
	b, err := yaml.Marshal(n)
	if err != nil {
		return fmt.Sprintf("%v", v.Type)
	}
	return strings.TrimSpace(string(b))
}

// Param is one -p name:=value.
type Param struct {
	Name  string
	Value Value
	// Arg is the assignment as given.
	Arg string
}

// ParseParam parses a parameter assignment `name:=value`: name is "."-separated tokens, value is typed as
// rcl types a YAML value (ParseValue).
func ParseParam(s string) (Param, error) {
	p := Param{Arg: s}
	name, val, ok := strings.Cut(s, ":=")
	if !ok {
		return p, errors.New("not a parameter assignment; write name:=value")
	}
	if name == "" {
		return p, errors.New("no parameter name before :=")
	}
	if strings.Contains(name, ":") {
		return p, fmt.Errorf("parameter name %q: a node prefix (node:name:=value) is not supported; put the value in a --params-file section for that node", name)
	}
	for _, tok := range strings.Split(name, ".") {
		if tok == "" {
			return p, fmt.Errorf("parameter name %q: empty token", name)
		}
		for _, c := range tok {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return p, fmt.Errorf("parameter name %q: %q is not allowed (letters, digits, underscore, dots)", name, c)
			}
		}
	}
	v, err := ParseValue(val)
	if err != nil {
		return p, fmt.Errorf("parameter %s: %w", name, err)
	}
	p.Name, p.Value = name, v
	return p, nil
}

// ParseValue types a YAML value as rcl does (rcl_yaml_param_parser): a quoted scalar is a string; else
// y/yes/true/on (and N/no/false/off, in the three cases rcl lists) a bool, then a C integer (strtol, base
// 0: 10, 0x1f, 017), then a C double (strtod: 1.5, 1e3, .inf, nan), else a string. A sequence holds
// scalars of one type. Mappings, empty values and empty sequences are errors.
func ParseValue(s string) (Value, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		return Value{}, fmt.Errorf("value %q is not YAML: %v", s, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return Value{}, fmt.Errorf("no value after :=")
	}
	return FromYAML(doc.Content[0])
}

// FromYAML types a parsed YAML value as ParseValue does.
func FromYAML(n *yaml.Node) (Value, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return FromYAML(n.Alias)
	case yaml.ScalarNode:
		return scalar(n)
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return Value{}, errors.New("an empty list has no type (rcl refuses it too)")
		}
		var out Value
		for i, e := range n.Content {
			if e.Kind == yaml.AliasNode {
				e = e.Alias
			}
			if e.Kind != yaml.ScalarNode {
				return Value{}, fmt.Errorf("list item %d is not a scalar (lists of lists or maps are not parameter values)", i+1)
			}
			v, err := scalar(e)
			if err != nil {
				return Value{}, fmt.Errorf("list item %d: %w", i+1, err)
			}
			if i == 0 {
				out.Type = v.Type + 5
			} else if v.Type+5 != out.Type {
				return Value{}, fmt.Errorf("list item %d (%s) is a %s in a list of %ss; a list holds one type", i+1, e.Value, v.Type, out.Type-5)
			}
			out.Bools = append(out.Bools, v.Bools...)
			out.Ints = append(out.Ints, v.Ints...)
			out.Doubles = append(out.Doubles, v.Doubles...)
			out.Strings = append(out.Strings, v.Strings...)
		}
		return out, nil
	case yaml.MappingNode:
		return Value{}, errors.New("a mapping is not a parameter value (nested parameters belong in a --params-file)")
	}
	return Value{}, errors.New("no value")
}

var (
	trues  = map[string]bool{"Y": true, "y": true, "yes": true, "Yes": true, "YES": true, "true": true, "True": true, "TRUE": true, "on": true, "On": true, "ON": true}
	falses = map[string]bool{"N": true, "n": true, "no": true, "No": true, "NO": true, "false": true, "False": true, "FALSE": true, "off": true, "Off": true, "OFF": true}
	yinf   = map[string]float64{".nan": math.NaN(), ".NaN": math.NaN(), ".NAN": math.NaN(),
		".inf": math.Inf(1), ".Inf": math.Inf(1), ".INF": math.Inf(1), "+.inf": math.Inf(1), "+.Inf": math.Inf(1), "+.INF": math.Inf(1),
		"-.inf": math.Inf(-1), "-.Inf": math.Inf(-1), "-.INF": math.Inf(-1)}
)

func scalar(n *yaml.Node) (Value, error) {
	s := n.Value
	if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		return Value{Type: String, Strings: []string{s}}, nil
	}
	if s == "" {
		return Value{}, errors.New("empty value")
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		if trues[s] || falses[s] {
			return Value{Type: Bool, Bools: []bool{trues[s]}}, nil
		}
		if i, ok := cInt(s); ok {
			return Value{Type: Integer, Ints: []int64{i}}, nil
		}
		if f, ok := yinf[s]; ok {
			return Value{Type: Double, Doubles: []float64{f}}, nil
		}
		if f, ok := cDouble(s); ok {
			return Value{Type: Double, Doubles: []float64{f}}, nil
		}
	}
	return Value{Type: String, Strings: []string{s}}, nil
}

// cInt is C's strtol(s, &end, 0) consuming all of s without overflow: optional sign, then 0x hex, 0 octal
// or decimal digits. Go's base-0 ParseInt also takes 0b, 0o and underscores, which strtol does not.
func cInt(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" || strings.ContainsRune(t, '_') {
		return 0, false
	}
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, false
	}
	if len(body) > 1 && body[0] == '0' && (body[1] == 'b' || body[1] == 'B' || body[1] == 'o' || body[1] == 'O') {
		return 0, false
	}
	i, err := strconv.ParseInt(t, 0, 64)
	return i, err == nil
}

// cDouble is C's strtod consuming all of s without range error: decimal or hex floats, inf, infinity, nan.
func cDouble(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t == "" || strings.ContainsRune(t, '_') {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// YAML returns v as a YAML node with the tag of its type (!!bool, !!int, !!float, !!str; lists in flow
// style), as driver/config reads parameter files.
func (v Value) YAML() *yaml.Node {
	one := func(t Type, i int) *yaml.Node {
		switch t {
		case Bool:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bools[i])}
		case Integer:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Ints[i], 10)}
		case Double:
			f := v.Doubles[i]
			s := strconv.FormatFloat(f, 'g', -1, 64)
			switch {
			case math.IsNaN(f):
				s = ".nan"
			case math.IsInf(f, 1):
				s = ".inf"
			case math.IsInf(f, -1):
				s = "-.inf"
			case !strings.ContainsAny(s, ".eE"):
				s += ".0"
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
		default:
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v.Strings[i], Style: yaml.DoubleQuotedStyle}
		}
	}
	switch v.Type {
	case Bool, Integer, Double, String:
		return one(v.Type, 0)
	case BoolArray, IntArray, DoubleArray, StringArray:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		n := len(v.Bools) + len(v.Ints) + len(v.Doubles) + len(v.Strings)
		for i := 0; i < n; i++ {
			seq.Content = append(seq.Content, one(v.Type-5, i))
		}
		return seq
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// MatchNode reports whether a parameter file's node section name applies to the node with fully
// qualified name fqn ("/ns/name"), as rclcpp matches them: a name without a leading "/" is absolute ("node"
// is "/node"), "*" matches one token, "**" any number of tokens ("/**" every node).
func MatchNode(section, fqn string) bool {
	if !strings.HasPrefix(section, "/") {
		section = "/" + section
	}
	return matchTokens(strings.Split(section[1:], "/"), strings.Split(fqn[1:], "/"))
}

// matchTokens matches by dynamic programming (a pattern of many "**" stays linear in tokens per "**").
func matchTokens(pat, toks []string) bool {
	// ok[j]: pat[:i] matches toks[:j], for the current i.
	ok := make([]bool, len(toks)+1)
	ok[0] = true
	for _, p := range pat {
		next := make([]bool, len(toks)+1)
		for j := range next {
			switch {
			case p == "**":
				next[j] = ok[j] || (j > 0 && next[j-1])
			case j == 0:
			case p == "*" || p == toks[j-1]:
				next[j] = ok[j-1]
			}
		}
		ok = next
	}
	return ok[len(toks)]
}
