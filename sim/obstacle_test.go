package sim

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestObstacleFault: the box appears DIST ahead of the robot (or at a bearing) for the LiDAR and for the
// physics (the robot cannot drive through it), and obstacle=0 takes it away again. Pure: the core without
// its devices.
func TestObstacleFault(t *testing.T) {
	s := &Sim{cfg: Config{Seed: 1}, kind: Floor, room: DefaultRoom()}
	c := newCore(s, time.Now())
	ahead := func() float64 { d, _ := c.lid.Expected(c.phys.Pose, 180); return d } // native 180 = forward
	left := func() float64 { d, _ := c.lid.Expected(c.phys.Pose, 90); return d }
	free, freeLeft := ahead(), left()
	for _, tc := range []struct {
		text   string
		ahead  float64 // LiDAR range forward after the fault (m), NaN: unchanged
		left   float64
		active bool
	}{
		{"obstacle=0.45", 0.45 - LidarMountX, math.NaN(), true},
		{"obstacle=0", math.NaN(), math.NaN(), false},
		{"obstacle=0.6:90", math.NaN(), 0.6, true},
		{"obstacle=off", 0, 0, false},
	} {
		f, err := ParseFault(tc.text)
		if tc.ahead == 0 { // not a valid fault: the distance must be a number
			if err == nil {
				t.Errorf("%s parsed", tc.text)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		c.applyFault(f, time.Now())
		wantAhead, wantLeft := tc.ahead, tc.left
		if math.IsNaN(wantAhead) {
			wantAhead = free
		}
		if math.IsNaN(wantLeft) {
			wantLeft = freeLeft
		}
		if got := ahead(); math.Abs(got-wantAhead) > 1e-6 {
			t.Errorf("%s: range ahead %.3f m, want %.3f", tc.text, got, wantAhead)
		}
		if got := left(); math.Abs(got-wantLeft) > 0.05 {
			t.Errorf("%s: range to the left %.3f m, want %.3f", tc.text, got, wantLeft)
		}
		if got := slices.Contains(c.activeFaults(), "obstacle"); got != tc.active {
			t.Errorf("%s: active faults %v", tc.text, c.activeFaults())
		}
	}
	// Solid: a box 0.3 m ahead stops the robot at its footprint.
	f, _ := ParseFault("obstacle=0.3")
	c.applyFault(f, time.Now())
	c.phys.Target = WheelRPS([3]float64{0.2, 0, 0})
	for range 300 {
		c.phys.Step(10 * time.Millisecond)
	}
	if x := c.phys.Pose[0]; x > 0.3-DefaultRobotRadius+0.01 || !c.phys.Stalled {
		t.Errorf("drove into the box: x %.3f, stalled %v", x, c.phys.Stalled)
	}
	if s.room.Segments[len(s.room.Segments)-1] != DefaultRoom().Segments[len(DefaultRoom().Segments)-1] {
		t.Error("the shared room was changed")
	}
}

func TestNamedRoom(t *testing.T) {
	for _, n := range RoomNames {
		if _, err := NamedRoom(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := NamedRoom("kitchen"); err == nil {
		t.Error("unknown room accepted")
	}
}
