package standtest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

// The suite's checks, one function each (cases in standtest.go lists them): chapter 11's stand checks.

// disabledNothingMoves: at start motion is disabled; 1.5 s of 20 Hz commands change nothing at the wheels,
// while the driver keeps writing zero frames at least every 0.2 s; the first frame of its life is the stop
// frame.
func disabledNothingMoves(t *testing.T, tg Bench) {
	st := state(t, tg)
	if st.Enabled || st.Blocked == nil || *st.Blocked != motion.BlockDisabled {
		t.Fatalf("start state: enabled %v blocked %s, want disabled", st.Enabled, strp(st.Blocked))
	}
	from := tg.Count()
	tr, hasTruth := tg.(Truth)
	var was [4]float64 // a previous case's wheels may still be running down: they may only get slower
	if hasTruth {
		for i, w := range tr.Wheels().WheelRPS {
			was[i] = math.Abs(w)
		}
	}
	p := Publish(t, tg.Client(), api.Twist{VX: 0.1})
	if err := testkit.Always(1500*time.Millisecond, func() error {
		if !hasTruth {
			return nil
		}
		x := tr.Wheels()
		if x.TargetRPS != [4]float64{} {
			return fmt.Errorf("wheels commanded while disabled: targets %v", x.TargetRPS)
		}
		for i, w := range x.WheelRPS {
			if math.Abs(w) > was[i]+1e-9 {
				return fmt.Errorf("wheel %d sped up while disabled: %v rps (was %v)", i+1, w, was[i])
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := p.Halt()
	if err != nil || res.Accepted < 10 {
		t.Fatalf("commands did not reach the driver: %+v %v", res, err)
	}
	fr := tg.Frames(from)
	for _, f := range fr {
		if f.Moving() {
			t.Fatalf("wheels commanded %v while disabled", f.RPS)
		}
	}
	if len(fr) < 5 {
		t.Errorf("only %d frames in 1.5 s while disabled: the 0.2 s refresh is missing", len(fr))
	}
	if st := state(t, tg); st.Enabled || st.BodyVel != [3]float64{} {
		t.Errorf("after commands while disabled: enabled %v body_vel %v", st.Enabled, st.BodyVel)
	}
	t.Logf("disabled: %d commands accepted, %d zero frames received", res.Accepted, len(fr))
	// Checked last: a driver started just now may not have written its first frame when the case begins.
	if all := tg.Frames(0); len(all) == 0 || !board.IsStopFrame(all[0].Raw) {
		t.Errorf("the first frame the board ever received is not the stop frame")
	}
}

// forwardThenSilenceDeadman: forward 0.1 m/s turns the wheels forward (motors 1, 2 positive on the wire,
// motors 3, 4 mounted mirrored and negative); when the commands stop, the deadman's stop frame comes 0.3 s
// after the last one reached the driver, plus at most a tick, with the driver still enabled. The silence is
// kept two ways in turn: the stream stays open, or it is closed (a close must not stop the wheels early: the
// last command holds for cmd_timeout).
func forwardThenSilenceDeadman(t *testing.T, tg Bench) {
	cfg := tg.Config()
	mustEnable(t, tg)
	tr, hasTruth := tg.(Truth)
	runs := cfg.DeadmanRuns
	if testing.Short() {
		runs = min(runs, 5)
	}
	var lat, latArr []time.Duration
	for i := range runs {
		// A random phase between the publisher and the control ticks: the figures then cover the whole tick.
		pause(tg, time.Duration(rand.IntN(20000))*time.Microsecond)
		from := tg.Count()
		p := Publish(t, tg.Client(), api.Twist{VX: 0.1})
		f, ok := WaitFrame(tg, from, time.Second, Frame.Moving)
		if !ok {
			t.Fatalf("run %d: wheels never turned; state %+v", i, state(t, tg))
		}
		if f.RPS[0] <= 0 || f.RPS[1] <= 0 || f.RPS[2] >= 0 || f.RPS[3] >= 0 {
			t.Fatalf("run %d: forward frame %v: want motors 1,2 > 0 and 3,4 < 0 (mirrored mount)", i, f.RPS)
		}
		if hasTruth && i == 0 {
			x, ok := WaitTruth(tr, 3*time.Second, Near(tr.WheelRPS([3]float64{0.1, 0, 0})))
			if !ok {
				t.Fatalf("wheels did not reach forward 0.1 m/s: targets %v wheels %v (want %v)", x.TargetRPS, x.WheelRPS, tr.WheelRPS([3]float64{0.1, 0, 0}))
			}
			if w := x.WheelRPS; !(w[0] > 0 && w[1] > 0 && w[2] < 0 && w[3] < 0) {
				t.Fatalf("forward: wheel rps %v, want motors 1,2 > 0 and 3,4 < 0", w)
			}
			// The targets are what the driver commanded; the sim's own forward kinematics must read them back.
			if bv := tr.BodyVelocity(x.TargetRPS); math.Abs(bv[0]-0.1) > 1e-4 || math.Abs(bv[1]) > 1e-4 || math.Abs(bv[2]) > 1e-4 {
				t.Fatalf("the sim's forward kinematics of the wheel targets says %v, want [0.1 0 0]", bv)
			}
		} else {
			pause(tg, 300*time.Millisecond)
		}
		var last time.Time
		if i%2 == 0 {
			last = p.Silence()
		} else {
			last = p.Close()
		}
		g, ok := WaitFrame(tg, from, 2*time.Second, func(g Frame) bool { return g.At.After(last) && !g.Moving() })
		if !ok {
			t.Fatalf("run %d: no stop frame within 2 s of the last command", i)
		}
		d := g.At.Sub(last)
		lat = append(lat, d)
		if d < 300*time.Millisecond-10*time.Millisecond || d > 300*time.Millisecond+cfg.Tick+cfg.Slack {
			t.Errorf("run %d: deadman stop %s after the last command was sent, want 0.3 s plus at most one tick", i, testkit.Ms(d))
		}
		// The driver's own view: when the last command arrived (state stamp minus cmd_age).
		st := state(t, tg)
		if st.CmdAgeS == nil {
			t.Fatalf("run %d: no cmd_age in the state", i)
		}
		da := g.At.Sub(st.Stamp.Add(-time.Duration(*st.CmdAgeS * float64(time.Second))))
		latArr = append(latArr, da)
		if da < 300*time.Millisecond-2*time.Millisecond {
			t.Errorf("run %d: stopped %s after the command reached the driver: before the 0.3 s deadman (a close must not stop it)", i, testkit.Ms(da))
		}
		if da > 300*time.Millisecond+cfg.Tick+cfg.Slack {
			t.Errorf("run %d: stop frame %s after the last command reached the driver, over 0.3 s + one tick", i, testkit.Ms(da))
		}
		p.Close()
		pause(tg, 100*time.Millisecond)
	}
	t.Logf("deadman: last command sent -> stop frame, %s", testkit.Figures(lat))
	t.Logf("deadman: last command at the driver -> stop frame, %s (rule: 300 ms + at most one %v tick)", testkit.Figures(latArr), cfg.Tick)
	if hasTruth {
		if x, ok := WaitTruth(tr, 3*time.Second, WheelsStopped); !ok {
			t.Errorf("wheels not stopped after the deadman: targets %v wheels %v", x.TargetRPS, x.WheelRPS)
		}
	}
	if st := state(t, tg); !st.Enabled || st.Blocked == nil || *st.Blocked != motion.BlockCmdTimeout {
		t.Errorf("after silence: enabled %v blocked %s, want enabled and %q", st.Enabled, strp(st.Blocked), motion.BlockCmdTimeout)
	}
}

// rotateSigns: +0.5 rad/s (counter-clockwise from above). The factory formula gives motors 1 and 2 (wire ids
// 0, 1) -wz*k: they are the left wheels, and turn backward (negative, as forward is positive). Motors 3 and 4
// (ids 2, 3) get -(+wz*k) on the wire: the right wheels, mounted mirrored, so negative on the wire is forward
// for them. All four wire values are equal: a pure turn. The sim's own forward kinematics must read +0.5 rad/s.
func rotateSigns(t *testing.T, tg Bench) {
	mustEnable(t, tg)
	p := Publish(t, tg.Client(), api.Twist{WZ: 0.5})
	// Ramp: 0.5 rad/s at 2 rad/s² takes 0.25 s.
	want := kinematics.WheelRPS(kinematics.Twist{WZ: 0.5}, kinematics.DefaultGeometry())
	f, ok := WaitFrame(tg, 0, 2*time.Second, func(g Frame) bool { return math.Abs(g.RPS[0]-want[0]) < 1e-4 })
	if !ok {
		t.Fatalf("never reached full +0.5 rad/s; want %v", want)
	}
	for _, v := range f.RPS {
		if !(v < 0) || math.Abs(v-f.RPS[0]) > 1e-6 {
			t.Fatalf("+0.5 rad/s frame %v: want four equal negative wire values (left backward, right forward)", f.RPS)
		}
	}
	t.Logf("+0.5 rad/s -> wire rps %.4f %.4f %.4f %.4f (left backward, right forward)", f.RPS[0], f.RPS[1], f.RPS[2], f.RPS[3])
	tr, ok := tg.(Truth)
	if !ok {
		return
	}
	x, ok := WaitTruth(tr, 3*time.Second, Near(tr.WheelRPS([3]float64{0, 0, 0.5})))
	if !ok {
		t.Fatalf("wheels did not reach +0.5 rad/s: wheels %v, want %v", x.WheelRPS, tr.WheelRPS([3]float64{0, 0, 0.5}))
	}
	w := x.WheelRPS
	left := [2]float64{w[0], w[1]}    // motors 1, 2: wire sign = wheel direction
	right := [2]float64{-w[2], -w[3]} // motors 3, 4: mirrored, wheel direction = -wire
	if !(left[0] < 0 && left[1] < 0) {
		t.Errorf("left wheels (motors 1, 2) at %v rps: want backward", left)
	}
	if !(right[0] > 0 && right[1] > 0) {
		t.Errorf("right wheels (motors 3, 4) at %v rps (wheel direction): want forward", right)
	}
	bv := tr.BodyVelocity(x.TargetRPS)
	if math.Abs(bv[2]-0.5) > 1e-4 || math.Abs(bv[0]) > 1e-4 || math.Abs(bv[1]) > 1e-4 {
		t.Errorf("the sim's forward kinematics of the wheel targets says %v, want [0 0 +0.5]", bv)
	}
	t.Logf("+0.5 rad/s: wheels %.4f %.4f (left, backward), %.4f %.4f (right, forward); the targets' body wz %.4f rad/s",
		left[0], left[1], right[0], right[1], bv[2])
	p.Close()
	enable(t, tg, false)
	if x, ok := WaitTruth(tr, 3*time.Second, WheelsStopped); !ok {
		t.Errorf("wheels not stopped after disable: %v", x.WheelRPS)
	}
}

// estopLatches: the e-stop stops the wheels at once although commands keep arriving; enable is refused with
// the seed's message until reset; reset leaves motion disabled, and the commands still do not move the wheels.
func estopLatches(t *testing.T, tg Bench) {
	cfg := tg.Config()
	mustEnable(t, tg)
	tr, hasTruth := tg.(Truth)
	p := Publish(t, tg.Client(), api.Twist{VX: 0.2})
	cycles := cfg.EStopCycles
	if testing.Short() {
		cycles = min(cycles, 8)
	}
	var lat []time.Duration
	for i := range cycles {
		from := tg.Count()
		if _, ok := WaitFrame(tg, from, 2*time.Second, Frame.Moving); !ok {
			t.Fatalf("cycle %d: wheels not turning before the e-stop; state %+v", i, state(t, tg))
		}
		if hasTruth {
			if x, ok := WaitTruth(tr, 3*time.Second, Turning); !ok {
				t.Fatalf("cycle %d: wheels not turning: %v", i, x.WheelRPS)
			}
		}
		t0 := clockOf(tg).Now()
		rep := Call(t, "estop", func(ctx context.Context) (api.Reply, error) { return tg.Client().EStop(ctx, "stand harness") })
		if !rep.Success || !strings.HasPrefix(rep.Message, "e-stop latched: estop request from pid") {
			t.Fatalf("cycle %d: estop: %+v", i, rep)
		}
		g, ok := WaitFrame(tg, from, time.Second, func(g Frame) bool { return g.At.After(t0) && !g.Moving() })
		if !ok {
			t.Fatalf("cycle %d: no stop frame within 1 s of the e-stop request", i)
		}
		lat = append(lat, g.At.Sub(t0))
		sent0 := p.Count()
		st := state(t, tg)
		if st.Enabled || st.EStop == nil || !strings.HasSuffix(*st.EStop, ": stand harness") ||
			st.Blocked == nil || *st.Blocked != motion.BlockEStopPrefix+*st.EStop || !strings.HasPrefix(*st.Blocked, "estop: estop request") {
			t.Fatalf("cycle %d: latched state: enabled %v estop %s blocked %s", i, st.Enabled, strp(st.EStop), strp(st.Blocked))
		}
		reason := *st.EStop
		// Commands keep coming for 0.3 s: nothing moves.
		pause(tg, 300*time.Millisecond)
		if hasTruth {
			if x, ok := WaitTruth(tr, 3*time.Second, WheelsStopped); !ok {
				t.Fatalf("cycle %d: wheels did not stop after the e-stop: targets %v wheels %v", i, x.TargetRPS, x.WheelRPS)
			}
		}
		if r := enable(t, tg, true); r.Success || r.Message != "refused: e-stop latched ("+reason+")" {
			t.Fatalf("cycle %d: enable while latched: %+v, want refused: e-stop latched (%s)", i, r, reason)
		}
		rr := Call(t, "reset", tg.Client().Reset)
		if !rr.Success || rr.Message != "e-stop cleared (was: "+reason+"); motion still disabled" {
			t.Fatalf("cycle %d: reset: %+v", i, rr)
		}
		if st := state(t, tg); st.Enabled || st.EStop != nil || st.Blocked == nil || *st.Blocked != motion.BlockDisabled {
			t.Fatalf("cycle %d: after reset: enabled %v estop %s blocked %s, want disabled", i, st.Enabled, strp(st.EStop), strp(st.Blocked))
		}
		// Commands keep coming after the reset too: nothing may move (watched for 0.5 s where the wheels' truth
		// is known, 0.1 s of frames otherwise).
		watch := 100 * time.Millisecond
		if hasTruth {
			watch = 500 * time.Millisecond
		}
		if err := testkit.Always(testkit.Bound(watch), func() error {
			if hasTruth {
				if x := tr.Wheels(); x.TargetRPS != [4]float64{} {
					return fmt.Errorf("wheel targets %v after reset (motion must stay disabled)", x.TargetRPS)
				}
			}
			return nil
		}); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		for _, f := range tg.Frames(g.Index) {
			if f.Moving() {
				t.Fatalf("cycle %d: wheels %v after the e-stop's stop frame while commands kept coming", i, f.RPS)
			}
		}
		if n, err := p.Count(), p.Failed(); n <= sent0+5 || err != nil {
			t.Fatalf("cycle %d: the publisher stopped sending (%d -> %d, %v): the test did not keep the commands coming", i, sent0, n, err)
		}
		if i < cycles-1 {
			mustEnable(t, tg)
		}
	}
	p50, p99, mx := testkit.Quantile(lat, 0.5), testkit.Quantile(lat, 0.99), testkit.Quantile(lat, 1)
	t.Logf("e-stop request -> stop frame over %d cycles: median %s, p99 %s, max %s (bounds: p99 %s, max %s)",
		len(lat), testkit.Ms(p50), testkit.Ms(p99), testkit.Ms(mx), testkit.Ms(StopP99Bound), testkit.Ms(StopMaxBound))
	if p99 > StopP99Bound || mx > StopMaxBound {
		t.Errorf("e-stop request -> stop frame p99 %s, max %s; bounds p99 %s, max %s", testkit.Ms(p99), testkit.Ms(mx), testkit.Ms(StopP99Bound), testkit.Ms(StopMaxBound))
	}
}

// gamepadButtonTrips: one report with a gamepad button (not MODE) latches the e-stop and stops the wheels
// while software commands keep coming. MODE alone does not trip (the negative control).
func gamepadButtonTrips(t *testing.T, tg Bench) {
	mustEnable(t, tg)
	p := Publish(t, tg.Client(), api.Twist{VX: 0.2})
	from := tg.Count()
	if _, ok := WaitFrame(tg, from, 2*time.Second, Frame.Moving); !ok {
		t.Fatal("never moved")
	}
	t0 := clockOf(tg).Now()
	tg.PadPress(t, board.BtnCross)
	g, ok := WaitFrame(tg, from, time.Second, func(g Frame) bool { return g.At.After(t0) && !g.Moving() })
	if !ok {
		t.Fatal("a one-report gamepad button press did not stop the wheels within 1 s")
	}
	t.Logf("gamepad button 0x0100 (one report) -> stop frame %s", testkit.Ms(g.At.Sub(t0)))
	if tr, ok := tg.(Truth); ok {
		if x, ok := WaitTruth(tr, 3*time.Second, WheelsStopped); !ok {
			t.Fatalf("wheels did not stop after the button: %v", x.WheelRPS)
		}
	}
	want := "gamepad button 0x0100"
	if st := state(t, tg); st.EStop == nil || *st.EStop != want || st.Enabled {
		t.Fatalf("estop %s enabled %v, want %q and disabled", strp(st.EStop), st.Enabled, want)
	}
	for _, f := range tg.Frames(g.Index) {
		if f.Moving() {
			t.Fatalf("wheels %v after the button's stop frame", f.RPS)
		}
	}
	p.Close()
	// MODE alone does not trip. The observation lasts past the pad's 1.5 s unlock window, so that this press
	// cannot pair with a MODE press of the next case (it would unlock, and that case's double press lock again).
	Call(t, "reset", tg.Client().Reset)
	mustEnable(t, tg)
	mode := uint16(1) << state(t, tg).Config.PadModeBit
	tg.PadPress(t, mode)
	pause(tg, testkit.Bound(100*time.Millisecond))
	if st := state(t, tg); st.EStop != nil {
		t.Fatalf("MODE tripped: %s", *st.EStop)
	}
	pause(tg, motion.DefaultPadConfig().UnlockWindow)
	if st := state(t, tg); st.EStop != nil || st.PadMode == string(motion.PadDrive) {
		t.Fatalf("one MODE press: estop %s, pad %q; want neither a trip nor drive mode", strp(st.EStop), st.PadMode)
	}
}

// scanGateHoldsAndResumes: LiDAR silence holds software commands within scan_timeout plus one tick of the
// last scan (not latched, still enabled, logged once); when scans return, the wheels turn again by themselves
// (logged once).
func scanGateHoldsAndResumes(t *testing.T, tg Bench) {
	cfg := tg.Config()
	mustEnable(t, tg)
	tr, hasTruth := tg.(Truth)
	p := Publish(t, tg.Client(), api.Twist{VX: 0.1})
	defer p.Close()
	if _, ok := WaitFrame(tg, 0, 2*time.Second, Frame.Moving); !ok {
		t.Fatalf("never moved; state %+v", state(t, tg))
	}
	if hasTruth {
		if x, ok := WaitTruth(tr, 3*time.Second, Turning); !ok {
			t.Fatalf("wheels not turning: %v", x.WheelRPS)
		}
	}
	from := tg.Count()
	t0 := clockOf(tg).Now()
	lastSent := tg.Scans(t, false)
	g, ok := WaitFrame(tg, from, 2*time.Second, func(g Frame) bool { return g.At.After(t0) && !g.Moving() })
	if !ok {
		t.Fatal("wheels not held within 2 s of LiDAR silence")
	}
	st := state(t, tg)
	if st.Blocked == nil || *st.Blocked != motion.BlockNoScan || !st.Enabled || st.EStop != nil || st.ScanAgeS == nil {
		t.Fatalf("held state: enabled %v estop %s blocked %s, want enabled, not latched, %q", st.Enabled, strp(st.EStop), strp(st.Blocked), motion.BlockNoScan)
	}
	scanTimeout := time.Duration(st.Config.ScanTimeoutS * float64(time.Second))
	lastScan := st.Stamp.Add(-time.Duration(*st.ScanAgeS * float64(time.Second)))
	hold := g.At.Sub(lastScan)
	t.Logf("LiDAR silent: stop frame %s after the last scan reached the driver, %s after the silence began (rule: scan_timeout %v plus at most one %v tick)",
		testkit.Ms(hold), testkit.Ms(g.At.Sub(t0)), scanTimeout, cfg.Tick)
	if hold < scanTimeout-10*time.Millisecond || hold > scanTimeout+cfg.Tick+cfg.Slack {
		t.Errorf("held %s after the last scan, want scan_timeout plus at most one tick", testkit.Ms(hold))
	}
	if d := g.At.Sub(t0); d > scanTimeout+cfg.Tick+cfg.Slack {
		t.Errorf("held %s after the LiDAR went silent, want within scan_timeout plus one tick", testkit.Ms(d))
	}
	if !lastSent.IsZero() {
		if d := g.At.Sub(lastSent); d < scanTimeout-5*time.Millisecond || d > scanTimeout+cfg.Tick+cfg.Slack {
			t.Errorf("held %s after the last scan was sent, want scan_timeout plus at most one tick", testkit.Ms(d))
		}
	}
	if hasTruth {
		if x, ok := WaitTruth(tr, time.Second, func(x Wheels) bool { return x.TargetRPS == [4]float64{} }); !ok {
			t.Fatalf("wheel targets %v while held", x.TargetRPS)
		}
	}
	if n := tg.LogCount("wheels held: no LiDAR scan for"); n != 1 {
		t.Errorf("hold logged %d times, want once", n)
	}
	t1 := clockOf(tg).Now()
	tg.Scans(t, true)
	h, ok := WaitFrame(tg, g.Index, 3*time.Second, func(h Frame) bool { return h.At.After(t1) && h.Moving() })
	if !ok {
		t.Fatal("wheels did not resume within 3 s of the scans' return")
	}
	t.Logf("LiDAR back: wheels commanded again %s later, nobody asked", testkit.Ms(h.At.Sub(t1)))
	if hasTruth {
		if x, ok := WaitTruth(tr, 3*time.Second, Turning); !ok {
			t.Fatalf("wheels not turning again: %v", x.WheelRPS)
		}
	}
	if err := testkit.Eventually(testkit.Bound(time.Second), func() error {
		if n := tg.LogCount("LiDAR scan back: wheels released"); n != 1 {
			return fmt.Errorf("release logged %d times, want once", n)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}
	if st := state(t, tg); st.Blocked != nil || !st.Enabled || st.PIDs.LidarReader != cfg.ReaderPID || st.ScansHz <= 0 {
		t.Errorf("after the scans returned: enabled %v blocked %s reader pid %d (want %d) scans_hz %v",
			st.Enabled, strp(st.Blocked), st.PIDs.LidarReader, cfg.ReaderPID, st.ScansHz)
	}
}

// gamepadDrivingNotHeldByScanGate: a MODE double press (the driver's deliberate unlock, motion/pad.go) puts
// the pad in drive mode; with the LiDAR silent past scan_timeout the gate does not hold gamepad commands:
// centred sticks leave the driver not blocked with command source "gamepad", a stick forward turns the
// wheels. A software command in the same silence is held ("no scan"): the negative control.
func gamepadDrivingNotHeldByScanGate(t *testing.T, tg Bench) {
	cfg := tg.Config()
	mustEnable(t, tg)
	tg.PadConnected(t, true)
	defer tg.PadConnected(t, false)
	st := waitState(t, tg, 2*time.Second, "pad connected", func(st api.State) bool { return st.PadConnected })
	mode := uint16(1) << st.Config.PadModeBit
	// The unlock: two MODE presses 0.6-1.5 s apart (lockout 0.6 s, window 1.5 s). The 0.75 s between them is
	// the stimulus, as a thumb would give it, not a wait for anything.
	tg.PadPress(t, mode)
	pause(tg, 750*time.Millisecond)
	tg.PadPress(t, mode)
	waitState(t, tg, 2*time.Second, "pad drive mode after a MODE double press", func(st api.State) bool {
		return st.PadMode == string(motion.PadDrive)
	})
	t0 := clockOf(tg).Now()
	tg.Scans(t, false)
	limit := st.Config.ScanTimeoutS + 2*cfg.Tick.Seconds()
	st = waitState(t, tg, 3*time.Second, "scan age past scan_timeout", func(st api.State) bool {
		return st.ScanAgeS != nil && *st.ScanAgeS > limit
	})
	if st.Blocked != nil || st.CmdSource != "gamepad" || st.PadMode != string(motion.PadDrive) || !st.Enabled || st.EStop != nil {
		t.Fatalf("gamepad drive, no scan for %.2f s: blocked %s source %q pad %q enabled %v estop %s; want not blocked",
			*st.ScanAgeS, strp(st.Blocked), st.CmdSource, st.PadMode, st.Enabled, strp(st.EStop))
	}
	t.Logf("gamepad drive mode, LiDAR silent %s: scan age %.2f s, blocked null, command source %q", testkit.Ms(clockOf(tg).Now().Sub(t0)), *st.ScanAgeS, st.CmdSource)
	from := tg.Count()
	tg.PadStick(t, 100)
	f, ok := WaitFrame(tg, from, 2*time.Second, Frame.Moving)
	tg.PadStick(t, 0)
	if !ok {
		t.Fatalf("gamepad driving held without scans; state %+v", state(t, tg))
	}
	if f.RPS[0] <= 0 {
		t.Fatalf("stick forward gave %v", f.RPS)
	}

	// Negative control in the same silence: a software command is held.
	enable(t, tg, false) // locks the pad
	waitState(t, tg, time.Second, "pad locked by disable", func(st api.State) bool { return st.PadMode == string(motion.PadLocked) })
	mustEnable(t, tg)
	from = tg.Count()
	p := Publish(t, tg.Client(), api.Twist{VX: 0.1})
	waitState(t, tg, 2*time.Second, "software command held", func(st api.State) bool {
		return st.CmdSource == "software" && st.Blocked != nil && *st.Blocked == motion.BlockNoScan
	})
	tr, hasTruth := tg.(Truth)
	if err := testkit.Always(500*time.Millisecond, func() error {
		if hasTruth {
			if x := tr.Wheels(); x.TargetRPS != [4]float64{} {
				return fmt.Errorf("a software command moved the wheels without scans: targets %v", x.TargetRPS)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	p.Close()
	for _, g := range tg.Frames(from) {
		if g.Moving() {
			t.Fatalf("software command moved the wheels without scans: %v", g.RPS)
		}
	}
}
