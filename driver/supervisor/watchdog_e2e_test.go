package supervisor_test

// The driver watchdog end to end: `rosorin-base run` with a real driver child, which is SIGSTOPped (alive, not
// exiting, not deciding: the case the crash path cannot see). Timings come from the fake board's or the sim's
// record of frame arrivals.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// The watchdog's default timeout, and the generous slack the assertions allow above it (a 2-core CI machine
// shared with other jobs; the measured figures are logged). Under -race both are widened (testkit.Bound) and
// every service under test runs with --driver-watchdog wdTimeout (startService): a -race driver starved by a
// loaded machine missed its heartbeat by more than 150 ms and was killed, rightly, in tests about other things.
var wdTimeout = testkit.Bound(supervisor.DefaultWatchdogTimeout)

var wdSlack = testkit.Bound(150 * time.Millisecond)

var hungLine = regexp.MustCompile(`driver hung: no control-loop heartbeat for (\d+) ms; stop frame sent; killing pid (\d+)`)

// hungSilences returns the silences (ms) the supervisor logged for each watchdog trip, and the pids.
func hungSilences(log string) (ms []int, pids []int) {
	for _, m := range hungLine.FindAllStringSubmatch(log, -1) {
		a, _ := strconv.Atoi(m[1])
		p, _ := strconv.Atoi(m[2])
		ms, pids = append(ms, a), append(pids, p)
	}
	return ms, pids
}

// quietBeforeKill waits until the driver has run for a while and the last frame it wrote has been read, so
// that a frame read after a SIGSTOP cannot be one it wrote before. Enough for SIGSTOP (a stopped driver
// writes nothing, and the watchdog's frame comes 150 ms later), not for a kill judge: a dead driver's
// supervisor writes the same bytes as a disabled driver's refresh (see e2e_test.go).
func quietBeforeKill(b *boardtest.Board, settle time.Duration) {
	time.Sleep(settle)
	fr := b.Received()
	if len(fr) > 0 {
		if since := time.Since(fr[len(fr)-1].At); since < 20*time.Millisecond {
			time.Sleep(20*time.Millisecond - since)
		}
	}
}

// TestWatchdogSIGSTOP: against a pty: the driver child is SIGSTOPped; a stop frame reaches the board within
// the timeout plus slack (and not before the timeout minus one tick: it is the watchdog's, not a frame of the
// driver's), a second one follows the reap, the stopped child is gone and a new one runs, and the status and
// the log say so. Once: the latency's figures come from ten hangs while driving
// (TestSimWatchdogSIGSTOPWhileDriving), the exact instants and the repeated hangs' restarts from virtual time
// (TestVirtualWatchdog).
func TestWatchdogSIGSTOP(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.Path(), "--lidar", "", "--restart-delay", "200ms")
	const runs = 1
	pid := 0
	var lat []time.Duration
	for i := 0; i < runs; i++ {
		st := s.waitStatus(10*time.Second, "a new driver beating", func(st supervisor.Status) bool {
			return st.DriverPID != 0 && st.DriverPID != pid && st.DriverHeartbeats > 5
		})
		if st.Watchdog != wdTimeout.String() {
			t.Fatalf("status watchdog %q, want %q", st.Watchdog, wdTimeout)
		}
		pid = st.DriverPID
		quietBeforeKill(b, 100*time.Millisecond)
		t0 := time.Now()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		// From 10 ms on: a frame the driver wrote just before the SIGSTOP is read within a millisecond.
		a, ok := waitFrame(b, t0.Add(10*time.Millisecond), wdTimeout+time.Second, boardtest.Received.IsStop)
		if !ok {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("run %d: no stop frame within %v of SIGSTOP of driver pid %d", i+1, wdTimeout+time.Second, pid)
		}
		d := a.At.Sub(t0)
		lat = append(lat, d)
		if d < wdTimeout-25*time.Millisecond || d > wdTimeout+wdSlack {
			t.Errorf("run %d: stop frame %s after SIGSTOP, want in [%s, %s]", i+1, testkit.Ms(d), testkit.Ms(wdTimeout-25*time.Millisecond), testkit.Ms(wdTimeout+wdSlack))
		}
		// The second stop frame follows the reap (the new driver cannot start before the restart delay).
		time.Sleep(testkit.Bound(60 * time.Millisecond))
		if n := countStops(b, a.At.Add(-time.Microsecond)); n < 2 {
			t.Errorf("run %d: %d stop frames from the trip, want 2 (at once, and after the reap)", i+1, n)
		}
		if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
			if alive(pid) {
				return errors.New("alive")
			}
			return nil
		}); err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("run %d: hung driver %d still alive 2 s after the trip", i+1, pid)
		}
	}
	st := s.waitStatus(10*time.Second, "the last driver replaced", func(st supervisor.Status) bool {
		return st.DriverPID != 0 && st.DriverPID != pid && st.DriverHeartbeats > 0
	})
	if st.WatchdogTrips != runs || st.DriverStarts != runs+1 || !strings.Contains(st.DriverLastExit, "killed by SIGKILL (watchdog: driver hung") {
		t.Errorf("status after %d hangs: trips %d, starts %d, last exit %q", runs, st.WatchdogTrips, st.DriverStarts, st.DriverLastExit)
	}
	silences, pids := hungSilences(s.log.String())
	if len(silences) != runs || pids[runs-1] != pid {
		t.Errorf("log has %d 'driver hung' lines (pids %v), want %d ending with pid %d", len(silences), pids, runs, pid)
	}
	t.Logf("fake board: SIGSTOP of the driver -> stop frame %v; supervisor saw silences of %v ms; last exit %q",
		lat, silences, st.DriverLastExit)
}

// TestWatchdogSupervisorPaused: the supervisor itself frozen for 500 ms (its watcher's deadline passes while
// the driver keeps beating into the pipe) must not kill a healthy driver when it resumes: the heartbeats that
// wait in the pipe count.
func TestWatchdogSupervisorPaused(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.Path(), "--lidar", "")
	st := s.waitStatus(10*time.Second, "driver beating", func(st supervisor.Status) bool { return st.DriverHeartbeats > 5 })
	for range 3 {
		if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		time.Sleep(testkit.Bound(500 * time.Millisecond)) // past the watchdog's deadline
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		time.Sleep(300 * time.Millisecond)
	}
	fin := s.waitStatus(3*time.Second, "status after the pauses", func(x supervisor.Status) bool {
		return x.Updated.After(time.Now().Add(-time.Second))
	})
	if fin.WatchdogTrips != 0 || fin.DriverPID != st.DriverPID || fin.DriverStarts != 1 {
		t.Fatalf("supervisor paused 3 x 500 ms: trips %d (%q), driver %d -> %d, starts %d; want no trip",
			fin.WatchdogTrips, fin.LastWatchdog, st.DriverPID, fin.DriverPID, fin.DriverStarts)
	}
	t.Logf("supervisor paused 3 x 500 ms: no trip, driver %d kept, %d heartbeats, longest gap seen %.0f ms",
		fin.DriverPID, fin.DriverHeartbeats, fin.DriverHeartbeatMaxGapMS)
}

// TestWatchdogMachineStall: the whole machine stalls (both processes frozen for 300 ms, as a hypervisor's
// steal or an overload does; seen once on the test VM as a false trip of a healthy driver), the supervisor
// resumes first: it must give the driver time to run before judging it. Negative control: the same stall with
// the driver left frozen is a hang, and is killed after the recheck.
func TestWatchdogMachineStall(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.Path(), "--lidar", "", "--restart-delay", "200ms")
	sup := s.cmd.Process.Pid
	stall := func(drv int, resumeDriver bool) time.Time {
		_ = syscall.Kill(drv, syscall.SIGSTOP)
		_ = syscall.Kill(sup, syscall.SIGSTOP)
		time.Sleep(testkit.Bound(300 * time.Millisecond)) // past the watchdog's deadline
		_ = syscall.Kill(sup, syscall.SIGCONT)
		t1 := time.Now()
		if resumeDriver {
			time.Sleep(5 * time.Millisecond)
			_ = syscall.Kill(drv, syscall.SIGCONT)
		}
		return t1
	}
	st := s.waitStatus(10*time.Second, "driver beating", func(st supervisor.Status) bool { return st.DriverHeartbeats > 5 })
	for range 3 {
		stall(st.DriverPID, true)
		time.Sleep(300 * time.Millisecond)
	}
	mid := s.waitStatus(3*time.Second, "status after the stalls", func(x supervisor.Status) bool {
		return x.Updated.After(time.Now().Add(-time.Second))
	})
	if mid.WatchdogTrips != 0 || mid.DriverPID != st.DriverPID {
		t.Fatalf("3 machine stalls of 300 ms: trips %d (%q), driver %d -> %d; want no trip", mid.WatchdogTrips,
			mid.LastWatchdog, st.DriverPID, mid.DriverPID)
	}
	if mid.WatchdogLateWakes == 0 {
		t.Errorf("no late wake counted: the stalls did not test the recheck (late wakes %d)", mid.WatchdogLateWakes)
	}
	t1 := stall(st.DriverPID, false)
	a, ok := waitFrame(b, t1, 2*time.Second, boardtest.Received.IsStop)
	if !ok {
		_ = syscall.Kill(st.DriverPID, syscall.SIGKILL)
		t.Fatal("driver left frozen after the stall: no stop frame within 2 s")
	}
	fin := s.waitStatus(3*time.Second, "the frozen driver killed", func(x supervisor.Status) bool { return x.WatchdogTrips == 1 })
	t.Logf("3 machine stalls of 300 ms, driver resumed 5 ms after the supervisor: no trip (%d late wakes); driver left frozen: stop frame %s after the supervisor resumed (%s)",
		mid.WatchdogLateWakes, testkit.Ms(a.At.Sub(t1)), fin.LastWatchdog)
	if d := a.At.Sub(t1); d > recheckBound {
		t.Errorf("stop frame %s after the supervisor resumed, want within %s", testkit.Ms(d), testkit.Ms(recheckBound))
	}
}

// recheckBound: after a stall the supervisor rechecks 50 ms later, plus the generous slack.
var recheckBound = 50*time.Millisecond + wdSlack

// TestSimWatchdogSIGSTOPWhileDriving: 10 times (3 under -short), with the wheels turning, the driver is SIGSTOPped: the board's
// stop frame is timed from the sim's record, no motor frame follows it, the wheels' targets are zero, and the
// driver comes back disabled.
func TestSimWatchdogSIGSTOPWhileDriving(t *testing.T) {
	const restartDelay = 20 * time.Millisecond
	s, svc, cl := startSimStack(t, "--restart-delay", restartDelay.String())
	runs := testkit.Reps(10, 3)
	var lat []time.Duration
	pid := 0
	stopSeq := -1
	quick := 0 // hangs in a row within 2 s of the driver's start: each doubles the next restart delay
	for i := 0; i < runs; i++ {
		st := waitDriver(t, cl, pid, 15*time.Second)
		if st.Enabled {
			t.Fatalf("run %d: the driver that replaced the hung one is enabled", i)
		}
		if i > 0 { // the replacement of a hung driver starts latched, saying why
			expectLatched(t, cl, st, "driver restarted after killed by SIGKILL (watchdog: driver hung: no control-loop heartbeat for", true)
		}
		pid = st.PIDs.Driver
		if stopSeq >= 0 { // since the previous trip's stop frame, nothing moved the wheels
			rx, _ := s.ReceivedSince(stopSeq + 1)
			for _, r := range rx {
				if isMovingRx(r) {
					t.Fatalf("run %d: a moving motor frame % x reached the board after the watchdog's stop frame", i, frameBytes(r))
				}
			}
		}
		// A hang within 2 s of a driver's start counts as a crash loop and doubles the restart delay (exactly so
		// in TestVirtualRestartBackoff). Let the doubling run from 20 ms while it is shorter than waiting for
		// the 2 s to pass, then wait once, which starts it over.
		if wait := 2200*time.Millisecond - time.Duration(st.UptimeS*float64(time.Second)); wait <= 0 {
			quick = 0
		} else if restartDelay<<quick > wait {
			time.Sleep(wait)
			quick = 0
		} else {
			quick++
		}
		seq := s.RxSeq()
		stop := drive(t, cl, 0.2)
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Second))
		_, _, err := s.WaitFrameSince(ctx, seq, isMovingRx)
		cancel()
		if err != nil {
			stop()
			t.Fatalf("run %d: no moving motor frame: %v", i, err)
		}
		// Somewhere inside a tick period: the watchdog's latency from the SIGSTOP depends on the phase.
		time.Sleep(60*time.Millisecond + time.Duration(rand.IntN(20))*time.Millisecond)
		seq0 := s.RxSeq()
		t0 := time.Now()
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		ctx, cancel = context.WithTimeout(context.Background(), testkit.Bound(wdTimeout+time.Second))
		r, _, err := s.WaitFrameSince(ctx, seq0, isStopRx)
		cancel()
		stop()
		if err != nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("run %d: no stop frame within %v of SIGSTOP", i, wdTimeout+time.Second)
		}
		stopSeq = r.Seq
		lat = append(lat, r.T.Sub(t0))
		// The sim applies frames at its next physics tick.
		if err := testkit.Eventually(testkit.Bound(100*time.Millisecond), func() error {
			if tr := s.Truth(); tr.TargetRPS != [4]float64{} {
				return fmt.Errorf("wheel targets %v", tr.TargetRPS)
			}
			return nil
		}); err != nil {
			t.Errorf("run %d: after the watchdog's stop: %v", i, err)
		}
	}
	back := waitDriver(t, cl, pid, 15*time.Second)
	if back.Enabled {
		t.Error("the last replacement driver is enabled")
	}
	rx, _ := s.ReceivedSince(stopSeq + 1)
	for _, r := range rx {
		if isMovingRx(r) {
			t.Fatalf("a moving motor frame % x reached the board after the last watchdog stop frame", frameBytes(r))
		}
	}
	sup, _ := svc.status()
	silences, _ := hungSilences(svc.log.String())
	t.Logf("sim, wheels turning: SIGSTOP of the driver -> stop frame received by the board, %d runs: median %s, p99 %s, max %s (min %s); supervisor's silences %v ms; trips %d; replacement drivers disabled",
		runs, testkit.Ms(testkit.Quantile(lat, 0.5)), testkit.Ms(testkit.Quantile(lat, 0.99)), testkit.Ms(testkit.Quantile(lat, 1)), testkit.Ms(testkit.Quantile(lat, 0)),
		silences, sup.WatchdogTrips)
	if m := testkit.Quantile(lat, 1); m > wdTimeout+wdSlack {
		t.Errorf("slowest stop after SIGSTOP %s, bound %s", testkit.Ms(m), testkit.Ms(wdTimeout+wdSlack))
	}
	if sup.WatchdogTrips != uint64(runs) {
		t.Errorf("%d watchdog trips, want %d", sup.WatchdogTrips, runs)
	}
}

// TestSimWatchdogOffNegativeControl: with --driver-watchdog 0 a SIGSTOPped driver leaves the wheels turning:
// no stop frame for 1 s (the detector above can fail), although the status shows its heartbeats stopped.
func TestSimWatchdogOffNegativeControl(t *testing.T) {
	s, svc, cl := startSimStack(t, "--driver-watchdog", "0")
	st := waitDriver(t, cl, 0, 15*time.Second)
	stop := drive(t, cl, 0.2)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Second))
	_, _, err := s.WaitFrameSince(ctx, s.RxSeq(), isMovingRx)
	cancel()
	if err != nil {
		t.Fatal("wheels never commanded to turn")
	}
	time.Sleep(60 * time.Millisecond)
	pid := st.PIDs.Driver
	seq0 := s.RxSeq()
	t0 := time.Now()
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	ctx, cancel = context.WithTimeout(context.Background(), testkit.Bound(time.Second))
	r, _, err := s.WaitFrameSince(ctx, seq0, isStopRx)
	cancel()
	if err == nil {
		t.Fatalf("watchdog off: a stop frame %s after SIGSTOP; the test cannot tell the watchdog's from another", testkit.Ms(r.T.Sub(t0)))
	}
	if tr := s.Truth(); tr.WheelRPS == [4]float64{} {
		t.Errorf("wheels stopped with the driver hung and the watchdog off (truth %+v)", tr)
	}
	sup, _ := svc.status()
	age := sup.Updated.Sub(sup.LastHeartbeatAt)
	if sup.Watchdog != "off" || sup.WatchdogTrips != 0 || sup.DriverPID != pid || !alive(pid) {
		t.Errorf("status %+v: want watchdog off, no trips, the stopped driver %d still there", sup, pid)
	}
	t.Logf("watchdog off: no stop frame for 1 s after SIGSTOP while turning (wheel rps %v); the status's last heartbeat is %s old",
		s.Truth().WheelRPS, testkit.Ms(age))
	// The crash path still works: the kill ends it with a stop frame.
	seq1 := s.RxSeq()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	ctx, cancel = context.WithTimeout(context.Background(), testkit.Bound(time.Second))
	_, _, err = s.WaitFrameSince(ctx, seq1, isStopRx)
	cancel()
	if err != nil {
		t.Error("no stop frame after SIGKILL of the stopped driver")
	}
}

// TestSimWatchdogNoFalseTrips: 20 s of normal running against the sim at full rates, the wheels driven at
// 20 Hz, a state follower, an IMU follower and a CPU burner in this process; in the second half the driver is
// also frozen (SIGSTOP/SIGCONT) for 80 ms every 0.5 s, slow but under the timeout. The watchdog never trips:
// same driver, no supervisor stop frame, the wheels' motor frames keep coming.
func TestSimWatchdogNoFalseTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 20 s")
	}
	testkit.NeedsQuietMachine(t)
	if testkit.RaceEnabled {
		t.Skip("a measurement of heartbeat gaps under load at the default timeout: under -race it measures the detector")
	}
	s, svc, cl := startSimStack(t)
	st := waitDriver(t, cl, 0, 15*time.Second)
	pid := st.PIDs.Driver
	stop := drive(t, cl, 0.1)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = cl.Follow(ctx, api.TopicState, func([]byte) error { return nil }) }()
	go func() { _ = cl.Follow(ctx, api.TopicIMU, func([]byte) error { return nil }) }()
	// Half a core of busy work beside the stack (10 ms on, 10 ms off): a loaded robot computer.
	go func() {
		for ctx.Err() == nil {
			for end := time.Now().Add(10 * time.Millisecond); time.Now().Before(end); {
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	sup0, _ := svc.status()
	time.Sleep(10 * time.Second)
	mid, _ := svc.status()
	var pauses int
	var longest time.Duration // the freezes as this process made them (its own sleep may overrun under load)
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); pauses++ {
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		p0 := time.Now()
		time.Sleep(80 * time.Millisecond)
		_ = syscall.Kill(pid, syscall.SIGCONT)
		longest = max(longest, time.Since(p0))
		time.Sleep(420 * time.Millisecond)
	}
	seq := s.RxSeq()
	ctx2, cancel2 := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
	_, _, err := s.WaitFrameSince(ctx2, seq, isMovingRx)
	cancel2()
	fin, _ := svc.status()
	t.Logf("20 s under load: heartbeats %d, longest gap %.1f ms in the first 10 s (load only), %.1f ms overall (%d SIGSTOP freezes of 80 ms, longest as made %s); trips %d; late wakes %d; supervisor stop frames %d",
		fin.DriverHeartbeats, mid.DriverHeartbeatMaxGapMS, fin.DriverHeartbeatMaxGapMS, pauses, testkit.Ms(longest),
		fin.WatchdogTrips, fin.WatchdogLateWakes, fin.StopFrames)
	if fin.WatchdogTrips != 0 || fin.DriverPID != pid || fin.DriverStarts != 1 {
		t.Fatalf("false trip: trips %d, driver %d -> %d, starts %d, last %q (longest freeze as made %s)", fin.WatchdogTrips,
			pid, fin.DriverPID, fin.DriverStarts, fin.LastWatchdog, testkit.Ms(longest))
	}
	if fin.StopFrames != sup0.StopFrames {
		t.Errorf("supervisor wrote %d stop frames during normal running", fin.StopFrames-sup0.StopFrames)
	}
	if err != nil {
		t.Error("wheels no longer commanded at the end of the run")
	}
	if fin.DriverHeartbeats < 900 {
		t.Errorf("%d heartbeats in over 20 s, want about 50 per second", fin.DriverHeartbeats)
	}
	if fin.DriverHeartbeatMaxGapMS < 80 {
		t.Errorf("longest heartbeat gap %.1f ms, but the driver was frozen for 80 ms: the gap measure is wrong", fin.DriverHeartbeatMaxGapMS)
	}
}
