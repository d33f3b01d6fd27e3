# Start the ROSOrin driver service with its ROS 2 node from a Humble launch file:
#   ros2 launch ./rosorin_base.launch.py namespace:=r1 params_file:=/etc/rosorin/base.yaml
# rosorin-base is a plain binary (built with `go build -tags ros2`), not a ROS package: launch_ros runs it from
# PATH (package omitted) and appends the usual `--ros-args -r __node:= -r __ns:= --params-file ... -r from:=to`,
# which `rosorin-base run` parses with rcl's rules (docs/ros2.md, "Launch arguments").
# Only one process may own the board: do not launch it while the systemd unit runs.
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    namespace = LaunchConfiguration("namespace")
    params_file = LaunchConfiguration("params_file")
    return LaunchDescription([
        DeclareLaunchArgument("namespace", default_value="", description="robot namespace (r1 -> /r1/...)"),
        DeclareLaunchArgument("params_file", default_value="/etc/rosorin/base.yaml",
                              description="ROS parameter file: rosorin_board_driver (or /**) ros__parameters"),
        Node(
            executable="rosorin-base",
            name="rosorin_board_driver",
            namespace=namespace,
            arguments=["run", "--ros2"],
            parameters=[params_file, {"cmd_timeout": 0.3}],
            # e.g. a navigation stack that publishes on nav/cmd_vel:
            # remappings=[("autonomous/cmd_vel", "nav/cmd_vel")],
            ros_arguments=["--log-level", "info"],
            output="screen",
        ),
    ])
