package simtest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// tick is one control period at the default 50 Hz; slack is what a loaded 2-core machine may add on top of
// a rule's own time before an assertion fails (the measured figures are logged, not the bounds).
// slack is widened under -race (testkit.Bound), as are the waits of the helpers below.
const tick = 20 * time.Millisecond

var slack = testkit.Bound(40 * time.Millisecond)

// stack is one simulated robot plus one `rosorin-base run` (supervisor, driver child, LiDAR reader child),
// started by the shared fixture (stacktest.StartSim) with the robot's parameters (stacktest.RobotConfig).
type stack struct {
	*stacktest.Stack
	sim       *sim.Sim
	cl        *api.Client
	log       *testkit.LockedBuffer
	truthPath string

	limits   motion.Limits
	bound    float64 // the largest |wire rps| the limits allow (any direction)
	fwdBound float64 // the largest |wire rps| of a pure forward/backward command

	emu     sync.Mutex
	events  []simEvent
	evOff   int64
	evTail  []byte
	windows []window // to-board corruption windows (guarded by emu)
}

// window is a stretch of time during which bytes to the board were corrupted on purpose.
type window struct{ from, to time.Time }

type simEvent struct {
	T    time.Time
	Text string
}

// startStack starts a sim and `rosorin-base run` against it and waits until the driver answers with LiDAR
// scans flowing and a live board link.
func startStack() (*stack, error) {
	dir, err := os.MkdirTemp("", "rsimt") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		return nil, err
	}
	s := &stack{truthPath: filepath.Join(dir, "truth.jsonl")}
	// The stand: with the wheels in the air every spin is a contact (docs/contact.md); these tests are
	// about the other stops.
	args := []string{"--contact", "log"}
	if testkit.RaceEnabled {
		// A -race driver starved by a loaded machine can miss its heartbeat by more than 150 ms; these tests
		// are not about the watchdog (driver/supervisor's are).
		args = append(args, "--driver-watchdog", testkit.Bound(supervisor.DefaultWatchdogTimeout).String())
	}
	st, err := stacktest.StartSim(sim.Config{World: "stand", Seed: 1, TruthPath: s.truthPath},
		stacktest.Options{Bin: binPath, Dir: dir, Config: stacktest.RobotConfig, Args: args})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.Stack, s.sim, s.cl, s.log = st, st.Sim, st.Client, st.Log
	cfg, _, err := config.Load(st.ConfigPath)
	if err != nil {
		s.close()
		return nil, err
	}
	s.limits = cfg.Limits()
	g := kinematics.DefaultGeometry()
	s.bound = s.limits.MaxWheelRPS(g)*(1+1e-6) + 1e-6
	s.fwdBound = s.limits.MaxLinear/(math.Pi*g.WheelDiameter)*(1+1e-6) + 1e-6
	return s, nil
}

// close stops everything it started (SIGINT, then SIGKILL) and removes the directory. Idempotent.
func (s *stack) close() {
	s.Stack.Close()
	os.RemoveAll(s.Dir)
}

// ready waits until a driver other than notPID answers with a fresh scan and a live board link.
func (s *stack) ready(notPID int, timeout time.Duration) (api.State, error) {
	st, err := s.WaitState(timeout, stacktest.Scanning(notPID))
	if err != nil {
		return st, fmt.Errorf("no driver (other than pid %d) with fresh scans and a live board: %w", notPID, err)
	}
	return st, nil
}

func fmtAge(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.3f s", *p)
}

var (
	sharedMu sync.Mutex
	shared   *stack
)

// sharedStack returns the stack shared by the tests, started on first use (or again if a test left it dead),
// put back into a known state: faults off, e-stop clear, motion disabled, scans fresh. Every frame the board
// receives during the calling test is checked when it ends (checkFramesSince with the general bound).
func sharedStack(t *testing.T) *stack {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil && shared.Exited() {
		t.Logf("shared stack had exited (%v); starting a new one", shared.Err())
		shared.close()
		shared = nil
	}
	if shared == nil {
		s, err := startStack()
		if err != nil {
			t.Fatalf("start sim + rosorin-base run: %v", err)
		}
		shared = s
	}
	s := shared
	s.prepare(t)
	return s
}

func closeShared() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.close()
		shared = nil
	}
}

// prepare puts the stack into the known state and registers the frame check and the log dump.
func (s *stack) prepare(t *testing.T) {
	t.Helper()
	for _, err := range []error{s.sim.LidarSilent(false), s.sim.Corrupt(0, 0), s.sim.IgnoreMotor(false), s.sim.PadSticks(0, 0, 0, 0), s.sim.PadConnected(false)} {
		if err != nil {
			t.Fatalf("sim: %v", err)
		}
	}
	s.cl.CloseIdle()
	if _, err := s.ready(0, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if _, err := s.cl.Reset(ctx); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if r, err := s.cl.Enable(ctx, false); err != nil || !r.Success {
		t.Fatalf("disable: %+v %v", r, err)
	}
	// A command stays valid for cmd_timeout whatever happens to its sender (the seed's set_cmd): the previous
	// test's last one must be stale, or the next enable would act on it.
	stale := s.limits.CmdTimeout.Seconds() + 0.05
	s.waitState(t, 2*time.Second, "no fresh velocity command", func(st api.State) bool {
		return st.CmdAgeS == nil || *st.CmdAgeS > stale
	})
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.WheelsStopped)); !ok {
		t.Fatalf("wheels still turning at the start of the test: targets %v wheels %v", tr.TargetRPS, tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	logOff := s.log.Len()
	t.Cleanup(func() {
		s.checkFramesSince(t, seq, s.bound, nil)
		if t.Failed() {
			t.Logf("rosorin-base log during the test:\n%s", tail(s.log.From(logOff), 80))
		}
	})
}

// state, enable, estop and reset are the client calls with a deadline; a transport error fails the test.
func (s *stack) state(t *testing.T) api.State { t.Helper(); return standtest.State(t, s.cl) }

func (s *stack) enable(t *testing.T, on bool) api.Reply {
	t.Helper()
	return standtest.Call(t, "enable", func(ctx context.Context) (api.Reply, error) { return s.cl.Enable(ctx, on) })
}

func (s *stack) mustEnable(t *testing.T) {
	t.Helper()
	if r := s.enable(t, true); !r.Success || r.Message != "enabled" {
		t.Fatalf("enable: %+v", r)
	}
}

func (s *stack) estop(t *testing.T, reason string) api.Reply {
	t.Helper()
	return standtest.Call(t, "estop", func(ctx context.Context) (api.Reply, error) { return s.cl.EStop(ctx, reason) })
}

func (s *stack) reset(t *testing.T) api.Reply {
	t.Helper()
	return standtest.Call(t, "reset", s.cl.Reset)
}

// The waits below (ready, waitRx, waitTruth, waitState, waitEvent) widen their timeouts under -race
// (testkit.Bound): a wait is not a bound; the assertions on the times measured are.

// waitRx waits up to timeout for the first received frame with sequence >= seq that satisfies pred.
func (s *stack) waitRx(seq int, timeout time.Duration, pred func(sim.Received) bool) (sim.Received, int, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(timeout))
	defer cancel()
	r, next, err := s.sim.WaitFrameSince(ctx, seq, pred)
	return r, next, err == nil
}

// waitTruth polls the sim's truth until ok holds; it returns the last truth seen.
func (s *stack) waitTruth(timeout time.Duration, ok func(sim.Truth) bool) (sim.Truth, bool) {
	var x sim.Truth
	err := testkit.Eventually(testkit.Bound(timeout), func() error {
		if x = s.sim.Truth(); !ok(x) {
			return errNotYet
		}
		return nil
	})
	return x, err == nil
}

var errNotYet = errors.New("not yet")

// wheelsOf is the part of the sim's truth the stand suite judges.
func wheelsOf(x sim.Truth) standtest.Wheels {
	return standtest.Wheels{TargetRPS: x.TargetRPS, WheelRPS: x.WheelRPS}
}

// judge applies a stand-suite judge (standtest.Turning, WheelsStopped, Near) to the sim's truth.
func judge(ok func(standtest.Wheels) bool) func(sim.Truth) bool {
	return func(x sim.Truth) bool { return ok(wheelsOf(x)) }
}

// waitState polls the driver's state until ok holds.
func (s *stack) waitState(t *testing.T, timeout time.Duration, what string, ok func(api.State) bool) api.State {
	t.Helper()
	timeout = testkit.Bound(timeout)
	var st api.State
	err := testkit.Eventually(timeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
		defer cancel()
		var err error
		if st, err = s.cl.State(ctx); err != nil {
			return err
		}
		if !ok(st) {
			return errNotYet
		}
		return nil
	})
	if err != nil {
		t.Fatalf("timeout (%v) waiting for %s: last state enabled=%v estop=%v blocked=%v pad=%s scan_age=%s, err %v",
			timeout, what, st.Enabled, strp(st.EStop), strp(st.Blocked), st.PadMode, fmtAge(st.ScanAgeS), err)
	}
	return st
}

func strp(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}

// corruptToBoard sets the sim's corruption rates and records the to-board window for checkFramesSince.
func (s *stack) corruptToBoard(t *testing.T, toBoard, fromBoard float64) {
	t.Helper()
	now := time.Now()
	s.emu.Lock()
	if toBoard > 0 {
		s.windows = append(s.windows, window{from: now})
	} else if n := len(s.windows); n > 0 && s.windows[n-1].to.IsZero() {
		s.windows[n-1].to = now
	}
	s.emu.Unlock()
	if err := s.sim.Corrupt(toBoard, fromBoard); err != nil {
		t.Fatal(err)
	}
	if toBoard == 0 { // bytes read before the switch are stamped a moment later
		s.emu.Lock()
		if n := len(s.windows); n > 0 {
			s.windows[n-1].to = time.Now().Add(50 * time.Millisecond)
		}
		s.emu.Unlock()
	}
}

func (s *stack) inWindow(at time.Time) bool {
	s.emu.Lock()
	defer s.emu.Unlock()
	for _, w := range s.windows {
		if !at.Before(w.from) && (w.to.IsZero() || !at.After(w.to)) {
			return true
		}
	}
	return false
}

// checkFramesSince decodes every frame received from seq on and fails the test on any that is not a finite
// four-motor speed frame within bound. Inside a to-board corruption window, a frame that does not have the
// forward shape the driver sends there is counted as damaged in transit (doc.go, errata), not failed.
func (s *stack) checkFramesSince(t *testing.T, seq int, bound float64, excuse func(sim.Received) bool) frameReport {
	t.Helper()
	frames, _ := s.sim.ReceivedSince(seq)
	if excuse == nil {
		excuse = func(r sim.Received) bool { return s.inWindow(r.T) && !forwardShape(r) }
	}
	rep, bad := checkFrames(frames, bound, excuse)
	for i, b := range bad {
		if i == 10 {
			t.Errorf("... %d more bad frames", len(bad)-10)
			break
		}
		t.Errorf("board received a bad frame: %s", b)
	}
	if rep.transit > 0 {
		t.Logf("%d frame(s) damaged in transit by the to-board corruption passed CRC-8: %v", rep.transit, rep.transitHex)
	}
	return rep
}

// frameReport summarises checked frames.
type frameReport struct {
	n, stops, moving, transit int
	maxAbs                    float64
	transitHex                []string
}

// checkFrames is the pure frame judge: every frame must decode as a four-motor set-speed frame (ids 0..3)
// with finite speeds and |rps| <= bound, unless excuse says it was damaged in transit.
func checkFrames(frames []sim.Received, bound float64, excuse func(sim.Received) bool) (frameReport, []string) {
	var rep frameReport
	var bad []string
	for _, r := range frames {
		rep.n++
		rps, err := standtest.MotorSpeeds(r.Func, r.Payload, bound)
		if err != nil {
			if excuse != nil && excuse(r) {
				rep.transit++
				rep.transitHex = append(rep.transitHex, fmt.Sprintf("% x", frameBytes(r)))
				continue
			}
			bad = append(bad, fmt.Sprintf("seq %d at %s: % x: %v", r.Seq, r.T.Format("15:04:05.000"), frameBytes(r), err))
			continue
		}
		if rps == [4]float64{} {
			rep.stops++
		} else {
			rep.moving++
		}
		for _, v := range rps {
			rep.maxAbs = math.Max(rep.maxAbs, math.Abs(v))
		}
	}
	return rep, bad
}

// forwardShape: [a, a, -a, -a] bit for bit (or all zero), the only shape a forward/backward command gives.
// Damage in transit flips single bits in one or two bytes and cannot keep this shape.
func forwardShape(r sim.Received) bool {
	if r.Func != board.FuncMotor {
		return false
	}
	mc, err := board.DecodeMotor(r.Payload)
	if err != nil || mc.Kind != board.MotorSetMany || len(mc.Speeds) != 4 {
		return false
	}
	var b [4]uint32
	for i, sp := range mc.Speeds {
		if sp.ID != uint8(i) {
			return false
		}
		b[i] = math.Float32bits(sp.RPS)
	}
	const sign = 1 << 31
	if b == [4]uint32{} {
		return true
	}
	return b[0] == b[1] && b[2] == b[3] && b[2] == b[0]^sign
}

func frameBytes(r sim.Received) []byte {
	b, _ := board.EncodeFrame(r.Func, r.Payload)
	return b
}

func isStop(r sim.Received) bool { return board.IsStopFrame(frameBytes(r)) }

func isMoving(r sim.Received) bool {
	rps, err := standtest.MotorSpeeds(r.Func, r.Payload, 0)
	return err == nil && rps != [4]float64{}
}

// movingAfter returns a predicate for a moving frame received after t0.
func movingAfter(t0 time.Time) func(sim.Received) bool {
	return func(r sim.Received) bool { return r.T.After(t0) && isMoving(r) }
}

func stopAfter(t0 time.Time) func(sim.Received) bool {
	return func(r sim.Received) bool { return r.T.After(t0) && isStop(r) }
}

// waitEvent waits for a sim event (truth file, "event" lines) containing text, stamped after `after`.
func (s *stack) waitEvent(text string, after time.Time, timeout time.Duration) (time.Time, error) {
	timeout = testkit.Bound(timeout)
	var at time.Time
	err := testkit.Eventually(timeout, func() error { // the sim flushes its truth file every 0.5 s
		if err := s.readEvents(); err != nil {
			return testkit.Abort(err)
		}
		s.emu.Lock()
		defer s.emu.Unlock()
		for _, e := range s.events {
			if e.T.After(after) && strings.Contains(e.Text, text) {
				at = e.T
				return nil
			}
		}
		return errNotYet
	})
	if errors.Is(err, errNotYet) {
		return time.Time{}, fmt.Errorf("no sim event %q after %s within %v", text, after.Format("15:04:05.000"), timeout)
	}
	return at, err
}

// readEvents reads the truth file from where it stopped and keeps the event lines.
func (s *stack) readEvents() error {
	s.emu.Lock()
	defer s.emu.Unlock()
	f, err := os.Open(s.truthPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(s.evOff, io.SeekStart); err != nil {
		return err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	s.evOff += int64(len(b))
	buf := append(s.evTail, b...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := buf[:i]
		buf = buf[i+1:]
		if !bytes.Contains(line, []byte(`"kind":"event"`)) {
			continue
		}
		var ev struct {
			Event string     `json:"event"`
			ET    *time.Time `json:"et"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.ET != nil {
			s.events = append(s.events, simEvent{T: *ev.ET, Text: ev.Event})
		}
	}
	s.evTail = append([]byte(nil), buf...)
	return nil
}

// publish starts a publisher (20 Hz, one cmd_vel stream), halted when the test ends.
func (s *stack) publish(t *testing.T, tw api.Twist) *standtest.Publisher {
	t.Helper()
	return standtest.Publish(t, s.cl, tw)
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid int) map[int]procfs.Stat {
	out := map[int]procfs.Stat{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procfs.ReadStat(p); err == nil && st.PPID == pid && st.Alive() {
			out[p] = st
		}
	}
	return out
}

// stillRunning reports whether the process was is still there (not a zombie): same pid and start time, which
// tells it from a later process that reuses the pid.
func stillRunning(was procfs.Stat) bool {
	now, err := procfs.ReadStat(was.PID)
	return err == nil && now.Start == was.Start && now.Alive()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("... (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// signal helpers: syscall.Kill with the error spelled out.
func kill(t *testing.T, pid int, sig syscall.Signal) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no pid to send %v to", sig)
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatalf("kill -%d %d: %v", sig, pid, err)
	}
}

// sourceLog is the driver's source topic (hand-overs of velocity arbitration) as this test received it.
type sourceLog struct {
	mu  sync.Mutex
	got []sourceRx
}

type sourceRx struct {
	at time.Time // when the test received it
	c  api.SourceChange
}

// followSource follows the source topic until the test ends.
func (s *stack) followSource(t *testing.T) *sourceLog {
	t.Helper()
	l := &sourceLog{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	first := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		_ = s.cl.Follow(ctx, api.TopicSource, func(line []byte) error {
			var c api.SourceChange
			if err := json.Unmarshal(line, &c); err != nil {
				return err
			}
			l.mu.Lock()
			l.got = append(l.got, sourceRx{time.Now(), c})
			l.mu.Unlock()
			once.Do(func() { close(first) })
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	select { // the topic is latched: the current source comes first
	case <-first:
	case <-time.After(testkit.Bound(2 * time.Second)):
		t.Fatal("source topic: no current source within 2 s of following it")
	}
	return l
}

// wait returns the first change to source received after after, waiting up to timeout (widened under -race).
func (l *sourceLog) wait(source string, after time.Time, timeout time.Duration) (api.SourceChange, bool) {
	end := time.Now().Add(testkit.Bound(timeout))
	for {
		l.mu.Lock()
		for _, r := range l.got {
			if r.at.After(after) && r.c.Source == source {
				l.mu.Unlock()
				return r.c, true
			}
		}
		l.mu.Unlock()
		if time.Now().After(end) {
			return api.SourceChange{}, false
		}
		time.Sleep(2 * time.Millisecond)
	}
}
