package rosargs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rosorin/rosorin/protocol/rosname"
)

// RuleKind says what a remap rule applies to.
type RuleKind int

const (
	// TopicOrService is a plain `from:=to` rule: topics and services (rcl's default).
	TopicOrService RuleKind = iota
	// TopicOnly is `rostopic://from:=to`; ServiceOnly is `rosservice://from:=to`.
	TopicOnly
	ServiceOnly
	// NodeName is `__node:=name` (or `__name:=name`); Namespace is `__ns:=/ns`.
	NodeName
	Namespace
)

// Remap is one -r rule.
type Remap struct {
	// Node limits the rule to the node of that name ("" = any node): `node:from:=to`.
	Node string
	Kind RuleKind
	// From is the name to match, as written (expanded against the node when matched); "" for NodeName and
	// Namespace rules.
	From string
	// To is the replacement: a name (expanded against the node), a node name, or an absolute namespace.
	To string
	// Arg is the rule as given.
	Arg string
}

// ParseRemap parses a remap rule `[node:][rostopic://|rosservice://]from:=to`, `[node:]__node:=name`,
// `[node:]__name:=name` or `[node:]__ns:=/ns`.
func ParseRemap(s string) (Remap, error) {
	r := Remap{Arg: s}
	lhs, rhs, ok := strings.Cut(s, ":=")
	if !ok {
		return r, errors.New("not a remap rule; write from:=to (or __ns:=/ns, __node:=name)")
	}
	if rhs == "" {
		return r, errors.New("nothing after :=")
	}
	if strings.Contains(rhs, ":=") {
		return r, errors.New("more than one := in the rule")
	}
	for _, scheme := range []struct {
		prefix string
		kind   RuleKind
	}{{"rostopic://", TopicOnly}, {"rosservice://", ServiceOnly}} {
		if i := strings.Index(lhs, scheme.prefix); i >= 0 {
			r.Kind = scheme.kind
			lhs = lhs[:i] + lhs[i+len(scheme.prefix):]
			if i > 0 && lhs[i-1] != ':' {
				return r, fmt.Errorf("%s must follow the node prefix directly (node:%sfrom:=to)", scheme.prefix, scheme.prefix)
			}
		}
	}
	if node, from, ok := strings.Cut(lhs, ":"); ok {
		if err := rosname.CheckToken(node); err != nil {
			return r, fmt.Errorf("node name prefix %q: %w", node, err)
		}
		r.Node, lhs = node, from
	}
	if lhs == "" {
		return r, errors.New("nothing to match before :=")
	}
	switch lhs {
	case "__node", "__name", "__ns":
		if r.Kind != TopicOrService {
			return r, fmt.Errorf("%s takes no rostopic:// or rosservice:// scheme", lhs)
		}
		if lhs == "__ns" {
			r.Kind = Namespace
			if !strings.HasPrefix(rhs, "/") {
				return r, fmt.Errorf("namespace %q is not absolute; write __ns:=/%s", rhs, rhs)
			}
			if rhs != "/" {
				if err := checkName(rhs); err != nil {
					return r, fmt.Errorf("namespace %q: %w", rhs, err)
				}
				if strings.Contains(rhs, "{") {
					return r, fmt.Errorf("namespace %q: no substitutions in a namespace", rhs)
				}
			}
		} else {
			r.Kind = NodeName
			if err := rosname.CheckToken(rhs); err != nil {
				return r, fmt.Errorf("node name %q: %w", rhs, err)
			}
		}
		r.To = rhs
		return r, nil
	}
	if strings.Contains(lhs, "*") {
		return r, errors.New("wildcards (* and **) in a remap rule are not implemented (nor in rcl)")
	}
	if strings.Contains(lhs, `\`) || strings.Contains(rhs, `\`) {
		return r, errors.New(`back-references (\1) in a remap rule are not implemented (nor in rcl)`)
	}
	if err := checkName(lhs); err != nil {
		return r, fmt.Errorf("match %q: %w", lhs, err)
	}
	if err := checkName(rhs); err != nil {
		return r, fmt.Errorf("replacement %q: %w", rhs, err)
	}
	r.From, r.To = lhs, rhs
	return r, nil
}

// checkName checks a topic or service name as rcl_validate_topic_name does: "/"-separated tokens, a leading
// "/" (absolute) or "~" (private: "~" or "~/..."), substitutions {node}, {ns}, {namespace}; no empty token,
// no trailing "/".
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	s := name
	switch {
	case s == "~":
		return nil
	case strings.HasPrefix(s, "~/"):
		s = s[2:]
	case strings.HasPrefix(s, "~"):
		return errors.New(`"~" must be followed by "/"`)
	case strings.HasPrefix(s, "/"):
		s = s[1:]
	}
	if s == "" {
		return errors.New("no token after the leading / or ~/")
	}
	for _, tok := range strings.Split(s, "/") {
		if strings.HasPrefix(tok, "{") && strings.HasSuffix(tok, "}") {
			switch tok {
			case "{node}", "{ns}", "{namespace}":
				continue
			}
			return fmt.Errorf("unknown substitution %s (rcl knows {node}, {ns}, {namespace})", tok)
		}
		if err := rosname.CheckToken(tok); err != nil {
			if tok == "" {
				return errors.New("empty token (a doubled or trailing /)")
			}
			return err
		}
	}
	return nil
}

// Expand is rcl_expand_topic_name: name's fully qualified form for node in namespace ns ("/" or "" for the
// root, else "/a/b"): "~" -> ns/node, "~/x" -> ns/node/x, "x" -> ns/x, "/x" stays; {node}, {ns} and
// {namespace} substituted.
func Expand(name, node, ns string) string {
	ns = strings.TrimSuffix(ns, "/")
	name = strings.NewReplacer("{node}", node, "{ns}", strings.TrimPrefix(ns, "/"), "{namespace}", strings.TrimPrefix(ns, "/")).Replace(name)
	switch {
	case strings.HasPrefix(name, "/"):
	case name == "~":
		name = ns + "/" + node
	case strings.HasPrefix(name, "~/"):
		name = ns + "/" + node + name[1:]
	default:
		name = ns + "/" + name
	}
	return name
}

// Node returns the node's name and namespace after the __node and __ns rules (the first rule of each kind
// that applies to a node first named name wins), from defaults name and ns.
func (a *Args) Node(name, ns string) (string, string) {
	outName, outNS := name, ns
	var doneName, doneNS bool
	for _, r := range a.Remaps {
		if r.Node != "" && r.Node != name {
			continue
		}
		switch {
		case r.Kind == NodeName && !doneName:
			outName, doneName = r.To, true
		case r.Kind == Namespace && !doneNS:
			outNS, doneNS = r.To, true
		}
	}
	if outNS == "/" {
		outNS = ""
	}
	return outName, outNS
}

// RemapName is rcl_remap_topic_name (service false) or rcl_remap_service_name (service true): fq is a
// fully qualified name of node (its final name) in ns; the first rule that applies to the node and the kind,
// whose From expands to fq, gives the expanded To. Without a match fq is returned.
func (a *Args) RemapName(fq, node, ns string, service bool) string {
	for _, r := range a.Remaps {
		switch r.Kind {
		case NodeName, Namespace:
			continue
		case TopicOnly:
			if service {
				continue
			}
		case ServiceOnly:
			if !service {
				continue
			}
		}
		if r.Node != "" && r.Node != node {
			continue
		}
		if Expand(r.From, node, ns) == fq {
			return Expand(r.To, node, ns)
		}
	}
	return fq
}
