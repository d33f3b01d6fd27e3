r"""Start the ROSOrin base driver from a ROS 2 launch file (Humble).

    ros2 launch deploy/rosorin_base.launch.py namespace:=/r1 params_file:=/etc/rosorin/base.yaml

runs, as launch_ros's Node composes it:

    /usr/local/bin/rosorin-base run --ros2 --device /dev/ttyACM0 --lidar /dev/lidar --socket /run/rosorin/base.sock \
        --ros-args --log-level info \
        --ros-args -r __node:=rosorin_board_driver -r __ns:=/r1 --params-file /etc/rosorin/base.yaml

(Humble's Node puts ros_arguments in a --ros-args section of their own before the one it composes.)

The whole service starts here (the supervisor owning the board's port, the driver, the LiDAR reader and the
ROS 2 bridge rosorin-ros2 beside rosorin-base): stop the systemd unit first (`systemctl stop rosorin-base`),
one owner of the port at a time (the launching user needs the dialout group and a writable socket directory).
Ctrl-C of the launch sends SIGINT: the supervisor stops its children and writes the stop frame. ROS_DOMAIN_ID and CYCLONEDDS_URI come from the launching shell. The bridge speaks Cyclone
DDS itself: RMW_IMPLEMENTATION matters to the other nodes of the graph, not to this one (deploy/README.md).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    args = [
        DeclareLaunchArgument('namespace', default_value='/', description='node namespace (/r1 for robot 1)'),
        DeclareLaunchArgument('node_name', default_value='rosorin_board_driver', description='node name'),
        DeclareLaunchArgument('params_file', default_value='/etc/rosorin/base.yaml',
                              description='parameter file (rosorin_board_driver: ros__parameters: ...)'),
        DeclareLaunchArgument('log_level', default_value='info', description='--log-level'),
        DeclareLaunchArgument('executable', default_value='/usr/local/bin/rosorin-base',
                              description='rosorin-base (the bridge rosorin-ros2 is looked up beside it)'),
        DeclareLaunchArgument('device', default_value='/dev/ttyACM0', description='board serial device'),
        DeclareLaunchArgument('lidar', default_value='/dev/lidar', description='LiDAR serial device'),
        DeclareLaunchArgument('socket', default_value='/run/rosorin/base.sock', description='control socket'),
    ]
    driver = Node(
        executable=LaunchConfiguration('executable'),
        name=LaunchConfiguration('node_name'),
        namespace=LaunchConfiguration('namespace'),
        parameters=[LaunchConfiguration('params_file')],
        arguments=['run', '--ros2',
                   '--device', LaunchConfiguration('device'),
                   '--lidar', LaunchConfiguration('lidar'),
                   '--socket', LaunchConfiguration('socket')],
        ros_arguments=['--log-level', LaunchConfiguration('log_level')],
        output='screen',
        # The supervisor's SIGINT stop takes milliseconds; a generous bound before launch escalates.
        sigterm_timeout='10',
    )
    return LaunchDescription(args + [driver])
