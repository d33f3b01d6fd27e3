package sim

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFault(t *testing.T) {
	good := map[string]Fault{
		"usb-drop=3s":            {Kind: FaultUSBDrop, Dur: 3 * time.Second},
		"hang":                   {Kind: FaultHang, On: true},
		"hang=off":               {Kind: FaultHang},
		"ignore-motor":           {Kind: FaultIgnoreMotor, On: true},
		"lidar-silent=on":        {Kind: FaultLidarSilent, On: true},
		"lidar-unplug=2s":        {Kind: FaultLidarUnplug, Dur: 2 * time.Second},
		"corrupt=to-board:0.01":  {Kind: FaultCorrupt, ToBoard: true, Rate: 0.01},
		"corrupt=from-board:0.5": {Kind: FaultCorrupt, Rate: 0.5},
		"button=0x0100:3":        {Kind: FaultButton, Mask: 0x0100, Frames: 3},
		"button=256":             {Kind: FaultButton, Mask: 0x0100, Frames: 1},
		"key=1:0x01":             {Kind: FaultKey, ID: 1, Event: 1},
		"battery-step=+250":      {Kind: FaultBattery, MV: 250},
		"battery-step=-226":      {Kind: FaultBattery, MV: -226},
		"stall":                  {Kind: FaultStall, On: true},
		"pad":                    {Kind: FaultPad, On: true},
		"sticks=0,64,0,0":        {Kind: FaultSticks, Sticks: [4]int8{0, 64, 0, 0}},
		"sticks=-128,127,-1, 1":  {Kind: FaultSticks, Sticks: [4]int8{-128, 127, -1, 1}},
		"hang@5s":                {Kind: FaultHang, On: true, At: 5 * time.Second},
	}
	for in, want := range good {
		got, err := ParseFault(in)
		want.Text = in
		if err != nil || got != want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "usb-drop", "usb-drop=-1s", "usb-drop=x", "hang=maybe", "corrupt=0.1",
		"corrupt=to-board:2", "corrupt=sideways:0.1", "button=0", "button=0x10000", "button=1:0", "key=1",
		"key=300:1", "battery-step=lots", "explode", "hang@soon", "usb-drop=2h",
		"sticks", "sticks=1,2,3", "sticks=0,128,0,0", "sticks=0,-129,0,0", "sticks=a,b,c,d", "sticks=1,2,3,4,5", "sticks=0x10,0,0,0"} {
		if f, err := ParseFault(in); err == nil {
			t.Errorf("ParseFault(%q) = %+v, want an error", in, f)
		} else if !strings.Contains(err.Error(), in) {
			t.Errorf("error for %q does not quote the input: %v", in, err)
		}
	}
}

func TestDeterminism(t *testing.T) {
	run := func(seed int64) ([]IMUReading, []LidarSample, []uint16) {
		p := NewPhysics(Stand, nil)
		p.Target = WheelRPS([3]float64{0.2, 0, 0})
		m := NewIMUModel(seed)
		var imu []IMUReading
		for range 200 {
			p.Step(imuDT)
			imu = append(imu, m.Sample(imuDT, p))
		}
		l := NewLidarModel(seed, DefaultRoom())
		var lid []LidarSample
		for k := range LidarPacketsPerRev + 1 {
			s, _, _ := l.Packet(k, [3]float64{}, nil)
			lid = append(lid, s...)
		}
		b := NewBatteryModel(seed)
		var bat []uint16
		for range 10 {
			bat = append(bat, b.Sample(time.Second, 0.5))
		}
		return imu, lid, bat
	}
	i1, l1, b1 := run(5)
	i2, l2, b2 := run(5)
	i3, l3, _ := run(6)
	if !equal(i1, i2) || !equal(l1, l2) || !equal(b1, b2) {
		t.Error("same seed, different noise")
	}
	if equal(i1, i3) || equal(l1, l3) {
		t.Error("different seeds, same noise")
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRoomFile(t *testing.T) {
	r, err := ParseRoom([]byte(`name: kitchen
start: [0.5, 0.0, 90]
walls:
  - [[-1, -1], [3, -1], [3, 2], [-1, 2], [-1, -1]]
boxes:
  - {center: [1.5, 0.5], size: [0.4, 0.6], yaw: 30}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Segments) != 8 || math.Abs(r.Start[2]-math.Pi/2) > 1e-9 || r.RobotRadius != DefaultRobotRadius {
		t.Errorf("parsed room %+v", r)
	}
	// Facing +y from (0.5, 0): the wall at y = 2 is 2 m away.
	if d, _, ok := r.Ray([2]float64{0.5, 0}, math.Pi/2); !ok || math.Abs(d-2) > 1e-9 {
		t.Errorf("ray up: %v %v", d, ok)
	}
	for _, bad := range []string{
		"walls: []",                // no segments
		"walls: [[[0, 0]]]",        // one point
		"wals: [[[0, 0], [1, 1]]]", // typo
		"start: [0, 0]\nwalls: [[[0.1, -1], [0.1, 1]]]", // start overlaps
		"boxes: [{center: [1, 1], size: [0, 1]}]",
		"walls: [[[0, 0], [1, .nan]]]",
	} {
		if _, err := ParseRoom([]byte(bad)); err == nil {
			t.Errorf("ParseRoom(%q) accepted", bad)
		}
	}
	if _, err := LoadRoom(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("LoadRoom of a missing file succeeded")
	}
}
