package main

import (
	"fmt"
	"os"

	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/protocol/rosargs"
	"github.com/rosorin/rosorin/protocol/rosname"
	"github.com/rosorin/rosorin/ros2"
)

// rosArgs are the command line's ROS arguments (`--ros-args ... [--]`), taken out before urfave/cli parses
// the rest; nil when there are none.
var rosArgs *rosargs.Args

// bridgeNames is the bridge's node name, namespace and remapping from its flags (--node-name, --namespace,
// --remap rules) and, when the bridge runs on its own with ROS arguments, theirs (after the flags:
// the first rule that applies wins, as in rcl). Parameters given to the bridge alone are not its business.
func bridgeNames(name, ns string, remaps []string) (string, string, func(fq string, service bool) string, error) {
	a := &rosargs.Args{}
	for _, r := range remaps {
		rule, err := rosargs.ParseRemap(r)
		if err != nil {
			return "", "", nil, fmt.Errorf("--remap %s: %w", r, err)
		}
		a.Remaps = append(a.Remaps, rule)
	}
	if rosArgs != nil {
		a.Remaps = append(a.Remaps, rosArgs.Remaps...)
		if len(rosArgs.ParamsFiles) > 0 || len(rosArgs.Params) > len(bridgeOwn(rosArgs.Params)) {
			fmt.Fprintln(os.Stderr, "rosorin-ros2: --ros-args parameters ignored but allow_graph_enable and allow_graph_reset given by -p: the others are the driver's (rosorin-base run --ros-args)")
		}
	}
	name, ns, err := rosargs.NodeIn(a, name, ns)
	if err != nil {
		return "", "", nil, err
	}
	if rosArgs != nil {
		if lv := rosArgs.Level(rosname.LoggerName(name, ns)); lv != "" {
			service.SetLogLevel(lv)
		}
	}
	for _, r := range a.Remaps {
		if r.Kind != rosargs.NodeName && r.Kind != rosargs.Namespace {
			return name, ns, func(fq string, service bool) string { return a.RemapName(fq, name, ns, service) }, nil
		}
	}
	return name, ns, nil, nil
}

// splitROSArgs takes the ROS argument sections out of argv (program name first) and parses them into rosArgs.
func splitROSArgs(argv []string) ([]string, error) {
	rest, ros, found := rosargs.Split(argv)
	if !found {
		return argv, nil
	}
	a, err := rosargs.Parse(ros)
	if err != nil {
		return nil, err
	}
	rosArgs = a
	return rest, nil
}

// bridgeOwn are the -p assignments of the bridge's own parameters.
func bridgeOwn(ps []rosargs.Param) []rosargs.Param {
	var own []rosargs.Param
	for _, p := range ps {
		if p.Name == ros2.ParamAllowGraphEnable || p.Name == ros2.ParamAllowGraphReset {
			own = append(own, p)
		}
	}
	return own
}

// bridgeParams are allow_graph_enable and allow_graph_reset: the flags (or their environment variables),
// then a -p of the bridge's own ROS arguments (a later one wins, as in rcl). A -p of either that is not a
// bool stops the bridge.
func bridgeParams(enable, reset bool) (bool, bool, error) {
	if rosArgs == nil {
		return enable, reset, nil
	}
	for _, p := range bridgeOwn(rosArgs.Params) {
		if p.Value.Type != rosargs.Bool || len(p.Value.Bools) != 1 {
			return false, false, fmt.Errorf("--ros-args -p %s: %s is a bool parameter (true or false), not %v", p.Arg, p.Name, p.Value.Type)
		}
		if p.Name == ros2.ParamAllowGraphEnable {
			enable = p.Value.Bools[0]
		} else {
			reset = p.Value.Bools[0]
		}
	}
	return enable, reset, nil
}
