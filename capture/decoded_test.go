package capture

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"
	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// lidarRevolutions returns the bytes of n+1 revolutions of 16 packets of 25 samples, every sample at
// distMM (the last revolution only starts, so n complete ones come out of an assembler).
func lidarRevolutions(t testing.TB, n int, distMM uint16) []byte {
	t.Helper()
	var out []byte
	for r := 0; r <= n; r++ {
		for k := 0; k < 16; k++ {
			p := coind6.Packet{FSA: coind6.DegToRaw(float64(k) * 22.5), LSA: coind6.DegToRaw(float64(k)*22.5 + 21.6)}
			if k == 0 {
				p.CT = 1
			}
			for i := 0; i < 25; i++ {
				p.Samples = append(p.Samples, coind6.Sample{Intensity: 100, DistMM: distMM})
			}
			b, err := coind6.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b...)
		}
	}
	return out
}

// decodedFile records a board stream both ways and a LiDAR stream through Decoded and returns the file.
func decodedFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.mcap")
	rec, err := mcapfile.Create(path, mcapfile.Options{Metadata: map[string]string{"kind": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	type stream struct {
		kind Kind
		dir  Direction
		data []byte
	}
	var rx, tx []byte
	for i := 0; i < 20; i++ {
		rx = append(rx, board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{0, 0, 90}})...)
		if i%5 == 0 {
			rx = append(rx, board.EncodeBattery(board.Battery{MilliVolts: 7412})...)
			rx = append(rx, board.EncodeGamepad(board.Gamepad{Buttons: board.BtnCross | board.BtnL1, LX: 127, LY: -127})...)
		}
	}
	fwd, _ := board.EncodeWheelRPS(kinematics.WheelRPS(kinematics.Twist{VX: 0.2, WZ: 0.5}, kinematics.DefaultGeometry()))
	one, _ := board.EncodeMotorSingle(0, 0) // one wheel set to 0: the twist changes
	tx = append(append(append(tx, fwd...), one...), board.StopFrame()...)
	t0 := time.Unix(1_700_000_000, 0)
	for _, s := range []stream{{Board, FromDevice, rx}, {Board, ToDevice, tx}, {Lidar, FromDevice, lidarRevolutions(t, 3, 1500)}} {
		ch, err := rec.RawChannel(RawTopic(s.kind, s.dir), string(s.kind))
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDecoded(rec, s.kind, s.dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, off := 0, 0; off < len(s.data); i++ {
			end := min(len(s.data), off+3+i*7%61)
			at := t0.Add(time.Duration(i) * time.Millisecond)
			if err := rec.Write(ch, at, s.data[off:end]); err != nil {
				t.Fatal(err)
			}
			if err := d.Feed(at, s.data[off:end]); err != nil {
				t.Fatal(err)
			}
			off = end
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDecodedChannels: every decoded channel carries what its frames said, in its ROS 2 schema.
func TestDecodedChannels(t *testing.T) {
	path := decodedFile(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	topics := map[uint16]string{}
	schemas := map[uint16]string{}
	chSchema := map[string]string{}
	got := map[string][]rosmsg.Message{}
	var bag string
	_, err = mcapfile.Read(f, mcapfile.Visitor{
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Channel: func(c *mcap.Channel) error {
			topics[c.ID] = c.Topic
			chSchema[c.Topic] = schemas[c.SchemaID]
			return nil
		},
		Metadata: func(m *mcap.Metadata) error {
			if m.Name == mcapfile.Rosbag2Meta {
				bag = m.Metadata[mcapfile.Rosbag2MetaKey]
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			var msg rosmsg.Message
			switch topics[m.ChannelID] {
			case TopicIMU:
				msg = &rosmsg.Imu{}
			case TopicBattery:
				msg = &rosmsg.BatteryState{}
			case TopicJoy:
				msg = &rosmsg.Joy{}
			case TopicWheels:
				msg = &rosmsg.TwistStamped{}
			case TopicScan:
				msg = &rosmsg.LaserScan{}
			default:
				return nil
			}
			if err := cdr.Unmarshal(m.Data, msg); err != nil {
				t.Fatalf("%s: %v", topics[m.ChannelID], err)
			}
			got[topics[m.ChannelID]] = append(got[topics[m.ChannelID]], msg)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for topic, typ := range map[string]string{TopicIMU: "sensor_msgs/msg/Imu", TopicBattery: "sensor_msgs/msg/BatteryState",
		TopicJoy: "sensor_msgs/msg/Joy", TopicWheels: "geometry_msgs/msg/TwistStamped", TopicScan: "sensor_msgs/msg/LaserScan"} {
		if chSchema[topic] != typ {
			t.Errorf("%s: schema %q, want %q", topic, chSchema[topic], typ)
		}
	}
	if n := len(got[TopicIMU]); n != 20 {
		t.Errorf("%d IMU messages, want 20", n)
	} else if imu := got[TopicIMU][0].(*rosmsg.Imu); math.Abs(imu.LinearAcceleration.Z-9.80665) > 1e-5 ||
		math.Abs(imu.AngularVelocity.Z-math.Pi/2) > 1e-5 {
		t.Errorf("IMU %+v", imu)
	}
	if n := len(got[TopicBattery]); n != 4 || math.Abs(float64(got[TopicBattery][0].(*rosmsg.BatteryState).Voltage)-7.412) > 1e-5 {
		t.Errorf("battery: %d messages %+v", n, got[TopicBattery])
	}
	if n := len(got[TopicJoy]); n != 4 {
		t.Errorf("%d joy messages, want 4", n)
	} else if j := got[TopicJoy][0].(*rosmsg.Joy); j.Axes[0] != 1 || j.Axes[1] != -1 || j.Buttons[8] != 1 || j.Buttons[14] != 1 || j.Buttons[0] != 0 {
		t.Errorf("joy %+v", j)
	}
	if n := len(got[TopicWheels]); n != 3 {
		t.Fatalf("%d wheel twists, want 3", n)
	}
	w0 := got[TopicWheels][0].(*rosmsg.TwistStamped).Twist
	if math.Abs(w0.Linear.X-0.2) > 1e-6 || math.Abs(w0.Linear.Y) > 1e-6 || math.Abs(w0.Angular.Z-0.5) > 1e-5 {
		t.Errorf("forward 0.2 m/s turning 0.5 rad/s came back as %+v", w0)
	}
	if w1 := got[TopicWheels][1].(*rosmsg.TwistStamped).Twist; w1 == w0 || w1.Linear.X >= w0.Linear.X {
		t.Errorf("one wheel stopped: twist %+v, before %+v", w1, w0)
	}
	if w2 := got[TopicWheels][2].(*rosmsg.TwistStamped).Twist; w2 != (rosmsg.Twist{}) {
		t.Errorf("the stop frame gave %+v", w2)
	}
	if n := len(got[TopicScan]); n != 3 {
		t.Fatalf("%d scans, want 3", n)
	}
	sc := got[TopicScan][0].(*rosmsg.LaserScan)
	valid := 0
	for _, r := range sc.Ranges {
		if r == 1.5 {
			valid++
		}
	}
	if len(sc.Ranges) != coind6.DefaultBins || valid < 300 || sc.RangeMax != 8 {
		t.Errorf("scan: %d bins, %d at 1.5 m, range max %v", len(sc.Ranges), valid, sc.RangeMax)
	}
	// The rosbag2 record: YAML whose counts are the file's.
	var doc struct {
		Info struct {
			Version  int    `yaml:"version"`
			Storage  string `yaml:"storage_identifier"`
			Messages uint64 `yaml:"message_count"`
			Topics   []struct {
				Meta struct {
					Name, Type, SerializationFormat string
					QoS                             string `yaml:"offered_qos_profiles"`
				} `yaml:"topic_metadata"`
				Count uint64 `yaml:"message_count"`
			} `yaml:"topics_with_message_count"`
			Files []struct {
				Path string `yaml:"path"`
			} `yaml:"files"`
		} `yaml:"rosbag2_bagfile_information"`
	}
	if err := yaml.Unmarshal([]byte(bag), &doc); err != nil {
		t.Fatalf("rosbag2 record: %v\n%s", err, bag)
	}
	info, err := mcapfile.DescribeFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Info.Version != 5 || doc.Info.Storage != "mcap" || doc.Info.Messages != info.Messages ||
		len(doc.Info.Topics) != len(info.Channels) || len(doc.Info.Files) != 1 || doc.Info.Files[0].Path != "d.mcap" {
		t.Fatalf("rosbag2 record %+v, file %d messages on %d channels\n%s", doc.Info, info.Messages, len(info.Channels), bag)
	}
	for i, c := range info.Channels {
		tm := doc.Info.Topics[i]
		if tm.Meta.Name != c.Topic || tm.Meta.Type != c.Schema || tm.Count != c.Messages || !strings.Contains(tm.Meta.QoS, "reliability: 1") {
			t.Errorf("rosbag2 topic %+v, channel %s %s %d", tm, c.Topic, c.Schema, c.Messages)
		}
	}
}

// TestDecodedNodeReader: @mcap/core's indexed reader opens the file, every channel has a schema and QoS,
// every chunk has message indexes, and the rosbag2 record is there (capture/testdata/mcapcheck).
func TestDecodedNodeReader(t *testing.T) {
	script, _ := filepath.Abs(filepath.Join("testdata", "mcapcheck", "check.js"))
	node, err := exec.LookPath("node")
	_, merr := os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@mcap", "core"))
	if err != nil || merr != nil {
		if os.Getenv("ROSORIN_REQUIRE_NODE") == "1" {
			t.Fatalf("ROSORIN_REQUIRE_NODE=1 but node (%v) or @mcap/core (%v) is missing", err, merr)
		}
		t.Skip("node or @mcap/core missing: npm ci --prefix capture/testdata/mcapcheck")
	}
	path := decodedFile(t)
	out, err := exec.Command(node, script, path).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got struct {
		Statistics int64             `json:"statistics"`
		Topics     map[string]uint64 `json:"topics"`
		Chunks     int               `json:"chunks"`
		Unindexed  int               `json:"unindexed"`
		NoSchema   []string          `json:"noSchema"`
		QoSMissing []string          `json:"qosMissing"`
		Metadata   []string          `json:"metadata"`
		Rosbag2    string            `json:"rosbag2"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Chunks == 0 || got.Unindexed != 0 || len(got.NoSchema) != 0 || len(got.QoSMissing) != 0 ||
		!strings.Contains(strings.Join(got.Metadata, ","), mcapfile.Rosbag2Meta) ||
		!strings.HasPrefix(got.Rosbag2, "rosbag2_bagfile_information:") || len(got.Topics) != 8 {
		t.Fatalf("node reader: %s", out)
	}
	t.Logf("%d chunks, topics %v, metadata %v", got.Chunks, got.Topics, got.Metadata)
}
