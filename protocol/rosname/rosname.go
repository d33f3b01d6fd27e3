// Package rosname holds the ROS 2 name rules the driver's command line and its ROS 2 node share: the node's
// name, a namespace's normal form and a name's resolution (rcl's rules). Pure Go without cgo, so that
// rosorin-base, which must never link the DDS library (docs/ros2.md), can use them.
package rosname

import (
	"fmt"
	"strings"
)

// NodeName is the seed's node name (chapter 11): the Python driver's, so tools and launch files that name
// it keep working.
const NodeName = "rosorin_board_driver"

// CheckNamespace normalizes a namespace ("", "/", "robot1", "/robot1/" -> "" or "/robot1") and checks its
// tokens (ROS 2 name rules: letters, digits, underscores, not starting with a digit).
func CheckNamespace(ns string) (string, error) {
	ns = strings.Trim(ns, "/")
	if ns == "" {
		return "", nil
	}
	for _, tok := range strings.Split(ns, "/") {
		if err := CheckToken(tok); err != nil {
			return "", fmt.Errorf("namespace %q: %w", ns, err)
		}
	}
	return "/" + ns, nil
}

// CheckToken checks one name token (a node name, a namespace part): letters, digits, underscores, not
// starting with a digit.
func CheckToken(tok string) error {
	if tok == "" {
		return fmt.Errorf("empty name token")
	}
	for i, c := range tok {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return fmt.Errorf("token %q: %q is not allowed (letters, digits, underscore; no leading digit)", tok, c)
		}
	}
	return nil
}

// Resolve is a ROS name's fully qualified form for a node in namespace ns (CheckNamespace's form):
// "~/state" -> "/ns/node/state", "cmd_vel" -> "/ns/cmd_vel", "/cmd_vel" stays.
func Resolve(ns, node, name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case name == "~":
		return ns + "/" + node
	case strings.HasPrefix(name, "~/"):
		return ns + "/" + node + name[1:]
	default:
		return ns + "/" + name
	}
}

// LoggerName is rcl's logger name of a node: "r1.rosorin_board_driver" for /r1/rosorin_board_driver.
func LoggerName(name, ns string) string {
	if ns == "" {
		return name
	}
	return strings.ReplaceAll(strings.TrimPrefix(ns, "/"), "/", ".") + "." + name
}
