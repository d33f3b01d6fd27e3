package rosmsg

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
)

var (
	pvDouble = ParameterValue{Type: ParameterDouble, Double: 0.3}
	pvDev    = ParameterValue{Type: ParameterString, String: "/dev/ttyACM0"}
	param    = Parameter{Name: "cmd_timeout", Value: pvDouble}
	descMax  = ParameterDescriptor{Name: "max_linear", Type: ParameterDouble, Description: "speed limit",
		AdditionalConstraints: "<= 0.35", FloatingPointRange: []FloatingPointRange{{0, 0.35, 0}}}
	descKey = ParameterDescriptor{Name: "estop_key", Type: ParameterInteger, ReadOnly: true,
		IntegerRange: []IntegerRange{{0, 255, 1}}}
	listResult = ListParametersResult{Names: []string{"a", "bb"}}
)

// paramCases are rcl_interfaces' messages; raw is given for those counted out by hand (the others are checked
// against Cyclone's serializer by TestParamsMatchCyclone and by round trips).
var paramCases = []struct {
	name string
	msg  Message
	raw  []byte
}{
	// type, bool, pad 6 to 8, int64 8-16, double 16-24, "" 24-29, pad 3 to 32, five empty sequences 32-52
	{"ParameterValue double", &ParameterValue{Type: ParameterDouble, Double: 0.3},
		hdr().u8(3, 0).pad(6).pad(8).f64(0.3).str("").pad(3).u32(0).u32(0).u32(0).u32(0).u32(0)},
	{"ParameterValue string", &ParameterValue{Type: ParameterString, String: "imu_link"}, nil},
	{"ParameterValue integer", &ParameterValue{Type: ParameterInteger, Integer: -5}, nil},
	{"ParameterValue double_array", &ParameterValue{Type: ParameterDoubleArray, DoubleArray: []float64{1, 0.765, 0}}, nil},
	{"ParameterValue every array", &ParameterValue{Type: ParameterStringArray, Bool: true, ByteArray: []byte{1, 2},
		BoolArray: []bool{true, false}, IntegerArray: []int64{7}, StringArray: []string{"a", "bc"}}, nil},
	{"Parameter", &param, nil},
	{"ParameterDescriptor double", &descMax, nil},
	{"ParameterDescriptor read-only integer", &descKey, nil},
	// bool, pad 3, "read-only" 4-18
	{"SetParametersResult", &SetParametersResult{false, "read-only"}, hdr().u8(0).pad(3).str("read-only")},
	{"ListParametersResult", &listResult, hdr().u32(2).str("a").pad(2).str("bb").pad(1).u32(0)},
	{"ParameterEvent", &ParameterEvent{Stamp: Time{5, 6}, Node: "/rosorin_board_driver",
		ChangedParameters: []Parameter{{Name: "max_linear", Value: ParameterValue{Type: ParameterDouble, Double: 0.1}}}}, nil},
	{"ListParameters request", &ListParametersRequest{Prefixes: []string{"x"}, Depth: 1}, hdr().u32(1).str("x").pad(2).pad(4).u32(1).u32(0)},
	{"ListParameters response", &ListParametersResponse{Result: listResult}, nil},
	{"GetParameters request", &NamesRequest{Srv: SrvGetParameters, Names: []string{"cmd_timeout", "device"}}, nil},
	{"GetParameters response", &GetParametersResponse{Values: []ParameterValue{pvDouble, pvDev}}, nil},
	{"GetParameterTypes response", &GetParameterTypesResponse{Types: []uint8{3, 4}}, hdr().u32(2).u8(3, 4)},
	{"DescribeParameters response", &DescribeParametersResponse{Descriptors: []ParameterDescriptor{descMax, descKey}}, nil},
	{"SetParameters request", &SetParametersRequest{Srv: SrvSetParameters, Parameters: []Parameter{param}}, nil},
	{"SetParameters response", &SetParametersResponse{Results: []SetParametersResult{{true, ""}, {false, "no"}}}, nil},
	{"SetParametersAtomically response", &SetParametersAtomicallyResponse{Result: SetParametersResult{false, "x"}}, nil},
}

// newParamLike is newLike keeping the service name of the shared request types.
func newParamLike(m Message) Message {
	n := newLike(m)
	switch v := m.(type) {
	case *NamesRequest:
		n.(*NamesRequest).Srv = v.Srv
	case *SetParametersRequest:
		n.(*SetParametersRequest).Srv = v.Srv
	}
	return n
}

func TestParamsGolden(t *testing.T) {
	for _, tc := range paramCases {
		enc := cdr.Marshal(tc.msg)
		if tc.raw != nil && !bytes.Equal(enc, tc.raw) {
			t.Errorf("%s:\n got  % x\n want % x", tc.name, enc, tc.raw)
		}
		got := newParamLike(tc.msg)
		if err := cdr.Unmarshal(enc, got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.msg) {
			t.Errorf("%s: decoded %+v, want %+v", tc.name, got, tc.msg)
		}
		for n := 0; n < len(enc)-3; n++ { // the last 1-3 bytes may be Cyclone's size padding
			if err := cdr.Unmarshal(enc[:n], newParamLike(tc.msg)); err == nil {
				t.Errorf("%s: %d of %d bytes decoded without error", tc.name, n, len(enc))
				break
			}
		}
	}
	if ParameterTypeName(ParameterDoubleArray) != "double_array" || ParameterTypeName(42) != "unknown type 42" {
		t.Error("ParameterTypeName")
	}
	if TypeName((&NamesRequest{Srv: SrvDescribeParameters}).ROSType()) != "rcl_interfaces::srv::dds_::DescribeParameters_Request_" {
		t.Error("DescribeParameters request type name")
	}
}

func TestParamsHostile(t *testing.T) {
	for _, tc := range []struct {
		m   Message
		raw []byte
	}{
		{&GetParametersResponse{}, hdr().u32(1 << 30)},
		{&SetParametersRequest{}, hdr().u32(math.MaxUint32)},
		{&ParameterEvent{}, hdr().i32(0).u32(0).str("").pad(3).u32(1 << 28)},
		{&NamesRequest{}, hdr().u32(1 << 29)},
		{&ParameterDescriptor{}, hdr().str("").u8(3).pad(3).str("").str("").u8(0, 0).pad(2).u32(2).f64(0, 1, 0, 0, 1, 0)},
		{&ParameterValue{}, hdr().u8(1, 2)},
	} {
		allocs := testing.AllocsPerRun(1, func() { _ = cdr.Unmarshal(tc.raw, tc.m) })
		if err := cdr.Unmarshal(tc.raw, tc.m); err == nil {
			t.Errorf("%T accepted % x", tc.m, tc.raw)
		}
		if allocs > 10 {
			t.Errorf("%T: %v allocations on a hostile length", tc.m, allocs)
		}
	}
}

// TestParamsMatchCyclone compares every case with Cyclone DDS's own serializer (testdata/cyclone/params.c
// with idlc's code for params.idl), as TestGoldenMatchesCyclone does for the golden table.
func TestParamsMatchCyclone(t *testing.T) {
	got := cycloneCases(t, "params.idl", "params.c", "-Wall", "-Werror")
	for _, tc := range paramCases {
		c, ok := got[tc.name]
		if !ok {
			t.Errorf("%s: params.c has no such case", tc.name)
			continue
		}
		if enc := cdr.Marshal(tc.msg); !bytes.Equal(c, enc) {
			t.Errorf("%s: Cyclone writes\n % x\nwe write\n % x", tc.name, c, enc)
		}
		m := newParamLike(tc.msg)
		if err := cdr.Unmarshal(c, m); err != nil || !reflect.DeepEqual(m, tc.msg) {
			t.Errorf("%s: Cyclone's bytes decode to %+v (%v)", tc.name, m, err)
		}
	}
	if len(got) != len(paramCases) {
		t.Errorf("params.c has %d cases, the table %d", len(got), len(paramCases))
	}
}

func FuzzParamsDecode(f *testing.F) {
	for i, tc := range paramCases {
		f.Add(uint8(i), cdr.Marshal(tc.msg))
	}
	f.Fuzz(func(t *testing.T, pick uint8, raw []byte) {
		tc := paramCases[int(pick)%len(paramCases)]
		m := newParamLike(tc.msg)
		if err := cdr.Unmarshal(raw, m); err != nil {
			return
		}
		enc := cdr.Marshal(m)
		again := newParamLike(tc.msg)
		if err := cdr.Unmarshal(enc, again); err != nil {
			t.Fatalf("re-encoding of an accepted message does not decode: %v", err)
		}
		if !bytes.Equal(cdr.Marshal(again), enc) {
			t.Fatalf("encode(decode(encode(decode(x)))) differs")
		}
	})
}
