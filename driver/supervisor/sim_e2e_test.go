package supervisor_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// The full stack against the simulated robot: `rosorin-base run` with the real driver and LiDAR reader, the
// sim's board and LiDAR behind ptys, timings taken from the sim's record of frame arrivals.

// startSimStack starts the sim's stand and `rosorin-base run` on it with the robot's configuration (the one
// robot starter, stacktest.NewSim over internal/simrobot), ready once scans flow; the test's end stops both.
func startSimStack(t *testing.T, args ...string) (*sim.Sim, *service, *api.Client) {
	t.Helper()
	// --contact log: on the stand every spin is a contact (docs/contact.md); these tests are about the supervisor.
	args = append([]string{"--contact", "log"}, args...)
	if testkit.RaceEnabled && !slices.Contains(args, "--driver-watchdog") {
		args = append(args, "--driver-watchdog", wdTimeout.String()) // as startService does
	}
	st := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 1}, stacktest.Options{Bin: rosorinBase, Config: stacktest.RobotConfig, Args: args})
	svc := &service{t: t, svc: st.Service, cmd: st.Cmd, socket: st.Socket, log: st.Log, done: st.Done()}
	return st.Sim, svc, st.Client
}

// waitDriver waits until a driver other than notPID answers with scans flowing and a live board link
// (stacktest.Scanning); it returns its state.
func waitDriver(t *testing.T, cl *api.Client, notPID int, timeout time.Duration) api.State {
	t.Helper()
	var st api.State
	if err := testkit.Eventually(testkit.Bound(timeout), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
		defer cancel()
		var err error
		if st, err = cl.State(ctx); err != nil {
			return err
		}
		return stacktest.Scanning(notPID)(st)
	}); err != nil {
		t.Fatalf("no driver (other than pid %d) with scans: %v", notPID, err)
	}
	return st
}

func frameBytes(r sim.Received) []byte {
	b, _ := board.EncodeFrame(r.Func, r.Payload)
	return b
}

func isStopRx(r sim.Received) bool { return board.IsStopFrame(frameBytes(r)) }

func isMovingRx(r sim.Received) bool {
	if r.Func != board.FuncMotor {
		return false
	}
	m, err := board.DecodeMotor(r.Payload)
	if err != nil {
		return false
	}
	for _, sp := range m.Speeds {
		if sp.RPS != 0 {
			return true
		}
	}
	return false
}

// waitMoving waits for a moving motor frame at the board and returns its sequence number.
func waitMoving(t *testing.T, s *sim.Sim) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Second))
	defer cancel()
	r, _, err := s.WaitFrameSince(ctx, s.RxSeq(), isMovingRx)
	if err != nil {
		t.Fatalf("wheels never commanded to turn: %v", err)
	}
	time.Sleep(60 * time.Millisecond) // mid-stream: a few more moving frames
	return r.Seq
}

// stopAfterMoving is the kill judge on the sim's record from seq on: the first zero motor frame (the stop
// frame's bytes) received after t0, and whether the motor frame the board received just before it was a
// moving one. Only then can the zero frame be told from a disabled driver's refresh, which is the same bytes.
func stopAfterMoving(s *sim.Sim, seq int, t0 time.Time) (stop sim.Received, found, afterMoving bool) {
	rx, _ := s.ReceivedSince(seq)
	prevMoving := false
	for _, r := range rx {
		if r.Func != board.FuncMotor {
			continue
		}
		if r.T.After(t0) && isStopRx(r) {
			return r, true, prevMoving
		}
		prevMoving = isMovingRx(r)
	}
	return sim.Received{}, false, false
}

// waitStopAfterMoving waits up to timeout for stopAfterMoving's zero frame; ok is false when none came or when
// the frame before it was not a moving one (the test then cannot tell who wrote it).
func waitStopAfterMoving(t *testing.T, s *sim.Sim, seq int, t0 time.Time, timeout time.Duration) (sim.Received, bool) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(timeout))
	for {
		r, found, moving := stopAfterMoving(s, seq, t0)
		if found {
			if !moving {
				t.Errorf("the first zero frame after the trigger (%s) did not follow a moving frame", testkit.Ms(r.T.Sub(t0)))
			}
			return r, moving
		}
		if time.Now().After(deadline) {
			return sim.Received{}, false
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Until(deadline))
		_, _, _ = s.WaitFrameSince(ctx, s.RxSeq(), isStopRx)
		cancel()
	}
}

// drive enables motion and publishes vx at 20 Hz on one stream until stop() or the stream breaks.
func drive(t *testing.T, cl *api.Client, vx float64) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if r, err := cl.Enable(ctx, true); err != nil || !r.Success {
		cancel()
		t.Fatalf("enable: %+v %v", r, err)
	}
	st, err := cl.StreamCmdVel(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(50 * time.Millisecond)
		defer tk.Stop()
		for {
			if st.Send(api.Twist{VX: vx}) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
			}
		}
	}()
	return func() { cancel(); wg.Wait(); _, _ = st.Close() }
}

// TestSimDriverKillWhileDriving: 20 times (5 under -short), the wheels are turning (non-zero motor frames reach the board), the
// driver gets SIGKILL, and the first zero frame after the kill, which must follow a moving frame, is timed
// from the sim's record; the supervisor's crash-path write puts a second stop frame right behind it. Each
// replacement driver starts latched ("driver restarted after killed by SIGKILL") and is reset before driving.
func TestSimDriverKillWhileDriving(t *testing.T) {
	// A SIGKILL is not a crash loop (no back-off): each replacement starts 20 ms after the reap.
	s, svc, cl := startSimStack(t, "--restart-delay", "20ms")
	kills := testkit.Reps(20, 5)
	var lat []time.Duration
	pid := 0
	for i := 0; i < kills; i++ {
		st := waitDriver(t, cl, pid, 10*time.Second)
		pid = st.PIDs.Driver
		if st.Enabled {
			t.Fatalf("kill %d: the restarted driver is enabled", i)
		}
		if i > 0 { // a restart after a SIGKILL starts latched: reset before driving again
			expectLatched(t, cl, st, "driver restarted after killed by SIGKILL", false)
		}
		stop := drive(t, cl, 0.2)
		seq0 := waitMoving(t, s)
		t0 := time.Now()
		_ = syscall.Kill(pid, syscall.SIGKILL)
		r, ok := waitStopAfterMoving(t, s, seq0, t0, time.Second)
		stop()
		if !ok {
			t.Fatalf("kill %d: no stop frame after a moving one within 1 s of SIGKILL", i)
		}
		lat = append(lat, r.T.Sub(t0))
		next, _, err := s.WaitFrameSince(context.Background(), r.Seq+1, nil)
		if err != nil || !isStopRx(next) || next.T.Sub(r.T) > testkit.Bound(10*time.Millisecond) {
			t.Fatalf("kill %d: the frame after the first stop frame is % x, %s later; want the crash path's second stop frame",
				i, frameBytes(next), testkit.Ms(next.T.Sub(r.T)))
		}
	}
	t.Logf("sim, wheels turning: SIGKILL of the driver -> first zero frame after a moving one, received by the board, %d kills: median %s, p99 %s, max %s; each followed by a second stop frame",
		kills, testkit.Ms(testkit.Quantile(lat, 0.5)), testkit.Ms(testkit.Quantile(lat, 0.99)), testkit.Ms(testkit.Quantile(lat, 1)))
	if m := testkit.Quantile(lat, 1); m > killBound {
		t.Errorf("slowest stop after SIGKILL %s, bound %s", testkit.Ms(m), testkit.Ms(killBound))
	}
	time.Sleep(100 * time.Millisecond) // the sim applies received frames at its next physics tick
	if tr := s.Truth(); tr.TargetRPS != [4]float64{} {
		t.Errorf("wheel targets after the last kill: %v", tr.TargetRPS)
		for _, r := range s.Received()[max(0, s.RxSeq()-20):] {
			t.Logf("%s % x", r.T.Format("15:04:05.000000"), frameBytes(r))
		}
	}
	sup := svc.waitStatus(10*time.Second, "the last driver back", func(x supervisor.Status) bool {
		return x.DriverPID != 0 && x.DriverPID != pid
	})
	if sup.DriverStarts != kills+1 || !strings.Contains(sup.DriverLastExit, "SIGKILL") {
		t.Errorf("status after %d kills: %d driver starts, last exit %q, last stop %q", kills, sup.DriverStarts, sup.DriverLastExit, sup.LastStop)
	}
}

// TestSimReaderKillAndUnplug: a reader SIGKILL and a LiDAR unplug: scans reach the driver again without help,
// and the driver is never restarted by either.
func TestSimReaderKillAndUnplug(t *testing.T) {
	s, svc, cl := startSimStack(t)
	st := waitDriver(t, cl, 0, 10*time.Second)
	// scanFresh waits for a scan that arrived at the driver after `after`; it returns when, relative to ref.
	scanFresh := func(ref, after time.Time, timeout time.Duration) (time.Duration, bool) {
		err := testkit.Eventually(testkit.Bound(timeout), func() error {
			x, err := cl.State(context.Background())
			if err == nil && x.ScanAgeS != nil && time.Now().Add(-time.Duration(*x.ScanAgeS*float64(time.Second))).After(after) {
				return nil
			}
			return errors.New("no fresh scan")
		})
		return time.Since(ref), err == nil
	}
	t0 := time.Now()
	_ = syscall.Kill(st.PIDs.LidarReader, syscall.SIGKILL)
	kd, ok := scanFresh(t0, t0.Add(500*time.Millisecond), 6*time.Second)
	if !ok {
		t.Fatal("no scan within 6 s of a reader SIGKILL")
	}
	t1 := time.Now()
	if err := s.LidarUnplug(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	ud, ok := scanFresh(t1.Add(2*time.Second), t1.Add(2*time.Second), 6*time.Second)
	if !ok {
		t.Fatal("no scan within 6 s of the LiDAR's return")
	}
	x, _ := cl.State(context.Background())
	if x.PIDs.Driver != st.PIDs.Driver {
		t.Errorf("driver restarted (pid %d -> %d)", st.PIDs.Driver, x.PIDs.Driver)
	}
	sup, _ := svc.status()
	t.Logf("reader SIGKILL: scans at the driver again %.2f s later (respawn delay 2 s); LiDAR unplug 2 s: scans again %.2f s after the return; reader starts %d",
		kd.Seconds(), ud.Seconds(), sup.ReaderStarts)
	if kd > testkit.Bound(4*time.Second) || kd < 2*time.Second {
		t.Errorf("scans back %.2f s after a reader SIGKILL, want about 2 s respawn + one revolution", kd.Seconds())
	}
}

// TestSimResources: CPU and resident memory of the three processes with the sim at full rates (IMU 110 Hz,
// LiDAR 10 Hz, scans into the driver, a state follower at 10 Hz), wheels commanded.
func TestSimResources(t *testing.T) {
	testkit.SkipShort(t, "a 10 s measurement of CPU and memory")
	testkit.NeedsQuietMachine(t)
	if testkit.RaceEnabled {
		t.Skip("a measurement of CPU and memory: a -race build costs several times both")
	}
	_, svc, cl := startSimStack(t)
	st := waitDriver(t, cl, 0, 10*time.Second)
	stop := drive(t, cl, 0.1)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = cl.Follow(ctx, api.TopicState, func([]byte) error { return nil }) }()
	time.Sleep(time.Second)
	pids := map[string]int{"supervisor": svc.cmd.Process.Pid, "driver": st.PIDs.Driver, "reader": st.PIDs.LidarReader}
	before := map[string]uint64{}
	for k, p := range pids {
		before[k] = cpuTicks(p)
	}
	const window = 10 * time.Second
	time.Sleep(window)
	var parts []string
	for _, k := range []string{"supervisor", "driver", "reader"} {
		p := pids[k]
		cpu := float64(cpuTicks(p)-before[k]) / 100 / window.Seconds() * 100 // USER_HZ = 100
		rss := rssKB(p)
		parts = append(parts, fmt.Sprintf("%s %.1f %% CPU, %.1f MB RSS", k, cpu, float64(rss)/1024))
		if cpu > 50 || rss > 100*1024 {
			t.Errorf("%s: %.1f %% CPU, %d kB RSS", k, cpu, rss)
		}
	}
	t.Logf("sim at full rates, %v: %s", window, strings.Join(parts, "; "))
}

// cpuTicks is the process's CPU time (user + kernel) in clock ticks, 0 when it cannot be read.
func cpuTicks(pid int) uint64 {
	st, err := procfs.ReadStat(pid)
	if err != nil {
		return 0
	}
	return st.UTime + st.STime
}

func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// TestSimFakeScansRefused: the LiDAR reader is dead (SIGKILL, --no-lidar-respawn), and a client of the socket
// streams made-up scans to drive anyway: the driver refuses them (403, counted), reports no reader, and
// software commands do not move the wheels (held: no scan).
func TestSimFakeScansRefused(t *testing.T) {
	s, _, cl := startSimStack(t, "--no-lidar-respawn")
	st := waitDriver(t, cl, 0, 10*time.Second)
	if st.PIDs.LidarReader == 0 {
		t.Fatal("no reader pid in the state record")
	}
	_ = syscall.Kill(st.PIDs.LidarReader, syscall.SIGKILL)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(10*time.Second))
	defer cancel()
	// The reader's last real scans must be older than scan_timeout first: only the fake ones could then hold
	// the scan gate open.
	for {
		x, err := cl.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if x.ScanAgeS != nil && *x.ScanAgeS > 0.6 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	ss, err := cl.StreamScans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for ; sent < 100; sent++ {
		sc := api.Scan{Stamp: time.Now(), FrameID: "laser", ScanTime: 0.1, AngleIncrement: 0.1, RangeMin: 0.12,
			RangeMax: 8, Ranges: api.Ranges{2, 2, 2}}
		if ss.Send(sc) != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = ss.Close()
	var he *api.HTTPError
	if !errors.As(err, &he) || he.Status != 403 {
		t.Fatalf("fake scans from pid %d: %v after %d sends, want 403", os.Getpid(), err, sent)
	}
	seq := s.RxSeq()
	if r, err := cl.Enable(ctx, true); err != nil || !r.Success {
		t.Fatalf("enable: %+v %v", r, err)
	}
	cs, err := cl.StreamCmdVel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		_ = cs.Send(api.Twist{VX: 0.2})
		time.Sleep(50 * time.Millisecond)
	}
	x, err := cl.State(ctx)
	_, _ = cs.Close()
	if err != nil {
		t.Fatal(err)
	}
	rx, _ := s.ReceivedSince(seq)
	for _, r := range rx {
		if isMovingRx(r) {
			t.Fatalf("a moving motor frame % x with the reader dead and fake scans sent", frameBytes(r))
		}
	}
	if x.PIDs.LidarReader != 0 || x.Blocked == nil || *x.Blocked != "no scan" || x.Link.RefusedScans != 1 {
		t.Fatalf("state: reader %d, blocked %v, refused %d; want 0, 'no scan', 1", x.PIDs.LidarReader, x.Blocked, x.Link.RefusedScans)
	}
	t.Logf("fake scans from pid %d refused: %s; wheels held (%s) over %d frames", os.Getpid(), he.Message, *x.Blocked, len(rx))
}
