// Device faults while the wheels turn: the board's USB drops for 3 s and 8 s; the LiDAR is unplugged and its
// reader is killed. Nobody helps: the stack must recover by itself.

package simtest_test

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

func TestUSBDrop3s(t *testing.T) { testUSBDrop(t, 3*time.Second) }

func TestUSBDrop8s(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 8 s drop")
	}
	testUSBDrop(t, 8*time.Second)
}

// testUSBDrop: while the wheels turn the board vanishes for d. Nothing can stop the wheels meanwhile (the sim,
// like the board, has no watchdog) and the supervisor says so (status "gone" with a warning, the driver child
// stopped, one ERROR line); the first frame the returned board receives is the stop frame; the driver comes
// back, disabled and latched. These are the only USB drops among the driver's tests (docs/supervisor.md).
func testUSBDrop(t *testing.T, d time.Duration) {
	s := sharedStack(t)
	st0 := s.state(t)
	logOff := s.log.Len()
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.2})
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	tDrop := time.Now()
	if err := s.sim.USBDrop(d); err != nil {
		t.Fatal(err)
	}
	// While the device is gone (the sim's truth lists "usb-drop"), the wheels keep their speed.
	polls, statusGone, driverStopped := 0, false, false
	for {
		tr := s.sim.Truth()
		if !slices.Contains(tr.Faults, "usb-drop") {
			break
		}
		if !standtest.Turning(wheelsOf(tr)) {
			t.Fatalf("wheels stopped while the board was gone (%v): nothing can have stopped them", tr.WheelRPS)
		}
		if sup, err := supervisor.ReadStatus(s.Socket); err == nil && sup.Port == supervisor.PortGone {
			if strings.Contains(sup.Warning, "nothing can stop") {
				statusGone = true
			}
			if sup.DriverPID == 0 {
				driverStopped = true
			}
		}
		if time.Since(tDrop) > d+testkit.Bound(5*time.Second) {
			t.Fatalf("the board did not come back within %v", d+testkit.Bound(5*time.Second))
		}
		polls++
		time.Sleep(20 * time.Millisecond)
	}
	if !statusGone {
		t.Error("the supervisor's status never said the port was gone (with a warning \"nothing can stop\") during the drop")
	}
	if !driverStopped {
		t.Error("the supervisor's status never showed the driver child stopped while the port was gone")
	}
	tBack, err := s.waitEvent("board device back", tDrop, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r, _, ok := s.waitRx(seq, 3*time.Second, func(r sim.Received) bool { return !r.T.Before(tBack) })
	if !ok {
		t.Fatal("no frame within 3 s of the board's return")
	}
	if !isStop(r) {
		t.Fatalf("first frame after the return is % x, want the stop frame", frameBytes(r))
	}
	lat := r.T.Sub(tBack)
	back, err := s.ready(st0.PIDs.Driver, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The driver comes back disabled and latched: a restart after a USB drop keeps the wheels locked until a
	// person resets (driver/doc.go, "latched restart").
	if back.Enabled || back.EStop == nil || *back.EStop != "board port reopened after USB drop" {
		t.Errorf("driver back after the drop: enabled %v estop %q, want disabled and latched with %q",
			back.Enabled, strp(back.EStop), "board port reopened after USB drop")
	}
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.WheelsStopped)); !ok {
		t.Errorf("wheels after the return: targets %v wheels %v", tr.TargetRPS, tr.WheelRPS)
	}
	frames, _ := s.sim.ReceivedSince(r.Seq)
	for _, f := range frames {
		if isMoving(f) {
			t.Fatalf("non-zero frame % x after the return (the driver must come back disabled)", frameBytes(f))
		}
	}
	gap, _ := s.sim.ReceivedSince(seq)
	for _, f := range gap {
		if f.T.After(tDrop.Add(100*time.Millisecond)) && f.T.Before(tBack) {
			t.Errorf("frame received at %s while the device was gone", f.T.Format("15:04:05.000"))
		}
	}
	if sup, err := supervisor.ReadStatus(s.Socket); err != nil || sup.DriverStartLatched != "board port reopened after USB drop" {
		t.Errorf("status after the return: driver started latched %q (%v), want %q", sup.DriverStartLatched, err, "board port reopened after USB drop")
	}
	if n := strings.Count(s.log.From(logOff), "BOARD PORT LOST"); n != 1 {
		t.Errorf("%d BOARD PORT LOST lines in the supervisor's log, want 1", n)
	}
	p.Halt()
	t.Logf("USB drop %v while turning: wheels turning at all %d polls during the drop; device back %.3f s after the drop; stop frame %s after the return (the first frame); driver back (pid %d -> %d), disabled",
		d, polls, tBack.Sub(tDrop).Seconds(), testkit.Ms(lat), st0.PIDs.Driver, back.PIDs.Driver)
	if lat > testkit.Bound(300*time.Millisecond) {
		t.Errorf("stop frame %s after the device returned, want within 300 ms (the supervisor reopens every 10 ms)", testkit.Ms(lat))
	}
}

// TestLidarReaderKillAndUnplug: the reader is SIGKILLed, then the LiDAR is unplugged for 2 s, while software
// commands drive the wheels. Each time the scan gate holds the wheels, and each time the scans (and with them
// the wheels) come back with nobody's help; the driver is never replaced.
func TestLidarReaderKillAndUnplug(t *testing.T) {
	s := sharedStack(t)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.1})
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	st := s.state(t)
	drv, reader := st.PIDs.Driver, st.PIDs.LidarReader

	seq := s.sim.RxSeq()
	t0 := time.Now()
	kill(t, reader, syscall.SIGKILL)
	hold, _, ok := s.waitRx(seq, 2*time.Second, stopAfter(t0))
	if !ok {
		t.Fatal("wheels not held within 2 s of the reader's SIGKILL")
	}
	res, _, ok := s.waitRx(hold.Seq, 8*time.Second, movingAfter(hold.T))
	if !ok {
		t.Fatalf("wheels not released within 8 s of the hold after a reader SIGKILL; state blocked %s", strp(s.state(t).Blocked))
	}
	st = s.state(t)
	if st.PIDs.LidarReader == 0 || st.PIDs.LidarReader == reader || st.PIDs.Driver != drv {
		t.Errorf("after the reader kill: reader pid %d (was %d), driver %d (was %d)", st.PIDs.LidarReader, reader, st.PIDs.Driver, drv)
	}
	t.Logf("reader SIGKILL (pid %d): wheels held %s later, turning again %s after the kill (respawn delay 2 s); new reader pid %d",
		reader, testkit.Ms(hold.T.Sub(t0)), testkit.Ms(res.T.Sub(t0)), st.PIDs.LidarReader)
	if d := res.T.Sub(t0); d < 2*time.Second || d > testkit.Bound(5*time.Second) {
		t.Errorf("wheels back %s after the reader kill, want about the 2 s respawn delay plus a revolution", testkit.Ms(d))
	}

	seq = s.sim.RxSeq()
	t1 := time.Now()
	if err := s.sim.LidarUnplug(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	hold, _, ok = s.waitRx(seq, 2*time.Second, stopAfter(t1))
	if !ok {
		t.Fatal("wheels not held within 2 s of the LiDAR unplug")
	}
	tBack, err := s.waitEvent("LiDAR device back", t1, 6*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	res, _, ok = s.waitRx(hold.Seq, 8*time.Second, movingAfter(tBack))
	if !ok {
		t.Fatalf("wheels not released within 8 s of the LiDAR's return; state blocked %s", strp(s.state(t).Blocked))
	}
	st = s.state(t)
	if st.PIDs.Driver != drv {
		t.Errorf("driver replaced by a LiDAR unplug (pid %d -> %d)", drv, st.PIDs.Driver)
	}
	t.Logf("LiDAR unplug 2 s: wheels held %s later; device back after %s; wheels turning again %s after its return",
		testkit.Ms(hold.T.Sub(t1)), testkit.Ms(tBack.Sub(t1)), testkit.Ms(res.T.Sub(tBack)))
	if d := res.T.Sub(tBack); d > testkit.Bound(5*time.Second) {
		t.Errorf("wheels back %s after the LiDAR returned, want within 5 s", testkit.Ms(d))
	}
	p.Halt()
}
