// Package rosargs parses the ROS 2 command-line arguments that `ros2 launch` and `ros2 run` pass to a node
// (`--ros-args ... [--]`): remap rules (`-r`), parameter assignments (`-p`), parameter files
// (`--params-file`), log levels (`--log-level`), the enclave (`-e`), and the logging flags a launch file adds,
// with rcl's (Humble) rules: the same flags, the same remap rule syntax and name expansion, the same YAML typing
// of a value. It is pure: strings in, values out; reading the parameter files is driver/config's job.
//
// Spec: rcl's arguments.c, remap.c and expand_topic_name.c, and rcl_yaml_param_parser's value typing (read,
// not copied). Known differences: remap rules with wildcards or back-references, which rcl also refuses, are
// refused here; a `-p` name with a node prefix is refused. The table of what is supported, ignored with a
// note, and refused is in docs/ros2.md ("Launch arguments").
package rosargs
