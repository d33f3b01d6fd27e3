package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/ros2/rosargs"
	"github.com/rosorin/rosorin/ros2/rosname"
)

// rosArgs are the command line's ROS arguments (`--ros-args ... [--]`, as ros2 launch passes them), taken
// out before urfave/cli parses the rest; nil when there are none. Only run takes them here (`ros2` passes
// them on to the bridge binary).
var rosArgs *rosargs.Args

// splitROSArgs takes the ROS argument sections out of argv (program name first) and parses them.
func splitROSArgs(argv []string) ([]string, error) {
	rest, ros, found := rosargs.Split(argv)
	if !found {
		return argv, nil
	}
	cmd := ""
	for _, a := range rest[1:] {
		if !strings.HasPrefix(a, "-") {
			cmd = a
			break
		}
	}
	if cmd == "ros2" {
		return argv, nil // the alias hands every argument to the bridge, which reads its own ROS arguments
	}
	if cmd != "run" {
		return nil, fmt.Errorf("--ros-args: only `run` (the service, usually with --ros2) and `ros2` take ROS arguments, not %q", cmd)
	}
	a, err := rosargs.Parse(ros)
	if err != nil {
		return nil, err
	}
	rosArgs = a
	return rest, nil
}

// applyRunROSArgs applies the ROS arguments to `rosorin-base run`: the parameter files and -p values on top
// of the configuration (checked now: a bad file starts nothing), merged into one parameter file that every
// process of the service reads; the node name, namespace and remaps for the bridge child; the log level.
// The returned function removes the merged file.
func applyRunROSArgs(o *service.Options) (cleanup func(), err error) {
	cleanup = func() {}
	a := rosArgs
	if a == nil {
		if !o.ROS2 || strings.Trim(os.Getenv("ROS_NAMESPACE"), "/") == "" {
			return cleanup, nil
		}
		a = &rosargs.Args{} // a namespace from the environment: its frame ids get the prefix too
	}
	name, ns, err := rosargs.NodeIn(a, rosname.NodeName, os.Getenv("ROS_NAMESPACE"))
	if err != nil {
		return cleanup, err
	}
	if lv := a.Level(rosname.LoggerName(name, ns)); lv != "" {
		// The children inherit it: the driver, the LiDAR reader and the bridge log at this level too.
		os.Setenv(service.LogLevelEnv, lv)
		service.SetLogLevel(lv)
	}
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	for _, n := range a.Notes {
		log.Info("ROS arguments: " + n)
	}
	if !o.ROS2 && (ns != "" || name != rosname.NodeName || len(a.Remaps) > 0) {
		log.Warn("ROS arguments: the node's name, namespace and remaps take effect with --ros2 only")
	}
	if len(a.ParamsFiles) > 0 || len(a.Params) > 0 || ns != "" {
		configs := service.ResolveConfigs(o.Configs, log)
		fqn := ns + "/" + name
		prefix := "" // frame ids of a namespaced robot: "r1/base_link" (docs/ros2.md, "Several robots on one graph")
		if ns != "" {
			prefix = strings.TrimPrefix(ns, "/") + "/"
		}
		cfg, notes, err := config.LoadROS(config.ROSSources{Configs: configs, Node: fqn, ParamsFiles: a.ParamsFiles, Params: a.Params, FramePrefix: prefix})
		if err != nil {
			return cleanup, err
		}
		for _, n := range notes {
			if n.Warning() {
				log.Warn("parameters: " + n.String())
			}
		}
		b, err := cfg.Marshal()
		if err != nil {
			return cleanup, err
		}
		f, err := os.CreateTemp("", "rosorin-params-*.yaml")
		if err != nil {
			return cleanup, fmt.Errorf("the merged parameter file: %w", err)
		}
		head := fmt.Sprintf("# rosorin-base run --ros-args: %s, then --params-file %s, then -p (%d); written for the service's processes, removed at exit\n",
			strings.Join(configs, ", "), strings.Join(a.ParamsFiles, ", "), len(a.Params))
		if _, err := f.WriteString(head + string(b)); err != nil {
			f.Close()
			os.Remove(f.Name())
			return cleanup, err
		}
		f.Close()
		cleanup = func() { os.Remove(f.Name()) }
		o.Configs = []string{f.Name()}
		log.Info("parameters from the ROS arguments", "node", fqn, "params_files", len(a.ParamsFiles), "overrides", len(a.Params), "merged", f.Name())
	}
	o.BridgeArgs = []string{"--namespace", ns, "--node-name", name}
	for _, r := range a.Remaps {
		if r.Kind != rosargs.NodeName && r.Kind != rosargs.Namespace {
			o.BridgeArgs = append(o.BridgeArgs, "--remap", r.Arg)
		}
	}
	return cleanup, nil
}
