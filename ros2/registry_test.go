package ros2

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// outputConv is the conversion of the output on ROS topic topic.
func outputConv(t *testing.T, topic string) func([]byte) (rosMessage, error) {
	t.Helper()
	for _, o := range outputs {
		if o.topic == topic {
			return o.conv
		}
	}
	t.Fatalf("no output on %s", topic)
	return nil
}

// convStamp is the stamp of the records below, and convTime the header stamp it becomes.
const convStamp = `"stamp":"2026-01-01T00:00:01.5Z"`

var convTime = rosmsg.TimeFromNanos(time.Date(2026, 1, 1, 0, 0, 1, 5e8, time.UTC).UnixNano())

// conversions is every output's conversion test, by ROS topic: a record of its stream and the message it must
// become, written out by hand (compared as CDR, so the NaNs of BatteryState compare too). An output without
// one fails TestOutputsRegistry.
var conversions = map[string]struct {
	rec  string
	want rosMessage
}{
	"imu/data_raw": {`{` + convStamp + `,"frame_id":"imu_link","angular_velocity":[0.01,-0.02,0.5],"linear_acceleration":[0.1,0,9.80665],` +
		`"orientation_covariance":[-1,0,0,0,0,0,0,0,0],"angular_velocity_covariance":[1e-4,0,0,0,1e-4,0,0,0,1e-4],"linear_acceleration_covariance":[0,0,0,0,0,0,0,0,0]}`,
		&rosmsg.Imu{Header: rosmsg.Header{Stamp: convTime, FrameID: "imu_link"}, OrientationCovariance: [9]float64{-1},
			AngularVelocity: rosmsg.Vector3{X: 0.01, Y: -0.02, Z: 0.5}, AngularVelocityCovariance: [9]float64{0: 1e-4, 4: 1e-4, 8: 1e-4},
			LinearAcceleration: rosmsg.Vector3{X: 0.1, Z: 9.80665}}},
	"battery": {`{` + convStamp + `,"voltage":12.4,"millivolts":12400,"present":true,"percentage":null,"plugged":true}`,
		&rosmsg.BatteryState{Header: rosmsg.Header{Stamp: convTime}, Voltage: 12.4, Temperature: nan32, Current: nan32,
			Charge: nan32, Capacity: nan32, DesignCapacity: nan32, Percentage: nan32, Present: true,
			PowerSupplyStatus: rosmsg.PowerSupplyStatusCharging}},
	"wheel/odom": {`{` + convStamp + `,"frame_id":"odom","child_frame_id":"base_link","x":1.5,"y":-0.25,"theta":0.1,"qz":0.05,"qw":0.99875,` +
		`"twist":{"vx":0.2,"vy":0.01,"wz":-0.3},"pose_covariance":[1000],"twist_covariance":[0,0,0,0,0,0,0,0.5]}`,
		&rosmsg.Odometry{Header: rosmsg.Header{Stamp: convTime, FrameID: "odom"}, ChildFrameID: "base_link",
			Pose:           rosmsg.Pose{Position: rosmsg.Vector3{X: 1.5, Y: -0.25}, Orientation: rosmsg.Quaternion{Z: 0.05, W: 0.99875}},
			PoseCovariance: [36]float64{1000}, Twist: rosmsg.Twist{Linear: rosmsg.Vector3{X: 0.2, Y: 0.01}, Angular: rosmsg.Vector3{Z: -0.3}},
			TwistCovariance: [36]float64{7: 0.5}}},
	"gamepad": {`{` + convStamp + `,"axes":[0.5,-1,0,0,2],"buttons":[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1],"raw_buttons":32769,"hat":2}`,
		&rosmsg.Joy{Header: rosmsg.Header{Stamp: convTime}, Axes: []float32{0.5, -1, 0, 0, 2},
			Buttons: []int32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}},
	"scan": {`{` + convStamp + `,"frame_id":"laser","scan_time":0.1,"time_increment":0.0001,"angle_min":-3.14,"angle_max":3.14,` +
		`"angle_increment":0.0157,"range_min":0.12,"range_max":8,"ranges":[1,null,2.5],"intensities":[10,0,20]}`,
		&rosmsg.LaserScan{Header: rosmsg.Header{Stamp: convTime, FrameID: "laser"}, AngleMin: -3.14, AngleMax: 3.14,
			AngleIncrement: 0.0157, TimeIncrement: 0.0001, ScanTime: 0.1, RangeMin: 0.12, RangeMax: 8,
			Ranges: []float32{1, float32(math.Inf(1)), 2.5}, Intensities: []float32{10, 0, 20}}},
	"~/state":  {`{"enabled":false}`, &rosmsg.String{Data: `{"enabled":false}`}},
	"~/source": {`{` + convStamp + `,"source":"autonomous","previous":"manual"}`, &rosmsg.String{Data: "autonomous"}},
	"~/stops": {`{"seq":41,"kind":"estop","speed":0.3,"still_s":0.31,"travel_m":null,"outcome":"PASS","confidence":"ok","level":"warn"}`,
		&rosmsg.String{Data: `{"seq":41,"kind":"estop","speed":0.3,"still_s":0.31,"travel_m":null,"outcome":"PASS","confidence":"ok","level":"warn"}`}},
	"/tf": {`{` + convStamp + `,"frame_id":"odom","child_frame_id":"base_link","x":1.5,"y":-0.25,"theta":0.1,"qz":0.05,"qw":0.99875}`,
		&rosmsg.TFMessage{Transforms: []rosmsg.TransformStamped{{Header: rosmsg.Header{Stamp: convTime, FrameID: "odom"},
			ChildFrameID: "base_link", Transform: rosmsg.Transform{Translation: rosmsg.Vector3{X: 1.5, Y: -0.25},
				Rotation: rosmsg.Quaternion{Z: 0.05, W: 0.99875}}}}}},
}

var nan32 = float32(math.NaN())

// TestOutputsRegistry: adding a published topic is one entry of outputs plus its conversion test, and this
// test says what else it needs (registryProblems).
func TestOutputsRegistry(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range registryProblems(outputs, readme) {
		t.Error(p)
	}
}

// TestOutputsRegistryCanFail: a new entry without its conversion test and README line, and one without a QoS
// or a conversion, are refused.
func TestOutputsRegistryCanFail(t *testing.T) {
	table := append(outputs[:len(outputs):len(outputs)],
		output{api.TopicOdom, "odom/new", tfQoS, decoded(api.TopicOdom, OdomMsg), nil},
		output{api.TopicOdom, "/tf", tfQoS, nil, nil})
	got := registryProblems(table, []byte("`odom/old`"))
	for _, want := range []string{"odom/new: no conversion test", "odom/new: not in the README", "/tf: twice", "/tf: stream \"odom\", conversion false"} {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("no problem %q in %q", want, got)
		}
	}
	if got := registryProblems([]output{{api.TopicOdom, "/tf", dds.QoS{}, decoded(api.TopicOdom, OdomTransform), nil}}, []byte("`/tf`")); len(got) != 1 || !strings.Contains(got[0], "QoS") {
		t.Errorf("an entry without a QoS: %q", got)
	}
}

// registryProblems returns what each entry of table lacks: a topic of its own (two topics may follow one
// stream: wheel/odom and /tf), a stream and a conversion, a QoS, a ROS type its conversion names, a conversion
// test in conversions that it passes, refusing garbage, and the topic in the README's topic list as `topic`.
func registryProblems(table []output, readme []byte) []string {
	var out []string
	bad := func(topic, f string, args ...any) { out = append(out, topic+": "+fmt.Sprintf(f, args...)) }
	seen := map[string]bool{}
	for _, o := range table {
		if seen[o.topic] {
			bad(o.topic, "twice in outputs")
		}
		seen[o.topic] = true
		if o.api == "" || o.conv == nil {
			bad(o.topic, "stream %q, conversion %v", o.api, o.conv != nil)
			continue
		}
		if o.qos.Depth <= 0 {
			bad(o.topic, "QoS %+v without a history depth", o.qos)
		}
		typ := o.rosType()
		if !strings.Contains(typ, "/msg/") {
			bad(o.topic, "ROS type %q", typ)
		}
		if !bytes.Contains(readme, []byte("`"+o.topic+"`")) {
			bad(o.topic, "not in the README's topic list (as `%s`)", o.topic)
		}
		c, ok := conversions[o.topic]
		if !ok {
			bad(o.topic, "no conversion test (add one to conversions, ros2/registry_test.go)")
			continue
		}
		m, err := o.conv([]byte(c.rec))
		if err != nil || m == nil || m.ROSType() != typ {
			bad(o.topic, "%q -> %#v, %v (want a %s)", c.rec, m, err, typ)
			continue
		}
		if got, want := cdr.Marshal(m), cdr.Marshal(c.want); !bytes.Equal(got, want) {
			bad(o.topic, "%q ->\n%+v, want\n%+v", c.rec, m, c.want)
		}
		if o.api != api.TopicState { // ~/state carries the record as it is
			if _, err := o.conv([]byte("not json")); err == nil {
				bad(o.topic, "garbage accepted")
			}
		}
	}
	return out
}

// TestInterfaceTypes: the types of the inputs and services, which protocol/rosmsg's types name, are the ROS
// names the graph knows (docs/ros2.md's table).
func TestInterfaceTypes(t *testing.T) {
	for got, want := range map[string]string{typeTwist: "geometry_msgs/msg/Twist", typeTwistSt: "geometry_msgs/msg/TwistStamped",
		typeBool: "std_msgs/msg/Bool", srvSetBool: "std_srvs/srv/SetBool", srvTrigger: "std_srvs/srv/Trigger",
		typeTF: "tf2_msgs/msg/TFMessage"} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
