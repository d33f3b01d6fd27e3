package rosargs

import (
	"fmt"

	"github.com/rosorin/rosorin/protocol/rosname"
)

// NodeIn is the node's name and namespace after a's __node and __ns rules (a may be nil), from the defaults
// name and ns (the node's own name and ROS_NAMESPACE), the namespace in rosname.CheckNamespace's form.
func NodeIn(a *Args, name, ns string) (string, string, error) {
	ns, err := rosname.CheckNamespace(ns)
	if err != nil {
		return "", "", fmt.Errorf("ROS_NAMESPACE: %w", err)
	}
	if a != nil {
		name, ns = a.Node(name, ns)
	}
	return name, ns, nil
}
