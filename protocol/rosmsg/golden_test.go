package rosmsg

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// g builds an expected serialization by hand: every padding byte is counted out in the table below from the
// CDR rules (alignment from after the header), not computed, so the table checks the Writer's alignment.
type g []byte

func hdr() g                { return g{0x00, 0x01, 0x00, 0x00} }
func (b g) u8(v ...byte) g  { return append(b, v...) }
func (b g) pad(n int) g     { return append(b, make([]byte, n)...) }
func (b g) u32(v uint32) g  { return binary.LittleEndian.AppendUint32(b, v) }
func (b g) i32(v int32) g   { return b.u32(uint32(v)) }
func (b g) f32(v float32) g { return b.u32(math.Float32bits(v)) }
func (b g) f64(v ...float64) g {
	for _, f := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}
func (b g) str(s string) g { return append(b.u32(uint32(len(s)+1)), append([]byte(s), 0)...) }
func (b g) zeros64(n int) g {
	return b.f64(make([]float64, n)...)
}

var gid1 = Gid{1, 0x0f, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} // 16-byte GUID, 8 zeros

// golden is the table that drives the encode, decode and fuzz-seed tests.
var golden = []struct {
	name string
	msg  Message
	raw  []byte
}{
	{"Bool true", &Bool{true}, hdr().u8(1)},
	{"String", &String{"hi"}, hdr().str("hi")},
	{"String empty", &String{""}, hdr().str("")},
	{"Twist 0.2 forward, 1 rad/s", &Twist{Linear: Vector3{X: 0.2}, Angular: Vector3{Z: 1}},
		// 0.2 is 3f c9 99 99 99 99 99 9a
		hdr().u8(0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xc9, 0x3f).zeros64(4).u8(0, 0, 0, 0, 0, 0, 0xf0, 0x3f)},
	{"SetBool request", &SetBoolRequest{true}, hdr().u8(1)},
	{"SetBool response", &SetBoolResponse{true, "ok"}, hdr().u8(1).pad(3).str("ok")},
	{"Trigger request", &TriggerRequest{}, hdr().u8(0)},
	{"Trigger response", &TriggerResponse{false, "latched"}, hdr().u8(0).pad(3).str("latched")},
	{"Joy", &Joy{Header: Header{Time{1, 2}, "j"}, Axes: []float32{0.5}, Buttons: []int32{1, -1}},
		// body: sec 0-4, nanosec 4-8, "j" 8-14, pad 2 to 16, axes 16-24, buttons 24-36
		hdr().i32(1).u32(2).str("j").pad(2).u32(1).f32(0.5).u32(2).i32(1).i32(-1)},
	{"Imu", &Imu{
		Header:                Header{Time{1, 2}, "imu_link"},
		Orientation:           Quaternion{W: 1},
		OrientationCovariance: [9]float64{-1},
		AngularVelocity:       Vector3{Z: 0.5},
		LinearAcceleration:    Vector3{Z: 9.81},
	},
		// "imu_link" 8-21, pad 3 to 24 for the doubles
		hdr().i32(1).u32(2).str("imu_link").pad(3).
			f64(0, 0, 0, 1).f64(-1).zeros64(8).
			f64(0, 0, 0.5).zeros64(9).
			f64(0, 0, 9.81).zeros64(9)},
	{"LaserScan", &LaserScan{Header: Header{FrameID: "laser"}, AngleMin: -3.14, AngleMax: 3.14, AngleIncrement: 0.0157,
		ScanTime: 0.1, RangeMin: 0.12, RangeMax: 8, Ranges: []float32{1, 2.5}},
		// "laser" 8-18, pad 2 to 20, seven float32 20-48, ranges 48-60, intensities (none) 60-64
		hdr().i32(0).u32(0).str("laser").pad(2).
			f32(-3.14).f32(3.14).f32(0.0157).f32(0).f32(0.1).f32(0.12).f32(8).
			u32(2).f32(1).f32(2.5).u32(0)},
	{"BatteryState", &BatteryState{Voltage: 11.9, Temperature: float32(math.NaN()), Current: float32(math.NaN()),
		Charge: float32(math.NaN()), Capacity: float32(math.NaN()), DesignCapacity: float32(math.NaN()), Percentage: 0.6,
		PowerSupplyStatus: PowerSupplyStatusDischarging, PowerSupplyTechnology: 2, Present: true},
		// "" 8-13, pad 3 to 16, seven float32 16-44, three uint8 + bool 44-48, two empty sequences 48-56,
		// location "" 56-61, pad 3 to 64, serial_number "" 64-69
		hdr().i32(0).u32(0).str("").pad(3).
			f32(11.9).f32(float32(math.NaN())).f32(float32(math.NaN())).f32(float32(math.NaN())).
			f32(float32(math.NaN())).f32(float32(math.NaN())).f32(0.6).
			u8(2, 0, 2, 1).u32(0).u32(0).str("").pad(3).str("")},
	{"Odometry", &Odometry{Header: Header{FrameID: "odom"}, ChildFrameID: "base_link",
		Pose: Pose{Position: Vector3{X: 1.5}, Orientation: Quaternion{W: 1}}, Twist: Twist{Linear: Vector3{X: 0.2}}},
		// "odom" 8-17, pad 3 to 20, "base_link" 20-34, pad 6 to 40, pose 40-96, covariance 96-384,
		// twist 384-432, covariance 432-720
		hdr().i32(0).u32(0).str("odom").pad(3).str("base_link").pad(6).
			f64(1.5, 0, 0, 0, 0, 0, 1).zeros64(36).f64(0.2, 0, 0, 0, 0, 0).zeros64(36)},
	{"ParticipantEntitiesInfo", &ParticipantEntitiesInfo{Gid: gid1, Nodes: []NodeEntitiesInfo{
		{NodeNamespace: "/", NodeName: "rosorin_board_driver", ReaderGids: []Gid{gid1}}}},
		// gid 0-24, node count 24-28, "/" 28-34, pad 2 to 36, name 36-61, pad 3 to 64, readers 64-92,
		// writers (none) 92-96
		hdr().u8(gid1[:]...).u32(1).str("/").pad(2).str("rosorin_board_driver").pad(3).
			u32(1).u8(gid1[:]...).u32(0)},
}

// newLike returns a new zero message of m's type.
func newLike(m Message) Message {
	return reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)
}

func TestGoldenEncode(t *testing.T) {
	for _, tc := range golden {
		if got := cdr.Marshal(tc.msg); !bytes.Equal(got, tc.raw) {
			t.Errorf("%s:\n got  % x\n want % x", tc.name, got, tc.raw)
		}
	}
}

func TestGoldenDecode(t *testing.T) {
	for _, tc := range golden {
		got := newLike(tc.msg)
		if err := cdr.Unmarshal(tc.raw, got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		// NaN != NaN: compare re-encodings, which are bit-exact.
		if !bytes.Equal(cdr.Marshal(got), tc.raw) || got.ROSType() != tc.msg.ROSType() {
			t.Errorf("%s: decoded %+v, want %+v", tc.name, got, tc.msg)
		}
	}
}

// TestDecodeTruncated: every strict prefix of a golden message is an error, never a panic or a short value
// taken for a whole one (Cyclone's 4-byte size padding aside: the 1-3 last bytes of a few are padding).
func TestDecodeTruncated(t *testing.T) {
	for _, tc := range golden {
		for n := 0; n < len(tc.raw); n++ {
			m := newLike(tc.msg)
			if err := cdr.Unmarshal(tc.raw[:n], m); err == nil {
				t.Errorf("%s: %d of %d bytes decoded without error", tc.name, n, len(tc.raw))
			}
		}
	}
}

func TestTypeNames(t *testing.T) {
	for in, want := range map[string]string{
		"sensor_msgs/msg/Imu":                        "sensor_msgs::msg::dds_::Imu_",
		"std_srvs/srv/SetBool_Request":               "std_srvs::srv::dds_::SetBool_Request_",
		"std_srvs/srv/Trigger_Response":              "std_srvs::srv::dds_::Trigger_Response_",
		"rmw_dds_common/msg/ParticipantEntitiesInfo": "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_",
		"Imu":  "",
		"a//b": "",
	} {
		if got := TypeName(in); got != want {
			t.Errorf("TypeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemas(t *testing.T) {
	for _, tc := range golden {
		typ := tc.msg.ROSType()
		if !bytes.Contains([]byte(typ), []byte("/msg/")) || typ == "rmw_dds_common/msg/ParticipantEntitiesInfo" {
			continue
		}
		if _, err := Schema(typ); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
	s, err := Schema("sensor_msgs/msg/Imu")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"std_msgs/Header header\n", "\nMSG: std_msgs/Header\n", "\nMSG: builtin_interfaces/Time\nint32 sec\n", "\nMSG: geometry_msgs/Vector3\n"} {
		if !bytes.Contains([]byte(s), []byte(want)) {
			t.Errorf("Imu schema lacks %q:\n%s", want, s)
		}
	}
	if bytes.Count([]byte(s), []byte("MSG: ")) != 4 {
		t.Errorf("Imu schema should name 4 dependencies once each:\n%s", s)
	}
	if _, err := Schema("std_srvs/srv/SetBool_Request"); err == nil {
		t.Error("a service part has no message schema")
	}
}

func TestHostileLengths(t *testing.T) {
	// A LaserScan claiming 2^31 ranges, a Joy claiming 2^32-1 buttons, a discovery message claiming 2^30
	// nodes: each is an error before anything that size is allocated.
	for _, tc := range []struct {
		m   Message
		raw []byte
	}{
		{&LaserScan{}, hdr().i32(0).u32(0).str("").pad(3).f32(0).f32(0).f32(0).f32(0).f32(0).f32(0).f32(0).u32(1 << 31)},
		{&Joy{}, hdr().i32(0).u32(0).str("").pad(3).u32(0).u32(math.MaxUint32)},
		{&ParticipantEntitiesInfo{}, hdr().u8(gid1[:]...).u32(1 << 30)},
		{&Time{}, hdr().i32(0).u32(2e9)},
		{&Bool{}, hdr().u8(2)},
	} {
		allocs := testing.AllocsPerRun(1, func() { _ = cdr.Unmarshal(tc.raw, tc.m) })
		if err := cdr.Unmarshal(tc.raw, tc.m); err == nil {
			t.Errorf("%s accepted % x", tc.m.ROSType(), tc.raw)
		}
		if allocs > 10 {
			t.Errorf("%s: %v allocations on a hostile length", tc.m.ROSType(), allocs)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, tc := range golden {
		f.Add(uint8(0), tc.raw)
	}
	f.Fuzz(func(t *testing.T, pick uint8, raw []byte) {
		tc := golden[int(pick)%len(golden)]
		m := newLike(tc.msg)
		if err := cdr.Unmarshal(raw, m); err != nil {
			return
		}
		// What decodes re-encodes to a message that decodes to the same encoding.
		again := newLike(tc.msg)
		enc := cdr.Marshal(m)
		if err := cdr.Unmarshal(enc, again); err != nil {
			t.Fatalf("re-encoding of an accepted message does not decode: %v", err)
		}
		if !bytes.Equal(cdr.Marshal(again), enc) {
			t.Fatalf("encode(decode(encode(decode(x)))) differs")
		}
	})
}
