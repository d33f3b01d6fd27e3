package rosmsg

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// goldenObs is the observability messages' golden table (obs.go), checked like golden and against Cyclone's
// serializer by TestGoldenObsMatchesCyclone (testdata/cyclone/obs.c).
var goldenObs = []struct {
	name string
	msg  Message
	raw  []byte
}{
	{"Log", &Log{Stamp: Time{5, 6}, Level: LogWarn, Name: "rosorin_board_driver", Msg: "E-STOP latched",
		File: "gate.go", Function: "driver.latch", Line: 42},
		// level 8, pad 3 to 12, name 12-37, pad 3 to 40, msg 40-59, pad 1 to 60, file 60-72, function 72-89,
		// pad 3 to 92, line 92-96
		hdr().i32(5).u32(6).u8(30).pad(3).str("rosorin_board_driver").pad(3).str("E-STOP latched").pad(1).
			str("gate.go").str("driver.latch").pad(3).u32(42)},
	{"DiagnosticArray", &DiagnosticArray{Header: Header{Stamp: Time{1, 2}}, Status: []DiagnosticStatus{
		{Level: DiagError, Name: "rosorin_board_driver: gate", Message: "e-stop", HardwareID: "rosorin-board",
			Values: []KeyValue{{"frames", "12"}, {"", "x"}}},
		{Level: DiagOK, Name: "b"}}},
		// "" 8-13, pad 3 to 16, count 16-20, level 20, pad 3, name 24-55, pad 1, message 56-67, pad 1,
		// hardware_id 68-86, pad 2, values 88-126 (with pads), level 126, pad 1, "b" 128-134, pad 2, "" 136-141,
		// pad 3, "" 144-149, pad 3, no values 152-156
		hdr().i32(1).u32(2).str("").pad(3).u32(2).
			u8(2).pad(3).str("rosorin_board_driver: gate").pad(1).str("e-stop").pad(1).str("rosorin-board").pad(2).
			u32(2).str("frames").pad(1).str("12").pad(1).str("").pad(3).str("x").
			u8(0).pad(1).str("b").pad(2).str("").pad(3).str("").pad(3).u32(0)},
	{"TFMessage", &TFMessage{Transforms: []TransformStamped{
		{Header: Header{FrameID: "base_link"}, ChildFrameID: "laser",
			Transform: Transform{Translation: Vector3{0.048156, 0.0000756, 0.106748}, Rotation: Quaternion{Z: 1}}},
		{Header: Header{Stamp: Time{3, 4}, FrameID: "odom"}, ChildFrameID: "b",
			Transform: Transform{Translation: Vector3{1, 2, 0}, Rotation: Quaternion{W: 1}}}}},
		// count 0-4, stamp 4-12, "base_link" 12-26, pad 2, "laser" 28-38, pad 2 to 40, doubles 40-96; stamp
		// 96-104, "odom" 104-113, pad 3, "b" 116-122, pad 6 to 128, doubles 128-184
		hdr().u32(2).i32(0).u32(0).str("base_link").pad(2).str("laser").pad(2).
			f64(0.048156, 0.0000756, 0.106748, 0, 0, 1, 0).
			i32(3).u32(4).str("odom").pad(3).str("b").pad(6).f64(1, 2, 0, 0, 0, 0, 1)},
}

func TestGoldenObs(t *testing.T) {
	for _, tc := range goldenObs {
		if got := cdr.Marshal(tc.msg); !bytes.Equal(got, tc.raw) {
			t.Errorf("%s encode:\n got  % x\n want % x", tc.name, got, tc.raw)
		}
		got := newLike(tc.msg)
		if err := cdr.Unmarshal(tc.raw, got); err != nil {
			t.Errorf("%s decode: %v", tc.name, err)
		} else if !bytes.Equal(cdr.Marshal(got), tc.raw) {
			t.Errorf("%s: decoded %+v, want %+v", tc.name, got, tc.msg)
		}
		for n := 0; n < len(tc.raw); n++ {
			if err := cdr.Unmarshal(tc.raw[:n], newLike(tc.msg)); err == nil {
				t.Errorf("%s: %d of %d bytes decoded without error", tc.name, n, len(tc.raw))
			}
		}
		if _, err := Schema(tc.msg.ROSType()); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	s, err := Schema("tf2_msgs/msg/TFMessage")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"geometry_msgs/TransformStamped[] transforms\n", "\nMSG: geometry_msgs/TransformStamped\n",
		"\nMSG: geometry_msgs/Transform\nVector3 translation\n", "\nMSG: builtin_interfaces/Time\n", "\nMSG: geometry_msgs/Quaternion\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("TFMessage schema lacks %q:\n%s", want, s)
		}
	}
}

func TestHostileObsLengths(t *testing.T) {
	for _, tc := range []struct {
		m   Message
		raw []byte
	}{
		{&TFMessage{}, hdr().u32(1 << 30)},
		{&DiagnosticArray{}, hdr().i32(0).u32(0).str("").pad(3).u32(1 << 29)},
		{&DiagnosticStatus{}, hdr().u8(0).pad(3).str("").pad(3).str("").pad(3).str("").pad(3).u32(1 << 31)},
		{&Log{}, hdr().i32(0).u32(0).u8(20).pad(3).u32(1 << 31)},
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

func FuzzDecodeObs(f *testing.F) {
	for i, tc := range goldenObs {
		f.Add(uint8(i), tc.raw)
	}
	f.Fuzz(func(t *testing.T, pick uint8, raw []byte) {
		tc := goldenObs[int(pick)%len(goldenObs)]
		m := newLike(tc.msg)
		if err := cdr.Unmarshal(raw, m); err != nil {
			return
		}
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

// TestGoldenObsMatchesCyclone is TestGoldenMatchesCyclone for goldenObs (testdata/cyclone/obs.idl, obs.c).
func TestGoldenObsMatchesCyclone(t *testing.T) {
	got := cycloneCases(t, "obs.idl", "obs.c", "-Wall", "-Werror")
	for _, tc := range goldenObs {
		c, ok := got[tc.name]
		if !ok {
			t.Errorf("%s: obs.c has no such case", tc.name)
			continue
		}
		if !bytes.Equal(c, tc.raw) {
			t.Errorf("%s: Cyclone writes\n % x\nthe table says\n % x", tc.name, c, tc.raw)
		}
	}
	if len(got) != len(goldenObs) {
		t.Errorf("obs.c has %d cases, the table %d", len(got), len(goldenObs))
	}
}
