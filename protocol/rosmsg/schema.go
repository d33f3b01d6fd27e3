package rosmsg

import (
	"fmt"
	"strings"
)

// definitions are the Humble .msg files the toolkit uses, without comments, by "pkg/Type" (the name a
// definition uses for another package's type). deps lists the types each refers to, in order of first use.
var definitions = map[string]struct {
	text string
	deps []string
}{
	"builtin_interfaces/Time":           {"int32 sec\nuint32 nanosec\n", nil},
	"std_msgs/Header":                   {"builtin_interfaces/Time stamp\nstring frame_id\n", []string{"builtin_interfaces/Time"}},
	"std_msgs/Bool":                     {"bool data\n", nil},
	"std_msgs/String":                   {"string data\n", nil},
	"geometry_msgs/Vector3":             {"float64 x\nfloat64 y\nfloat64 z\n", nil},
	"geometry_msgs/Point":               {"float64 x\nfloat64 y\nfloat64 z\n", nil},
	"geometry_msgs/Quaternion":          {"float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n", nil},
	"geometry_msgs/Twist":               {"Vector3 linear\nVector3 angular\n", []string{"geometry_msgs/Vector3"}},
	"geometry_msgs/Pose":                {"Point position\nQuaternion orientation\n", []string{"geometry_msgs/Point", "geometry_msgs/Quaternion"}},
	"geometry_msgs/PoseWithCovariance":  {"Pose pose\nfloat64[36] covariance\n", []string{"geometry_msgs/Pose"}},
	"geometry_msgs/TwistWithCovariance": {"Twist twist\nfloat64[36] covariance\n", []string{"geometry_msgs/Twist"}},
	"sensor_msgs/Imu": {"std_msgs/Header header\n" +
		"geometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n" +
		"geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n" +
		"geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n",
		[]string{"std_msgs/Header", "geometry_msgs/Quaternion", "geometry_msgs/Vector3"}},
	"sensor_msgs/LaserScan": {"std_msgs/Header header\n" +
		"float32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\n" +
		"float32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\n" +
		"float32[] ranges\nfloat32[] intensities\n", []string{"std_msgs/Header"}},
	"sensor_msgs/BatteryState": {"uint8 POWER_SUPPLY_STATUS_UNKNOWN = 0\nuint8 POWER_SUPPLY_STATUS_CHARGING = 1\n" +
		"uint8 POWER_SUPPLY_STATUS_DISCHARGING = 2\nuint8 POWER_SUPPLY_STATUS_NOT_CHARGING = 3\n" +
		"uint8 POWER_SUPPLY_STATUS_FULL = 4\n" +
		"uint8 POWER_SUPPLY_HEALTH_UNKNOWN = 0\nuint8 POWER_SUPPLY_HEALTH_GOOD = 1\nuint8 POWER_SUPPLY_HEALTH_OVERHEAT = 2\n" +
		"uint8 POWER_SUPPLY_HEALTH_DEAD = 3\nuint8 POWER_SUPPLY_HEALTH_OVERVOLTAGE = 4\n" +
		"uint8 POWER_SUPPLY_HEALTH_UNSPEC_FAILURE = 5\nuint8 POWER_SUPPLY_HEALTH_COLD = 6\n" +
		"uint8 POWER_SUPPLY_HEALTH_WATCHDOG_TIMER_EXPIRE = 7\nuint8 POWER_SUPPLY_HEALTH_SAFETY_TIMER_EXPIRE = 8\n" +
		"uint8 POWER_SUPPLY_TECHNOLOGY_UNKNOWN = 0\nuint8 POWER_SUPPLY_TECHNOLOGY_NIMH = 1\n" +
		"uint8 POWER_SUPPLY_TECHNOLOGY_LION = 2\nuint8 POWER_SUPPLY_TECHNOLOGY_LIPO = 3\n" +
		"uint8 POWER_SUPPLY_TECHNOLOGY_LIFE = 4\nuint8 POWER_SUPPLY_TECHNOLOGY_NICD = 5\n" +
		"uint8 POWER_SUPPLY_TECHNOLOGY_LIMN = 6\n" +
		"std_msgs/Header header\n" +
		"float32 voltage\nfloat32 temperature\nfloat32 current\nfloat32 charge\nfloat32 capacity\n" +
		"float32 design_capacity\nfloat32 percentage\n" +
		"uint8 power_supply_status\nuint8 power_supply_health\nuint8 power_supply_technology\nbool present\n" +
		"float32[] cell_voltage\nfloat32[] cell_temperature\nstring location\nstring serial_number\n",
		[]string{"std_msgs/Header"}},
	"sensor_msgs/Joy": {"std_msgs/Header header\nfloat32[] axes\nint32[] buttons\n", []string{"std_msgs/Header"}},
	"nav_msgs/Odometry": {"std_msgs/Header header\nstring child_frame_id\n" +
		"geometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist\n",
		[]string{"std_msgs/Header", "geometry_msgs/PoseWithCovariance", "geometry_msgs/TwistWithCovariance"}},
}

// schemaSeparator is the line rosbag2 puts before each dependency in a ros2msg schema.
var schemaSeparator = strings.Repeat("=", 80) + "\n"

// Schema returns the ros2msg schema of a message type ("sensor_msgs/msg/Imu"): its definition, then every
// type it depends on, each after a line of 80 '=' and "MSG: pkg/Type", as rosbag2 writes it into MCAP.
func Schema(rosType string) (string, error) {
	f := strings.Split(rosType, "/")
	if len(f) != 3 || f[1] != "msg" {
		return "", fmt.Errorf("rosmsg: %q is not a message type (pkg/msg/Type)", rosType)
	}
	top := f[0] + "/" + f[2]
	d, ok := definitions[top]
	if !ok {
		return "", fmt.Errorf("rosmsg: no definition of %s", rosType)
	}
	var b strings.Builder
	b.WriteString(d.text)
	seen := map[string]bool{top: true}
	var walk func(deps []string)
	walk = func(deps []string) {
		for _, dep := range deps {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			b.WriteString(schemaSeparator)
			b.WriteString("MSG: " + dep + "\n")
			b.WriteString(definitions[dep].text)
			walk(definitions[dep].deps)
		}
	}
	walk(d.deps)
	return b.String(), nil
}
