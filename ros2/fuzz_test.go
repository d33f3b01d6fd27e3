package ros2

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

func twistBytes(lx, ly, lz, ax, ay, az float64) []byte {
	return cdr.Marshal(&rosmsg.Twist{Linear: rosmsg.Vector3{X: lx, Y: ly, Z: lz}, Angular: rosmsg.Vector3{X: ax, Y: ay, Z: az}})
}

// TestDecodeTwist: what cmd_vel lets through and what it refuses (then the bridge sends a zero twist).
func TestDecodeTwist(t *testing.T) {
	good := twistBytes(0.2, -0.1, 0, 0, 0, 1)
	if tw, err := DecodeTwist(good); err != nil || tw.VX != 0.2 || tw.VY != -0.1 || tw.WZ != 1 {
		t.Fatalf("good twist: %+v, %v", tw, err)
	}
	for name, b := range map[string][]byte{
		"short":        good[:20],
		"header only":  good[:4],
		"NaN":          twistBytes(math.NaN(), 0, 0, 0, 0, 0),
		"Inf":          twistBytes(0, 0, 0, 0, 0, math.Inf(-1)),
		"linear.z":     twistBytes(0.1, 0, 0.5, 0, 0, 0),
		"angular.x":    twistBytes(0.1, 0, 0, 0.5, 0, 0),
		"XCDR2":        append([]byte{0, 7, 0, 0}, good[4:]...),
		"PL_CDR":       append([]byte{0, 3, 0, 0}, good[4:]...),
		"wrong length": append(append([]byte(nil), good...), make([]byte, 8)...),
	} {
		if tw, err := DecodeTwist(b); err == nil {
			t.Errorf("%s: accepted as %+v", name, tw)
		}
	}
	if _, err := DecodeTwist(twistBytes(math.NaN(), 0, 0, 0, 0, 0)); !errors.Is(err, ErrBadTwist) {
		t.Errorf("NaN: %v, want ErrBadTwist", err)
	}
}

// TestDecodeTwistStamped: the stamped form lets through what DecodeTwist does and refuses the same; a plain
// Twist is not a TwistStamped (a publisher of the wrong type does not match on the graph, but its bytes
// must not pass either).
func TestDecodeTwistStamped(t *testing.T) {
	st := func(tw rosmsg.Twist) []byte {
		return cdr.Marshal(&rosmsg.TwistStamped{Header: rosmsg.Header{Stamp: rosmsg.Time{Sec: 7}, FrameID: "base_link"}, Twist: tw})
	}
	good := st(rosmsg.Twist{Linear: rosmsg.Vector3{X: 0.2, Y: -0.1}, Angular: rosmsg.Vector3{Z: 1}})
	if tw, err := DecodeTwistStamped(good); err != nil || tw.VX != 0.2 || tw.VY != -0.1 || tw.WZ != 1 {
		t.Fatalf("good twist: %+v, %v", tw, err)
	}
	for name, b := range map[string][]byte{
		"short":     good[:30],
		"NaN":       st(rosmsg.Twist{Linear: rosmsg.Vector3{X: math.NaN()}}),
		"angular.y": st(rosmsg.Twist{Angular: rosmsg.Vector3{Y: 0.5}}),
		"Twist":     twistBytes(0.2, 0, 0, 0, 0, 1),
	} {
		if tw, err := DecodeTwistStamped(b); err == nil {
			t.Errorf("%s: accepted as %+v", name, tw)
		}
	}
}

// TestSourceConverter: ~/source carries the driver's source name alone; a record without one is an error.
func TestSourceConverter(t *testing.T) {
	conv := outputConv(t, "~/source")
	m, err := conv([]byte(`{"stamp":"2026-01-01T00:00:00Z","source":"manual","previous":"autonomous","previous_cmd_age_s":0.01}`))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := m.(*rosmsg.String); !ok || s.Data != "manual" {
		t.Fatalf("got %#v, want String manual", m)
	}
	for _, bad := range []string{`{"previous":"none"}`, `not json`} {
		if _, err := conv([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestSplitRequest: the 16-byte header comes off and the body decodes as its own message.
func TestSplitRequest(t *testing.T) {
	hdr := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 0, 0, 0}
	req := append(append([]byte{0, 1, 0, 0}, hdr...), 1)
	h, body, err := SplitRequest(req)
	if err != nil || !bytes.Equal(h[:], hdr) {
		t.Fatalf("header %x, %v", h, err)
	}
	var m rosmsg.SetBoolRequest
	if err := cdr.Unmarshal(body, &m); err != nil || !m.Data {
		t.Fatalf("body %x: %+v %v", body, m, err)
	}
	if c, s := RequestID(h); c != 0x0807060504030201 || s != 9 {
		t.Errorf("RequestID = %x, %d", c, s)
	}
	if _, _, err := SplitRequest(req[:19]); !errors.Is(err, cdr.ErrShort) {
		t.Errorf("short request: %v", err)
	}
}

// FuzzDecodeTwist: no input panics; an accepted twist is finite and planar.
func FuzzDecodeTwist(f *testing.F) {
	f.Add(twistBytes(0.2, 0, 0, 0, 0, 1))
	f.Add(twistBytes(math.NaN(), 0, 0, 0, 0, 0))
	f.Add([]byte{0, 1, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tw, err := DecodeTwist(b)
		if err != nil {
			return
		}
		for _, v := range []float64{tw.VX, tw.VY, tw.WZ} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted non-finite twist %+v from % x", tw, b)
			}
		}
	})
}

// FuzzSplitRequest: no input panics; the body is the request minus its header.
func FuzzSplitRequest(f *testing.F) {
	f.Add(append(append([]byte{0, 1, 0, 0}, make([]byte, 16)...), 1))
	f.Add([]byte{0, 1, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, body, err := SplitRequest(b)
		if err == nil && len(body) != len(b)-RequestHeaderLen {
			t.Fatalf("body %d bytes from %d", len(body), len(b))
		}
		if err == nil {
			_ = cdr.Unmarshal(body, &rosmsg.SetBoolRequest{})
			_ = cdr.Unmarshal(body, &rosmsg.TriggerRequest{})
		}
	})
}

// TestBatteryMsg: the charger state maps to power_supply_status; what is not measured is NaN.
func TestBatteryMsg(t *testing.T) {
	on, off := true, false
	for _, tc := range []struct {
		plugged *bool
		want    uint8
	}{{nil, rosmsg.PowerSupplyStatusUnknown}, {&on, rosmsg.PowerSupplyStatusCharging}, {&off, rosmsg.PowerSupplyStatusDischarging}} {
		m := BatteryMsg(&api.Battery{Voltage: 12.4, Present: true, Plugged: tc.plugged})
		var back rosmsg.BatteryState
		if err := cdr.Unmarshal(cdr.Marshal(m), &back); err != nil {
			t.Fatal(err)
		}
		if back.PowerSupplyStatus != tc.want || back.Voltage != float32(12.4) || !math.IsNaN(float64(back.Percentage)) || !back.Present {
			t.Errorf("plugged %v: %+v", tc.plugged, back)
		}
	}
}
