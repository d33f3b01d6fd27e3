package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// motorOf decodes the motor command of a wheel frame, as the board's reader does.
func motorOf(t *testing.T, frame []byte) board.MotorCommand {
	t.Helper()
	var p board.Parser
	var mc board.MotorCommand
	n := 0
	p.Feed(frame, func(f board.Frame) {
		var err error
		if mc, err = board.DecodeMotor(f.Payload); err != nil {
			t.Fatal(err)
		}
		n++
	})
	if n != 1 {
		t.Fatalf("%d frames in % x", n, frame)
	}
	return mc
}

// TestBoardResetPure: the board-reset fault on the core alone, in virtual time. At the fault the wheels'
// targets go to zero at once and the wheels then slow down; a held button is forgotten; for the boot
// (500 ms here) the truth lists "board-reset" and motor frames are not obeyed, neither then nor after the
// boot; after it they are.
func TestBoardResetPure(t *testing.T) {
	s := &Sim{kind: Stand, room: DefaultRoom()}
	s.hang.init()
	now := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	c := newCore(s, now)
	run := func(d time.Duration) {
		for end := now.Add(d); now.Before(end); {
			now = now.Add(min(time.Second/IMURateHz, end.Sub(now)))
			c.tick(now)
		}
	}
	motor := func(v [3]float64) { c.motorFrame(motorCmd{now, motorOf(t, wheelFrame(t, v))}) }
	faults := func() []string { c.publish(now); return s.Truth().Faults }

	motor([3]float64{0.2, 0, 0})
	run(time.Second)
	spinning := c.phys.Wheel[0]
	if c.phys.Target[0] <= 0 || spinning < 0.9*c.phys.Target[0] {
		t.Fatalf("not spinning: target %v wheels %v", c.phys.Target, c.phys.Wheel)
	}
	c.applyFault(Fault{Kind: FaultButton, Mask: 0x0100, Frames: 1000, Text: "button"}, now)
	if err := func() error { f, err := ParseFault("board-reset=500ms"); c.applyFault(f, now); return err }(); err != nil {
		t.Fatal(err)
	}
	if c.phys.Target != ([4]float64{}) || c.phys.Wheel[0] != spinning {
		t.Fatalf("at the reset: target %v wheels %v; want the targets zero at once, the wheels still turning", c.phys.Target, c.phys.Wheel)
	}
	if c.holdFrames != 0 {
		t.Errorf("the held button survived the reset: %d frames left", c.holdFrames)
	}
	if f := faults(); !slices.Contains(f, "board-reset") {
		t.Errorf("faults during the boot %v, want board-reset", f)
	}
	ignored := c.st.MotorIgnored
	for range 30 { // the driver refreshing its old speed every 20 ms through the boot
		run(20 * time.Millisecond)
		if !now.Before(c.bootEnd) {
			break
		}
		motor([3]float64{0.2, 0, 0})
		if c.phys.Target != ([4]float64{}) {
			t.Fatalf("%v into the boot: a motor frame was obeyed (target %v)", now.Sub(c.bootEnd.Add(-500*time.Millisecond)), c.phys.Target)
		}
	}
	if n := c.st.MotorIgnored - ignored; n != 24 {
		t.Errorf("%d motor frames ignored during the boot, want 24 (every 20 ms of 0.5 s)", n)
	}
	if c.phys.Wheel[0] > 0.5*spinning {
		t.Errorf("wheels at %v rps 0.5 s after the reset (from %v): not slowing down by the lag", c.phys.Wheel[0], spinning)
	}
	// A frame read during the boot but handled after it (the core was busy) is not obeyed either.
	late := motorCmd{now.Add(-time.Millisecond), motorOf(t, wheelFrame(t, [3]float64{0.2, 0, 0}))}
	run(20 * time.Millisecond)
	if c.booting {
		t.Fatal("still booting after the boot time")
	}
	if f := faults(); slices.Contains(f, "board-reset") {
		t.Errorf("faults after the boot %v", f)
	}
	c.motorFrame(late)
	if c.phys.Target != ([4]float64{}) {
		t.Fatalf("a frame read during the boot was obeyed after it: target %v", c.phys.Target)
	}
	motor([3]float64{0.2, 0, 0})
	if c.phys.Target[0] <= 0 {
		t.Fatalf("a motor frame after the boot was not obeyed: target %v", c.phys.Target)
	}
	motor([3]float64{})
	if c.phys.Target != ([4]float64{}) {
		t.Fatalf("a stop after the boot was not obeyed: target %v", c.phys.Target)
	}
}

// TestBoardResetParse: BOOT defaults to 800ms and must be in (0, 1h]; the method checks it too.
func TestBoardResetParse(t *testing.T) {
	if f, err := ParseFault("board-reset"); err != nil || f.Dur != DefaultBoardBoot || DefaultBoardBoot != 800*time.Millisecond {
		t.Errorf("board-reset: %+v, %v", f, err)
	}
	if f, err := ParseFault("board-reset=2s@1s"); err != nil || f.Dur != 2*time.Second || f.At != time.Second {
		t.Errorf("board-reset=2s@1s: %+v, %v", f, err)
	}
	for _, bad := range []string{"board-reset=0s", "board-reset=-1s", "board-reset=2h", "board-reset=", "board-reset=x"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	s := &Sim{}
	for _, bad := range []time.Duration{0, -time.Second, 2 * time.Hour} {
		if err := s.BoardReset(bad); err == nil {
			t.Errorf("BoardReset(%v) accepted", bad)
		}
	}
}

// TestFaultBoardReset: over the pty, which stays open: the targets zero at the reset, nothing from the board
// for the boot, the old speed written during the boot is not obeyed (then or later), the IMU stream returns
// after it with the power-up battery report, and a motor frame then is obeyed.
func TestFaultBoardReset(t *testing.T) {
	s := startSim(t, Config{World: "stand", Seed: 46})
	c := openBoard(t, s.BoardPath())
	c.write(wheelFrame(t, [3]float64{0.2, 0, 0}))
	time.Sleep(400 * time.Millisecond)
	if err := s.BoardReset(600 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if tr := s.Truth(); tr.TargetRPS != ([4]float64{}) || !slices.Contains(tr.Faults, "board-reset") {
		t.Fatalf("at the reset: target %v faults %v", tr.TargetRPS, tr.Faults)
	}
	time.Sleep(50 * time.Millisecond) // frames already in the pty may still arrive
	t0 := time.Now()
	for range 10 { // the driver refreshing the old speed through the boot
		c.write(wheelFrame(t, [3]float64{0.2, 0, 0}))
		time.Sleep(40 * time.Millisecond)
	}
	if n := len(c.since(t0, 0xff)); n != 0 {
		t.Errorf("%d frames from a booting board", n)
	}
	if tr := s.Truth(); tr.TargetRPS != ([4]float64{}) {
		t.Errorf("a booting board obeyed a motor frame: target %v", tr.TargetRPS)
	}
	if !waitUntil(time.Second, func() bool { return !slices.Contains(s.Truth().Faults, "board-reset") }) {
		t.Fatal("still booting")
	}
	if tr := s.Truth(); tr.TargetRPS != ([4]float64{}) {
		t.Errorf("the frames written during the boot were obeyed after it: target %v", tr.TargetRPS)
	}
	t1 := time.Now()
	time.Sleep(700 * time.Millisecond)
	if n := len(c.since(t1, board.FuncIMU)); n < minCount(50) {
		t.Errorf("%d IMU frames in 0.7 s after the boot", n)
	}
	if n := len(c.since(t1, board.FuncSys)); n != 1 {
		t.Errorf("%d battery reports in 0.7 s after the boot, want the power-up one at 0.5 s", n)
	}
	c.write(wheelFrame(t, [3]float64{0.2, 0, 0}))
	if !waitUntil(time.Second, func() bool { return s.Truth().TargetRPS[0] > 0 }) {
		t.Errorf("a motor frame after the boot was not obeyed: target %v", s.Truth().TargetRPS)
	}
}
