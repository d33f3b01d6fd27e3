package simtest_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// TestPadDriveSticksTurnWheels: gamepad driving judged by the sim's wheels (its stick axes, sim.PadSticks).
//
//   - Negative control first: pad connected, motion enabled, left stick half forward, no unlock: for a second
//     nothing moves (no moving frame, targets zero) and the pad stays locked.
//   - The unlock (two MODE presses 0.6-1.5 s apart, motion/pad.go) with the same stick: the wheels turn
//     forward at the speed the stick asks for (ly/127 x max_linear, the sim's own inverse kinematics).
//   - LiDAR silent past scan_timeout: the wheels keep turning (gamepad commands are exempt from the scan
//     gate); no stop frame reaches the board.
//   - Any other button (CROSS, one report): stop frame, wheels still, e-stop latched, pad back to locked,
//     and the stick, still pushed, moves nothing.
func TestPadDriveSticksTurnWheels(t *testing.T) {
	s := sharedStack(t)
	// Deferred in this order so they run sticks first: the next test's pad must report centred sticks.
	defer s.sim.PadConnected(false)
	defer s.sim.LidarSilent(false)
	defer s.sim.PadSticks(0, 0, 0, 0)
	s.mustEnable(t)
	if err := s.sim.PadConnected(true); err != nil {
		t.Fatal(err)
	}
	st := s.waitState(t, 2*time.Second, "pad connected", func(st api.State) bool { return st.PadConnected })
	mode := uint16(1) << st.Config.PadModeBit

	// Left stick half forward. The driver maps LY > 0 to +vx (motion.JoyToTwist, seed joy_to_twist).
	const ly = 64
	v := [3]float64{float64(ly) / 127 * s.limits.MaxLinear, 0, 0}
	want := sim.WheelRPS(v)

	// Negative control: the same stick without the unlock.
	seq := s.sim.RxSeq()
	if err := s.sim.PadSticks(0, ly, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Always(time.Second, func() error {
		if tr := s.sim.Truth(); tr.TargetRPS != [4]float64{} {
			return fmt.Errorf("wheel targets %v, want zero", tr.TargetRPS)
		}
		return nil
	}); err != nil {
		t.Fatalf("locked pad, stick forward: %v", err)
	}
	frames, _ := s.sim.ReceivedSince(seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("locked pad, stick forward: non-zero motor frame")
		}
	}
	if st := s.state(t); st.PadMode != string(motion.PadLocked) || !st.Enabled || st.EStop != nil {
		t.Fatalf("before the unlock: pad %q enabled %v estop %s, want locked, enabled", st.PadMode, st.Enabled, strp(st.EStop))
	}
	t.Logf("locked pad, stick LY %d for 1 s: %d frames to the board, none moving, targets zero", ly, len(frames))

	// The unlock. The 0.8 s between the presses is the stimulus, as a thumb would give it (lockout 0.6 s,
	// window 1.5 s), not a wait for anything.
	seq = s.sim.RxSeq()
	if err := s.sim.HoldButton(mode, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	t0 := time.Now()
	if err := s.sim.HoldButton(mode, 1); err != nil {
		t.Fatal(err)
	}
	r, _, ok := s.waitRx(seq, 2*time.Second, movingAfter(t0))
	if !ok {
		st := s.state(t)
		t.Fatalf("no moving frame within 2 s of the second MODE press (pad %q, source %q, blocked %s)", st.PadMode, st.CmdSource, strp(st.Blocked))
	}
	rps, _ := standtest.MotorSpeeds(r.Func, r.Payload, 0)
	for i := range rps {
		if math.Signbit(rps[i]) != math.Signbit(want[i]) || rps[i] == 0 {
			t.Fatalf("first gamepad frame %v: wheel %d not turning the way forward does (%v)", rps, i+1, want)
		}
	}
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Near(sim.WheelRPS(v)))); !ok {
		t.Fatalf("wheels %v, want %v (vx %.3f m/s from LY %d)", tr.WheelRPS, want, v[0], ly)
	}
	if body := sim.BodyVelocity(s.sim.Truth().WheelRPS); body[0] <= 0 {
		t.Fatalf("body velocity of the wheels %v, want forward", body)
	}
	st = s.state(t)
	if st.PadMode != string(motion.PadDrive) || st.CmdSource != "gamepad" {
		t.Fatalf("driving: pad %q source %q, want drive, gamepad", st.PadMode, st.CmdSource)
	}
	t.Logf("unlocked: first moving frame %s after the second MODE press, wheels at %.3f rps (want %.3f for vx %.3f m/s)",
		testkit.Ms(r.T.Sub(t0)), s.sim.Truth().WheelRPS[0], want[0], v[0])

	// LiDAR silent: gamepad driving is not held by the scan gate.
	seq = s.sim.RxSeq()
	t1 := time.Now()
	if err := s.sim.LidarSilent(true); err != nil {
		t.Fatal(err)
	}
	limit := s.limits.ScanTimeout.Seconds() + 2*tick.Seconds()
	s.waitState(t, 3*time.Second, "scan age past scan_timeout", func(st api.State) bool {
		return st.ScanAgeS != nil && *st.ScanAgeS > limit
	})
	if err := testkit.Always(500*time.Millisecond, func() error {
		if tr := s.sim.Truth(); !standtest.Near(sim.WheelRPS(v))(wheelsOf(tr)) {
			return fmt.Errorf("LiDAR silent %s: wheels %v, want still %v under gamepad driving", testkit.Ms(time.Since(t1)), tr.WheelRPS, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	frames, _ = s.sim.ReceivedSince(seq)
	for _, f := range frames {
		if isStop(f) || !isMoving(f) {
			t.Fatalf("LiDAR silent: a stop or zero frame reached the board %s after the silence", testkit.Ms(f.T.Sub(t1)))
		}
	}
	st = s.state(t)
	if st.Blocked != nil || st.CmdSource != "gamepad" || st.PadMode != string(motion.PadDrive) || st.ScanAgeS == nil {
		t.Fatalf("LiDAR silent: blocked %s source %q pad %q, want not blocked, gamepad, drive", strp(st.Blocked), st.CmdSource, st.PadMode)
	}
	t.Logf("LiDAR silent %s (scan age %.2f s, scan_timeout %v): %d moving frames, no stop, wheels at %.3f rps",
		testkit.Ms(time.Since(t1)), *st.ScanAgeS, s.limits.ScanTimeout, len(frames), s.sim.Truth().WheelRPS[0])

	// Any other button trips the e-stop, even while driving by pad; the stick stays pushed.
	seq = s.sim.RxSeq()
	t2 := time.Now()
	if err := s.sim.HoldButton(board.BtnCross, 1); err != nil {
		t.Fatal(err)
	}
	r, _, ok = s.waitRx(seq, time.Second, stopAfter(t2))
	if !ok {
		t.Fatal("no stop frame within 1 s of CROSS while driving by pad")
	}
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.WheelsStopped)); !ok {
		t.Fatalf("wheels did not stop after CROSS: %v", tr.WheelRPS)
	}
	st = s.waitState(t, time.Second, "pad locked by the e-stop", func(st api.State) bool { return st.PadMode == string(motion.PadLocked) })
	if w := "gamepad button 0x0100"; st.EStop == nil || *st.EStop != w || st.Enabled {
		t.Fatalf("after CROSS: estop %s enabled %v, want %q and disabled", strp(st.EStop), st.Enabled, w)
	}
	time.Sleep(500 * time.Millisecond) // the stick is still forward: nothing may move
	frames, _ = s.sim.ReceivedSince(r.Seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("non-zero motor frame after CROSS's stop frame, stick still forward")
		}
	}
	if tr := s.sim.Truth(); !standtest.WheelsStopped(wheelsOf(tr)) {
		t.Fatalf("wheels %v 0.5 s after the e-stop, stick still forward", tr.WheelRPS)
	}
	t.Logf("CROSS while driving by pad: stop frame %s after the sim was told to press it, pad locked, estop %q",
		testkit.Ms(r.T.Sub(t2)), *st.EStop)
}
