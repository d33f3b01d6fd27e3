package sim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestHomePure: on the core alone in virtual time, home puts the robot back on the pose it had at the start
// after a drive and a stop (the yaw too), at rest; it is refused, changing nothing, while the wheels are
// commanded and while they still run down; the truth and the LiDAR show the start pose at once, the IMU's
// acceleration stays zero; refused while the obstacle box covers the mark, allowed once it is gone.
func TestHomePure(t *testing.T) {
	p := newPureCore(t, Floor)
	c := p.c
	start := c.phys.Pose
	if start != p.s.room.Start || p.s.StartPose() != start {
		t.Fatalf("start pose %v, room's %v, StartPose %v", start, p.s.room.Start, p.s.StartPose())
	}
	ahead := func() float64 { d, _ := c.lid.Expected(c.phys.Pose, 180); return d } // native 180 = forward
	aheadAtStart := ahead()

	refused := func(when string, want error) {
		t.Helper()
		before := *c.phys
		err := c.applyFault(Fault{Kind: FaultHome, Text: "home"}, p.now)
		if !errors.Is(err, want) {
			t.Fatalf("%s: home = %v, want %v", when, err, want)
		}
		if c.phys.Pose != before.Pose || c.phys.Vel != before.Vel || c.phys.Wheel != before.Wheel {
			t.Fatalf("%s: a refused home moved the robot: %v -> %v", when, before.Pose, c.phys.Pose)
		}
	}

	p.motor([3]float64{0.2, 0.1, 0.5})
	p.run(2 * time.Second)
	refused("driving", ErrHomeMoving)
	if err := c.applyFault(Fault{Kind: FaultHome, Text: "home"}, p.now); err == nil ||
		!strings.Contains(err.Error(), "home refused: the wheels are commanded/turning: stop them first") {
		t.Errorf("the refusal says %v", err)
	}
	p.motor([3]float64{})
	p.step()
	if c.phys.Target != ([4]float64{}) || c.phys.Wheel == ([4]float64{}) {
		t.Fatalf("not running down: targets %v, wheels %v", c.phys.Target, c.phys.Wheel)
	}
	refused("running down", ErrHomeMoving)
	for n := 0; c.phys.Wheel != ([4]float64{}); n++ {
		if n > 60*IMURateHz {
			t.Fatalf("the wheels never came to rest: %v", c.phys.Wheel)
		}
		p.step()
	}
	moved := c.phys.Pose
	if math.Hypot(moved[0]-start[0], moved[1]-start[1]) < 0.3 || math.Abs(moved[2]-start[2]) < 0.5 {
		t.Fatalf("the drive moved the robot only from %v to %v", start, moved)
	}
	if math.Abs(ahead()-aheadAtStart) < 0.05 {
		t.Fatalf("the LiDAR sees the same ahead after the drive (%.3f m): the check below would prove nothing", ahead())
	}

	if err := c.applyFault(Fault{Kind: FaultHome, Text: "home"}, p.now); err != nil {
		t.Fatalf("home at rest: %v", err)
	}
	c.publish(p.now)
	if c.phys.Pose != start || c.phys.Vel != ([3]float64{}) || c.phys.Accel != ([2]float64{}) || c.phys.Stalled {
		t.Errorf("after home: pose %v vel %v accel %v stalled %v; want the start pose %v at rest",
			c.phys.Pose, c.phys.Vel, c.phys.Accel, c.phys.Stalled, start)
	}
	if tr := p.s.Truth(); tr.Pose != start || tr.BodyVel != ([3]float64{}) {
		t.Errorf("the truth after home: pose %v vel %v, want %v at rest", tr.Pose, tr.BodyVel, start)
	}
	if got := ahead(); got != aheadAtStart {
		t.Errorf("the LiDAR ahead after home: %.4f m, at the start %.4f m", got, aheadAtStart)
	}
	p.run(time.Second) // at rest on the mark: nothing moves, the IMU sees no acceleration
	if c.phys.Pose != start || c.phys.Accel != ([2]float64{}) {
		t.Errorf("a second after home: pose %v accel %v", c.phys.Pose, c.phys.Accel)
	}

	// Backward 0.5 m, then a box ahead covering the mark: refused until it is removed.
	p.motor([3]float64{-0.2, 0, 0})
	p.run(2500 * time.Millisecond)
	p.motor([3]float64{})
	p.run(3 * time.Second)
	if c.phys.Wheel != ([4]float64{}) || start[0]-c.phys.Pose[0] < 0.4 {
		t.Fatalf("backing up: wheels %v, pose %v", c.phys.Wheel, c.phys.Pose)
	}
	p.fault("obstacle=0.3")
	refused("the obstacle on the mark", ErrHomeBlocked)
	p.fault("obstacle=0")
	if err := c.applyFault(Fault{Kind: FaultHome, Text: "home"}, p.now); err != nil || c.phys.Pose != start {
		t.Errorf("home after the obstacle was removed: %v, pose %v", err, c.phys.Pose)
	}

	// Scheduled while driving: refused when it fires, nothing moves.
	p.motor([3]float64{0.2, 0, 0})
	p.fault("home@100ms")
	p.run(time.Second)
	if c.phys.Pose[0]-start[0] < 0.1 {
		t.Errorf("a scheduled home moved the driving robot back: pose %v", c.phys.Pose)
	}
}

// TestHomeParse: home takes no value and no arguments; its request is "home".
func TestHomeParse(t *testing.T) {
	if f, err := ParseFault("home"); err != nil || f.Kind != FaultHome {
		t.Errorf("ParseFault(home) = %+v, %v", f, err)
	}
	for _, in := range []string{"home=1", "home=", "home=now"} {
		if _, err := ParseFault(in); err == nil || !strings.Contains(err.Error(), "takes no value") {
			t.Errorf("ParseFault(%q): %v", in, err)
		}
	}
	sp, _ := FaultSpecFor(FaultHome)
	if req, err := sp.Request(nil, ""); err != nil || req != "home" {
		t.Errorf("Request() = %q, %v", req, err)
	}
	if _, err := sp.Request([]string{"now"}, ""); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("Request(now): %v", err)
	}
}

// TestHomeSocket: a running floor sim answers home on its control socket (and Sim.Home): at rest it puts
// the robot back, with the wheels commanded it refuses with the reason, and the robot stays where it is.
func TestHomeSocket(t *testing.T) {
	s := startSim(t, Config{World: "floor", Seed: 7})
	if err := s.Home(); err != nil {
		t.Fatalf("Home at the start: %v", err)
	}
	// Command the wheels as a motor frame would (no driver in this test).
	if err := s.do(func(c *core) { c.phys.Target = WheelRPS([3]float64{0.2, 0, 0}) }); err != nil {
		t.Fatal(err)
	}
	_, err := Control(s.ControlPath(), "home", 3*time.Second)
	if err == nil || !strings.Contains(err.Error(), "stop them first") {
		t.Fatalf("home over the socket while commanded: %v", err)
	}
	if err := s.Home(); !errors.Is(err, ErrHomeMoving) {
		t.Fatalf("Home while commanded: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	time.Sleep(500 * time.Millisecond)
	if err := s.do(func(c *core) { c.phys.Target = [4]float64{} }); err != nil {
		t.Fatal(err)
	}
	for s.Truth().WheelRPS != ([4]float64{}) {
		select {
		case <-ctx.Done():
			t.Fatalf("the wheels never came to rest: %v", s.Truth().WheelRPS)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if p := s.Truth().Pose; p[0]-s.StartPose()[0] < 0.05 {
		t.Fatalf("the robot did not drive: pose %v", p)
	}
	if _, err := Control(s.ControlPath(), "home", 3*time.Second); err != nil {
		t.Fatalf("home over the socket at rest: %v", err)
	}
	if tr := s.Truth(); tr.Pose != s.StartPose() || tr.BodyVel != ([3]float64{}) {
		t.Errorf("after home: pose %v vel %v, want %v at rest", tr.Pose, tr.BodyVel, s.StartPose())
	}
}
