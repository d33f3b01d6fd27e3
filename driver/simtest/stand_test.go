// The chapter 11 stand harness (its seven checks, run by hand on the robot on its stand) as tests against the
// sim. Each judges motion from the sim's record of received frames and its truth (wheel targets and speeds).

package simtest_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// near: every wheel within 5 % of the sim's own inverse kinematics for v.
func near(v [3]float64) func(sim.Truth) bool {
	want := sim.WheelRPS(v)
	return func(tr sim.Truth) bool {
		for i := range want {
			if math.Abs(tr.WheelRPS[i]-want[i]) > 0.05*math.Abs(want[i]) {
				return false
			}
		}
		return true
	}
}

// TestStandDisabledNothingMoves: at start motion is disabled; a second of 20 Hz commands changes nothing at
// the wheels, while the driver keeps writing (zero) frames at least every 0.2 s.
func TestStandDisabledNothingMoves(t *testing.T) {
	s := sharedStack(t)
	if all, _ := s.sim.ReceivedSince(0); len(all) == 0 || !isStop(all[0]) {
		t.Errorf("the first frame the board ever received is not the stop frame")
	}
	if st := s.state(t); st.Enabled || st.Blocked == nil || *st.Blocked != motion.BlockDisabled {
		t.Fatalf("enabled %v blocked %s, want disabled", st.Enabled, strp(st.Blocked))
	}
	seq := s.sim.RxSeq()
	// A previous test's wheels may still be running down (< 0.01 rps): they may only get slower.
	var was [4]float64
	for i, w := range s.sim.Truth().WheelRPS {
		was[i] = math.Abs(w)
	}
	p := s.publish(t, api.Twist{VX: 0.1})
	end := time.Now().Add(time.Second)
	polls := 0
	for time.Now().Before(end) {
		tr := s.sim.Truth()
		if tr.TargetRPS != [4]float64{} {
			t.Fatalf("wheels commanded while disabled: targets %v", tr.TargetRPS)
		}
		for i, w := range tr.WheelRPS {
			if math.Abs(w) > was[i]+1e-9 {
				t.Fatalf("wheel %d sped up while disabled: %v rps (was %v)", i+1, w, was[i])
			}
		}
		polls++
		time.Sleep(10 * time.Millisecond)
	}
	res, err := p.halt()
	if err != nil || res.Accepted < 10 {
		t.Fatalf("commands did not reach the driver: %+v %v", res, err)
	}
	rep := s.checkFramesSince(t, seq, s.fwdBound, nil)
	if rep.moving != 0 {
		t.Errorf("%d non-zero motor frames while disabled", rep.moving)
	}
	if rep.stops < 4 {
		t.Errorf("%d frames in 1 s while disabled: the 0.2 s refresh is missing", rep.stops)
	}
	if st := s.state(t); st.Enabled || st.BodyVel != [3]float64{} {
		t.Errorf("after commands while disabled: enabled %v body_vel %v", st.Enabled, st.BodyVel)
	}
	t.Logf("disabled: %d commands accepted, %d zero frames received, wheels still at %d truth polls", res.Accepted, rep.stops, polls)
}

// TestStandForwardThenSilenceDeadman: forward 0.1 m/s turns the wheels forward (motors 1, 2 positive on the
// wire, motors 3, 4 mounted mirrored and negative); when the commands stop, the deadman's stop frame comes
// 0.3 s after the last one (plus at most a tick), with the driver still enabled.
func TestStandForwardThenSilenceDeadman(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.1})
	tr, ok := s.waitTruth(3*time.Second, near([3]float64{0.1, 0, 0}))
	if !ok {
		t.Fatalf("wheels did not reach forward 0.1 m/s: targets %v wheels %v (want %v)", tr.TargetRPS, tr.WheelRPS, sim.WheelRPS([3]float64{0.1, 0, 0}))
	}
	w := tr.WheelRPS
	if !(w[0] > 0 && w[1] > 0 && w[2] < 0 && w[3] < 0) {
		t.Fatalf("forward: wire rps %v, want motors 1,2 > 0 and 3,4 < 0", w)
	}
	// The targets are what the driver commanded; the sim's own forward kinematics must read them back exactly.
	if bv := sim.BodyVelocity(tr.TargetRPS); math.Abs(bv[0]-0.1) > 1e-4 || math.Abs(bv[1]) > 1e-4 || math.Abs(bv[2]) > 1e-4 {
		t.Fatalf("the sim's forward kinematics of the wheel targets says %v, want [0.1 0 0]", bv)
	}
	seq := s.sim.RxSeq()
	last := p.silence()
	r, _, ok := s.waitRx(seq, 2*time.Second, stopAfter(last))
	if !ok {
		t.Fatal("no stop frame within 2 s of the last command")
	}
	d := r.T.Sub(last)
	t.Logf("forward 0.1 m/s: wheels %.3f %.3f %.3f %.3f rps; last command -> stop frame %s", w[0], w[1], w[2], w[3], testkit.Ms(d))
	if d < 300*time.Millisecond-10*time.Millisecond || d > 300*time.Millisecond+tick+slack {
		t.Errorf("deadman stop %s after the last command, want 0.3 s plus at most one tick", testkit.Ms(d))
	}
	if tr, ok := s.waitTruth(3*time.Second, wheelsStopped); !ok {
		t.Errorf("wheels not stopped after the deadman: targets %v wheels %v", tr.TargetRPS, tr.WheelRPS)
	}
	if st := s.state(t); !st.Enabled || st.Blocked == nil || *st.Blocked != motion.BlockCmdTimeout {
		t.Errorf("after silence: enabled %v blocked %s, want enabled and %q", st.Enabled, strp(st.Blocked), motion.BlockCmdTimeout)
	}
	p.halt()
}

// TestStandRotateSigns: +0.5 rad/s (counter-clockwise from above). The factory formula gives motors 1 and 2
// (wire ids 0, 1) -wz*k: they are the left wheels, and turn backward (negative, as forward is positive).
// Motors 3 and 4 (ids 2, 3) get -(+wz*k) on the wire: the right wheels, mounted mirrored, so negative on the
// wire is forward for them. The sim's own forward kinematics must read +0.5 rad/s.
func TestStandRotateSigns(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{WZ: 0.5})
	tr, ok := s.waitTruth(3*time.Second, near([3]float64{0, 0, 0.5}))
	if !ok {
		t.Fatalf("wheels did not reach +0.5 rad/s: wheels %v, want %v", tr.WheelRPS, sim.WheelRPS([3]float64{0, 0, 0.5}))
	}
	w := tr.WheelRPS
	left := [2]float64{w[0], w[1]}    // motors 1, 2: wire sign = wheel direction
	right := [2]float64{-w[2], -w[3]} // motors 3, 4: mirrored, wheel direction = -wire
	if !(left[0] < 0 && left[1] < 0) {
		t.Errorf("left wheels (motors 1, 2) at %v rps: want backward", left)
	}
	if !(right[0] > 0 && right[1] > 0) {
		t.Errorf("right wheels (motors 3, 4) at %v rps (wheel direction): want forward", right)
	}
	bv := sim.BodyVelocity(tr.TargetRPS)
	if math.Abs(bv[2]-0.5) > 1e-4 || math.Abs(bv[0]) > 1e-4 || math.Abs(bv[1]) > 1e-4 {
		t.Errorf("the sim's forward kinematics of the wheel targets says %v, want [0 0 +0.5]", bv)
	}
	t.Logf("+0.5 rad/s: wire rps %.4f %.4f %.4f %.4f; left wheels %.4f %.4f (backward), right wheels %.4f %.4f (forward); the targets' body wz %.4f rad/s",
		w[0], w[1], w[2], w[3], left[0], left[1], right[0], right[1], bv[2])
	p.halt()
	s.enable(t, false)
	if tr, ok := s.waitTruth(3*time.Second, wheelsStopped); !ok {
		t.Errorf("wheels not stopped after disable: %v", tr.WheelRPS)
	}
}

// TestStandEStopWhileCommandsKeepComing: the e-stop stops the wheels although commands keep arriving; enable
// is refused with the seed's message until reset; reset leaves motion disabled, and the commands still do not
// move the wheels.
func TestStandEStopWhileCommandsKeepComing(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.2})
	if tr, ok := s.waitTruth(3*time.Second, turning); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	t0 := time.Now()
	rep := s.estop(t, "stand harness")
	if !rep.Success || !strings.HasPrefix(rep.Message, "e-stop latched: estop request from pid") {
		t.Fatalf("estop: %+v", rep)
	}
	r, _, ok := s.waitRx(seq, time.Second, stopAfter(t0))
	if !ok {
		t.Fatal("no stop frame within 1 s of the e-stop")
	}
	sent0 := p.count()
	tr, ok := s.waitTruth(3*time.Second, wheelsStopped)
	if !ok {
		t.Fatalf("wheels did not stop after the e-stop: targets %v wheels %v", tr.TargetRPS, tr.WheelRPS)
	}
	runDown := time.Since(r.T)
	st := s.state(t)
	if st.Enabled || st.EStop == nil || !strings.HasSuffix(*st.EStop, ": stand harness") ||
		st.Blocked == nil || *st.Blocked != motion.BlockEStopPrefix+*st.EStop {
		t.Fatalf("latched state: enabled %v estop %s blocked %s", st.Enabled, strp(st.EStop), strp(st.Blocked))
	}
	reason := *st.EStop
	rep = s.enable(t, true)
	if rep.Success || rep.Message != "refused: e-stop latched ("+reason+")" {
		t.Fatalf("enable while latched: %+v, want refused: e-stop latched (%s)", rep, reason)
	}
	rep = s.reset(t)
	if !rep.Success || rep.Message != "e-stop cleared (was: "+reason+"); motion still disabled" {
		t.Fatalf("reset: %+v", rep)
	}
	st = s.state(t)
	if st.Enabled || st.EStop != nil || st.Blocked == nil || *st.Blocked != motion.BlockDisabled {
		t.Fatalf("after reset: enabled %v estop %s blocked %s, want disabled", st.Enabled, strp(st.EStop), strp(st.Blocked))
	}
	// Commands keep coming after the reset too: half a second in which nothing may move.
	end := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(end) {
		if tr := s.sim.Truth(); tr.TargetRPS != [4]float64{} {
			t.Fatalf("wheel targets %v after reset (motion must stay disabled)", tr.TargetRPS)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n, err := p.count(), p.failed(); n <= sent0+5 || err != nil {
		t.Fatalf("the publisher stopped sending (%d -> %d, %v): the test did not keep the commands coming", sent0, n, err)
	}
	frames, _ := s.sim.ReceivedSince(r.Seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("non-zero motor frame % x after the e-stop's stop frame", frameBytes(f))
		}
	}
	t.Logf("e-stop: stop frame %s after the request; wheels still (< 0.01 rps) %s later; %d commands sent meanwhile, %d zero frames and no other after the stop",
		testkit.Ms(r.T.Sub(t0)), testkit.Ms(runDown), p.count()-sent0, len(frames))
	p.halt()
}

// TestStandGamepadButtonTrips: one frame of a gamepad button (not MODE) latches the e-stop and stops the
// wheels while software commands keep coming.
func TestStandGamepadButtonTrips(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.2})
	if tr, ok := s.waitTruth(3*time.Second, turning); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	t0 := time.Now()
	if err := s.sim.HoldButton(board.BtnCross, 1); err != nil {
		t.Fatal(err)
	}
	r, _, ok := s.waitRx(seq, time.Second, stopAfter(t0))
	if !ok {
		t.Fatal("no stop frame within 1 s of a one-frame gamepad button")
	}
	if tr, ok := s.waitTruth(3*time.Second, wheelsStopped); !ok {
		t.Fatalf("wheels did not stop after the button: %v", tr.WheelRPS)
	}
	want := "gamepad button 0x0100"
	if st := s.state(t); st.EStop == nil || *st.EStop != want || st.Enabled {
		t.Fatalf("estop %s enabled %v, want %q and disabled", strp(st.EStop), st.Enabled, want)
	}
	frames, _ := s.sim.ReceivedSince(r.Seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("non-zero motor frame after the button's stop frame")
		}
	}
	t.Logf("gamepad button 0x0100 (one 20 Hz report): stop frame %s after the sim was told to press it", testkit.Ms(r.T.Sub(t0)))
	p.halt()
}

// TestStandScanGateHoldsAndResumes: LiDAR silence holds software commands within scan_timeout plus one tick
// of the last scan (not latched, still enabled); when scans return, the wheels turn again by themselves.
func TestStandScanGateHoldsAndResumes(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.1})
	if tr, ok := s.waitTruth(3*time.Second, turning); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	t0 := time.Now()
	if err := s.sim.LidarSilent(true); err != nil {
		t.Fatal(err)
	}
	r, _, ok := s.waitRx(seq, 2*time.Second, stopAfter(t0))
	if !ok {
		t.Fatal("wheels not held within 2 s of LiDAR silence")
	}
	st := s.state(t)
	if st.Blocked == nil || *st.Blocked != motion.BlockNoScan || !st.Enabled || st.EStop != nil || st.ScanAgeS == nil {
		t.Fatalf("held state: enabled %v estop %s blocked %s, want enabled, not latched, %q", st.Enabled, strp(st.EStop), strp(st.Blocked), motion.BlockNoScan)
	}
	scanTimeout := s.limits.ScanTimeout
	lastScan := st.Stamp.Add(-time.Duration(*st.ScanAgeS * float64(time.Second)))
	hold := r.T.Sub(lastScan)
	silentAt, err := s.waitEvent("fault lidar-silent=on", t0.Add(-time.Second), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("LiDAR silent: stop frame %s after the last scan reached the driver, %s after the sim went silent (rule: scan_timeout %v plus at most one %v tick)",
		testkit.Ms(hold), testkit.Ms(r.T.Sub(silentAt)), scanTimeout, tick)
	if hold < scanTimeout-10*time.Millisecond || hold > scanTimeout+tick+slack {
		t.Errorf("held %s after the last scan, want scan_timeout plus at most one tick", testkit.Ms(hold))
	}
	if d := r.T.Sub(silentAt); d > scanTimeout+tick+slack {
		t.Errorf("held %s after the LiDAR went silent, want within scan_timeout plus one tick", testkit.Ms(d))
	}
	if tr, ok := s.waitTruth(time.Second, func(tr sim.Truth) bool { return tr.TargetRPS == [4]float64{} }); !ok {
		t.Fatalf("wheel targets %v while held", tr.TargetRPS)
	}
	t1 := time.Now()
	if err := s.sim.LidarSilent(false); err != nil {
		t.Fatal(err)
	}
	r2, _, ok := s.waitRx(r.Seq, 3*time.Second, movingAfter(t1))
	if !ok {
		t.Fatal("wheels did not resume within 3 s of the scans' return")
	}
	if tr, ok := s.waitTruth(3*time.Second, turning); !ok {
		t.Fatalf("wheels not turning again: %v", tr.WheelRPS)
	}
	if st := s.state(t); st.Blocked != nil || !st.Enabled {
		t.Errorf("after the scans returned: enabled %v blocked %s", st.Enabled, strp(st.Blocked))
	}
	t.Logf("LiDAR back: wheels commanded again %s after the sim resumed the scans, nobody asked", testkit.Ms(r2.T.Sub(t1)))
	p.halt()
}

// TestStandGamepadDrivingNotHeldByScanGate: a MODE double press (the driver's deliberate unlock, motion/pad.go)
// puts the pad in drive mode; with the LiDAR silent past scan_timeout the gate does not hold gamepad commands,
// while a software command in the same silence is held ("no scan"). The sticks stay centred here, so the
// gamepad commands are zero and the evidence is the driver's state; pad_drive_test.go turns the wheels.
func TestStandGamepadDrivingNotHeldByScanGate(t *testing.T) {
	s := sharedStack(t)
	defer s.sim.PadConnected(false)
	defer s.sim.LidarSilent(false)
	s.mustEnable(t)
	if err := s.sim.PadConnected(true); err != nil {
		t.Fatal(err)
	}
	st := s.waitState(t, 2*time.Second, "pad connected", func(st api.State) bool { return st.PadConnected })
	mode := uint16(1) << st.Config.PadModeBit
	// The unlock: two MODE presses 0.6-1.5 s apart (lockout 0.6 s, window 1.5 s). The 0.75 s between them is
	// the stimulus, as a thumb would give it, not a wait for anything.
	if err := s.sim.HoldButton(mode, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(750 * time.Millisecond)
	if err := s.sim.HoldButton(mode, 1); err != nil {
		t.Fatal(err)
	}
	s.waitState(t, 2*time.Second, "pad drive mode after a MODE double press", func(st api.State) bool {
		return st.PadMode == string(motion.PadDrive)
	})
	t0 := time.Now()
	if err := s.sim.LidarSilent(true); err != nil {
		t.Fatal(err)
	}
	limit := s.limits.ScanTimeout.Seconds() + 2*tick.Seconds()
	st = s.waitState(t, 3*time.Second, "scan age past scan_timeout", func(st api.State) bool {
		return st.ScanAgeS != nil && *st.ScanAgeS > limit
	})
	if st.Blocked != nil || st.CmdSource != "gamepad" || st.PadMode != string(motion.PadDrive) || !st.Enabled || st.EStop != nil {
		t.Fatalf("gamepad drive, no scan for %.2f s: blocked %s source %q pad %q enabled %v estop %s; want not blocked",
			*st.ScanAgeS, strp(st.Blocked), st.CmdSource, st.PadMode, st.Enabled, strp(st.EStop))
	}
	t.Logf("gamepad drive mode, LiDAR silent %s: scan age %.2f s, blocked null, command source %q", testkit.Ms(time.Since(t0)), *st.ScanAgeS, st.CmdSource)

	// Negative control in the same silence: a software command is held.
	s.enable(t, false) // locks the pad
	s.waitState(t, time.Second, "pad locked by disable", func(st api.State) bool { return st.PadMode == string(motion.PadLocked) })
	s.mustEnable(t)
	seq := s.sim.RxSeq()
	p := s.publish(t, api.Twist{VX: 0.1})
	s.waitState(t, 2*time.Second, "software command held", func(st api.State) bool {
		return st.CmdSource == "software" && st.Blocked != nil && *st.Blocked == motion.BlockNoScan
	})
	end := time.Now().Add(400 * time.Millisecond)
	for time.Now().Before(end) {
		if tr := s.sim.Truth(); tr.TargetRPS != [4]float64{} {
			t.Fatalf("a software command moved the wheels without scans: targets %v", tr.TargetRPS)
		}
		time.Sleep(10 * time.Millisecond)
	}
	frames, _ := s.sim.ReceivedSince(seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("non-zero motor frame without scans from a software command")
		}
	}
	p.halt()
}
