package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/protocol/rosargs"
	"github.com/rosorin/rosorin/protocol/rosname"
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
// process of the service reads; the node name, namespace, remaps and enclave for the bridge child; the log
// level.
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
		// The bridge's own parameters (allow_graph_enable, allow_graph_reset) go to the bridge, not into the
		// driver's merged file.
		o.BridgeParams = notes.BridgeParams()
		b, err := cfg.Marshal()
		if err != nil {
			return cleanup, err
		}
		head := fmt.Sprintf("# rosorin-base run --ros-args: %s, then --params-file %s, then -p (%d); written for the service's processes, removed at exit\n",
			strings.Join(configs, ", "), strings.Join(a.ParamsFiles, ", "), len(a.Params))
		merged, err := writeMergedParams(o.Socket, []byte(head+string(b)))
		if err != nil {
			return cleanup, fmt.Errorf("the merged parameter file: %w", err)
		}
		cleanup = func() { os.Remove(merged) }
		o.Configs = []string{merged}
		log.Info("parameters from the ROS arguments", "node", fqn, "params_files", len(a.ParamsFiles), "overrides", len(a.Params), "merged", merged)
	}
	o.BridgeArgs = []string{"--namespace", ns, "--node-name", name}
	if a.Enclave != "" {
		// The bridge's SROS2 enclave (ROS_SECURITY_ENCLAVE_OVERRIDE in the service's environment wins over it).
		o.BridgeArgs = append(o.BridgeArgs, "--enclave", a.Enclave)
	}
	for _, r := range a.Remaps {
		if r.Kind != rosargs.NodeName && r.Kind != rosargs.Namespace {
			o.BridgeArgs = append(o.BridgeArgs, "--remap", r.Arg)
		}
	}
	return cleanup, nil
}

// MergedParamsPath is where `run --ros-args` writes the merged parameter file that every process of the
// service reads as its --config, and every driver restart reads again: beside the control socket, in the
// service's runtime directory (/run/rosorin under systemd), named after the socket, so that two services on
// one machine (two sockets) never share one. Not in /tmp: a tmp cleaner (systemd-tmpfiles ages /tmp files
// out after 10 days) deleted it under a running service, and the next driver restart failed on a missing
// --config. The file lives and goes with the socket's directory.
func MergedParamsPath(socket string) string {
	if socket == "" {
		socket = api.DefaultSocket
	}
	return socket + ".params.yaml"
}

// writeMergedParams writes data to MergedParamsPath(socket) durably: a temporary file in the same directory,
// synced, renamed over the old one (a crashed run's), the directory synced; a reader sees the old file or
// the whole new one, and a power cut after run started leaves the whole file. It refuses while something
// serves the socket: that service's restarts read the file.
func writeMergedParams(socket string, data []byte) (string, error) {
	if socket == "" {
		socket = api.DefaultSocket
	}
	path := MergedParamsPath(socket)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o770); err != nil { // as the control socket's directory (driver/api)
		return "", err
	}
	if c, err := net.DialTimeout("unix", socket, time.Second); err == nil {
		c.Close()
		return "", fmt.Errorf("a service already serves %s and reads %s at its restarts: stop it first, or pass another --socket", socket, path)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return "", fmt.Errorf("sync %s: %w", dir, err)
		}
	}
	return path, nil
}
