package driver

// Tests of Run's contract and of the loop on an injected clock: deterministic, no sockets, race-safe.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// wheelsOf returns the wheel speeds the board holds after each frame the driver wrote, in order (every frame
// the driver writes sets all four).
func wheelsOf(b *boardtest.Board) [][4]float64 {
	var out [][4]float64
	for _, r := range b.Received() {
		out = append(out, r.Wheels)
	}
	return out
}

// waitCount waits until at least n frames were written.
func waitCount(t *testing.T, b *boardtest.Board, n int) [][4]float64 {
	t.Helper()
	if _, got, ok := b.Wait(n-1, 2*time.Second, func(boardtest.Received) bool { return true }); !ok {
		t.Fatalf("waited for %d frames, have %d", n, got)
	}
	return wheelsOf(b)
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startRun runs the driver on the test's board (boardtest, as BoardIn and BoardOut) with the default
// configuration and no socket; Run's result arrives on the channel.
func startRun(t *testing.T, ctx context.Context, b *boardtest.Board) (done chan error) {
	t.Helper()
	t.Cleanup(func() { b.Close() })
	done = make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Config: config.Default(), BoardIn: b, BoardOut: b, Log: quietLog(), StateDir: t.TempDir()})
	}()
	return done
}

// runEnds waits for Run's result.
func runEnds(t *testing.T, done chan error, d time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(testkit.Bound(d)):
		t.Fatalf("Run did not return after %s", what)
		return nil
	}
}

func TestRunStopFrameFirstAndTwiceOnCancel(t *testing.T) {
	b := boardtest.New(boardtest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := startRun(t, ctx, b)
	waitCount(t, b, 1)
	cancel()
	if err := runEnds(t, done, 2*time.Second, "the cancel"); err != nil {
		t.Fatalf("Run on cancel: %v, want nil", err)
	}
	raw := b.Writes()
	if !board.IsStopFrame(raw[0]) {
		t.Fatalf("first write % x is not the stop frame", raw[0])
	}
	if len(raw) < 3 || !board.IsStopFrame(raw[len(raw)-1]) || !board.IsStopFrame(raw[len(raw)-2]) {
		t.Fatalf("the last two writes are not stop frames (%d writes)", len(raw))
	}
}

func TestRunReturnsWhenBoardInEnds(t *testing.T) {
	b := boardtest.New(boardtest.Options{})
	done := startRun(t, context.Background(), b)
	waitCount(t, b, 1)
	b.Emit(board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}}))
	b.EOF() // the board is gone
	if err := runEnds(t, done, 2*time.Second, "BoardIn ended"); err == nil || !strings.Contains(err.Error(), "board input ended") {
		t.Fatalf("Run: %v, want 'board input ended'", err)
	}
	if raw := b.Writes(); !board.IsStopFrame(raw[len(raw)-1]) {
		t.Fatal("no stop frame after the board input ended")
	}
}

func TestRunReturnsWhenBoardOutFails(t *testing.T) {
	var attempts atomic.Int64
	b := boardtest.New(boardtest.Options{OnWrite: func([]byte) error {
		if attempts.Add(1) >= 3 { // the start stop frame and one refresh go through
			return errors.New("input/output error")
		}
		return nil
	}})
	done := startRun(t, context.Background(), b)
	if err := runEnds(t, done, 3*time.Second, "BoardOut failed"); err == nil || !strings.Contains(err.Error(), "write to the board") {
		t.Fatalf("Run: %v, want a write error", err)
	}
	if n := attempts.Load(); n < 4 {
		t.Fatalf("%d write attempts: no stop frame attempted after the failure", n)
	}
}

func TestRunRefusesLimitsTheBoardCannotHonour(t *testing.T) {
	c := config.Default()
	c.MaxLinear, c.MaxAngular = 0.9, 3 // 2x0.9 + 3x0.174 m/s at the rim = 9.2 rps > 5
	b := boardtest.New(boardtest.Options{})
	err := Run(context.Background(), Options{Config: c, BoardIn: strings.NewReader(""), BoardOut: b, Log: quietLog()})
	if err == nil || !strings.Contains(err.Error(), "rps") {
		t.Fatalf("Run with max_linear 0.9: %v, want a refusal naming the wheel speed", err)
	}
	if raw := b.Writes(); len(raw) != 1 || !board.IsStopFrame(raw[0]) {
		t.Fatal("a refused start must still have written the stop frame first")
	}
	if err := Run(context.Background(), Options{Config: config.Config{}, BoardIn: strings.NewReader(""), BoardOut: boardtest.New(boardtest.Options{}), Log: quietLog()}); err == nil {
		t.Fatal("a zero Config was accepted")
	}
}

// fakeClock drives the loop tick by tick.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	ch    chan time.Time
	timer fakeTimer
}

func newFakeClock() *fakeClock {
	c := &fakeClock{now: time.Date(2026, 10, 2, 17, 0, 0, 0, time.UTC), ch: make(chan time.Time),
		timer: fakeTimer{ch: make(chan time.Time)}}
	c.timer.clk = c
	return c
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}
func (c *fakeClock) NewTicker(time.Duration) clock.Ticker { return c }

// NewTimer returns the clock's one deadline timer: it never fires by itself (the tests drive the ticks);
// armed says for when the loop last armed it.
func (c *fakeClock) NewTimer() clock.Timer { return &c.timer }

type fakeTimer struct {
	clk   *fakeClock
	mu    sync.Mutex
	ch    chan time.Time
	armed time.Time // the instant the last Reset armed it for; zero after Stop
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }
func (t *fakeTimer) Reset(d time.Duration) {
	at := t.clk.Now().Add(d)
	t.mu.Lock()
	t.armed = at
	t.mu.Unlock()
}
func (t *fakeTimer) Stop() {
	t.mu.Lock()
	t.armed = time.Time{}
	t.mu.Unlock()
}

func (c *fakeClock) C() <-chan time.Time { return c.ch }
func (c *fakeClock) Stop()               {}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// loopRig is a loopState on a fake clock, driven through its api.Handler methods.
type loopRig struct {
	t    *testing.T
	clk  *fakeClock
	r    *loopState
	b    *boardtest.Board
	stop func()
}

func newLoopRig(t *testing.T, opts ...func(*Options)) *loopRig {
	clk := newFakeClock()
	b := boardtest.New(boardtest.Options{})
	o := Options{Config: config.Default(), BoardIn: b, BoardOut: b, Log: quietLog(), Clock: clk, StateDir: t.TempDir()}
	for _, f := range opts {
		f(&o)
	}
	r, stop := runLoop(t, o)
	return &loopRig{t: t, clk: clk, r: r, b: b, stop: stop}
}

// runLoop starts the driver (start, then run) with o, whose BoardIn is the test's board (boardtest); stop
// ends it and closes the board, once (also at the test's end).
func runLoop(t *testing.T, o Options) (r *loopState, stop func()) {
	t.Helper()
	in := o.BoardIn.(io.Closer)
	r, err := start(o)
	if err != nil {
		in.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.run(ctx) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done; in.Close() }) }
	t.Cleanup(stop)
	return r, stop
}

// tick advances the clock by one period and runs one tick; the state request after it returns once the
// tick is done (one goroutine handles both, in order).
func (g *loopRig) tick() api.State {
	g.clk.advance(20 * time.Millisecond)
	g.clk.ch <- g.clk.Now()
	st, err := g.r.State()
	if err != nil {
		g.t.Fatal(err)
	}
	g.settle()
	return st
}

// settle waits until the writer goroutine has written everything the loop handed it (it collapses pending
// frames, newest wins, so a test that counts frames waits after each step).
func (g *loopRig) settle() {
	g.r.State() // the loop has handled everything sent before
	for end := time.Now().Add(2 * time.Second); !g.r.out.idle(); {
		if time.Now().After(end) {
			g.t.Fatal("board writer never idle")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// driveTicks runs n ticks, each after a scan and the command tw from peer.
func (g *loopRig) driveTicks(peer api.Peer, tw api.Twist, n int) {
	for range n {
		g.r.Scan(peer, &api.Scan{}, true)
		g.r.CmdVel(peer, motion.InputCmdVel, tw, false)
		g.tick()
	}
}

// stopsAtOnce checks that do writes exactly one frame, the stop frame, before any tick.
func (g *loopRig) stopsAtOnce(what string, do func()) {
	g.t.Helper()
	n := len(g.frames())
	do()
	if f := g.frames(); len(f) != n+1 || f[n] != [4]float64{} {
		g.t.Fatalf("%s: want the stop frame at once, got %d new frames", what, len(f)-n)
	}
}

func (g *loopRig) frames() [][4]float64 {
	g.settle()
	return wheelsOf(g.b)
}

func TestLoopDeadmanExactOnTheInjectedClock(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true) // arrival only (the scan itself is published, nobody listens)
	if r := g.r.Enable(peer, true); !r.Success {
		t.Fatal(r.Message)
	}
	if _, err := g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.1}, false); err != nil {
		t.Fatal(err)
	}
	// Keep the scans coming, ticks every 20 ms from the command at t=0.
	var moved int
	for i := 1; i <= 18; i++ {
		g.r.Scan(peer, &api.Scan{}, true)
		st := g.tick()
		el := time.Duration(i) * 20 * time.Millisecond
		switch {
		case el <= 300*time.Millisecond:
			if st.BodyVel[0] <= 0 {
				t.Fatalf("tick at %v: body_vel %v blocked %v; the command is fresh until 0.3 s", el, st.BodyVel, st.Blocked)
			}
			moved++
			// Ramp: 0.5 m/s² x 20 ms = 0.01 m/s per tick, up to the 0.1 command.
			if want := min(0.1, 0.01*float64(i)); abs(st.BodyVel[0]-want) > 1e-9 {
				t.Fatalf("tick %d: vx %v, want %v (ramp)", i, st.BodyVel[0], want)
			}
		default:
			if st.BodyVel[0] != 0 || st.Blocked == nil || *st.Blocked != motion.BlockCmdTimeout {
				t.Fatalf("tick at %v: body_vel %v blocked %v; want zero, cmd timeout (deadman: strictly older than 0.3 s)", el, st.BodyVel, st.Blocked)
			}
		}
	}
	if moved != 15 {
		t.Fatalf("moved on %d ticks, want 15 (0.02..0.30 s)", moved)
	}
	f := g.frames()
	if !(f[len(f)-1] == [4]float64{}) {
		t.Fatalf("last frame %v, want the stop frame", f[len(f)-1])
	}
}

func TestLoopRefreshEveryTwoHundredMs(t *testing.T) {
	g := newLoopRig(t)
	before := len(g.frames())
	for range 50 { // 1 s of ticks, nothing changes: disabled, zero
		g.tick()
	}
	got := len(g.frames()) - before
	// The first tick writes (no frame since the start stop frame written outside the loop), then every 10th.
	if got < 5 || got > 6 {
		t.Fatalf("%d frames in 1 s of unchanged zero speed, want 5 (one per 0.2 s)", got)
	}
}

func TestLoopTripWritesStopBeforeTheNextTick(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true)
	g.r.Enable(peer, true)
	g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.2}, false)
	g.driveTicks(peer, api.Twist{VX: 0.2}, 5)
	f := g.frames()
	if f[len(f)-1][0] <= 0 {
		t.Fatalf("not moving: %v", f[len(f)-1])
	}
	n := len(f)
	rep := g.r.EStop(peer, "test")
	if !rep.Success {
		t.Fatal(rep.Message)
	}
	// No tick has run: the stop frame must already be there.
	f = g.frames()
	if len(f) != n+1 || f[n] != [4]float64{} {
		t.Fatalf("after e-stop without a tick: %d new frames, last %v; want exactly the stop frame", len(f)-n, f[len(f)-1])
	}
	// Same for a refused command and for disable.
	g.r.Reset(peer)
	g.r.Enable(peer, true)
	g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.2}, false)
	g.driveTicks(peer, api.Twist{VX: 0.2}, 5)
	g.stopsAtOnce("absurd command", func() {
		if _, err := g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 1e9}, false); !errors.Is(err, motion.ErrBadCommand) {
			t.Fatalf("absurd command: %v", err)
		}
	})
	st := g.tick()
	if st.Link.RejectedCmds != 1 || !strings.Contains(st.LastRejected, "linear speed over") {
		t.Fatalf("rejection not counted: %+v %q", st.Link, st.LastRejected)
	}
	g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.2}, false)
	g.driveTicks(peer, api.Twist{VX: 0.2}, 5)
	g.stopsAtOnce("disable", func() { g.r.Enable(peer, false) })
	// An unparseable command stops the wheels too.
	g.r.Enable(peer, true)
	g.driveTicks(peer, api.Twist{VX: 0.2}, 5)
	g.stopsAtOnce("bad command", func() { g.r.BadCommand(peer, motion.InputCmdVel, "bad json") })
}

func TestLoopScanGateExactOnTheInjectedClock(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true) // last scan at t=0
	g.r.Enable(peer, true)
	for i := 1; i <= 30; i++ {
		g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.1}, false)
		st := g.tick()
		el := time.Duration(i) * 20 * time.Millisecond
		held := st.Blocked != nil && *st.Blocked == motion.BlockNoScan
		if el <= 500*time.Millisecond && held || el > 500*time.Millisecond && !held {
			t.Fatalf("at %v after the last scan: blocked %v; want held exactly when older than 0.5 s", el, st.Blocked)
		}
	}
	// Scans back: released at the next tick, not latched.
	g.r.Scan(peer, &api.Scan{}, true)
	g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.1}, false)
	if st := g.tick(); st.Blocked != nil || st.BodyVel[0] <= 0 {
		t.Fatalf("scans back: blocked %v vel %v", st.Blocked, st.BodyVel)
	}
}

func TestPublisherGrouping(t *testing.T) {
	o := Options{Config: config.Default(), Log: quietLog(), Clock: newFakeClock()}.withDefaults()
	p, err := paramsFrom(o.Config)
	if err != nil {
		t.Fatal(err)
	}
	r := newLoopState(o, p)
	now := o.Clock.Now()
	me := api.Peer{PID: os.Getpid(), PPID: os.Getppid()}
	dead := func() int { // a pid that has exited (reaped)
		c := exec.Command("true")
		if err := c.Run(); err != nil {
			t.Skip("no 'true' to make a dead pid")
		}
		return c.Process.Pid
	}
	// A loop of exited one-shot senders of one parent: one publisher.
	for range 5 {
		r.notePublisher(api.Peer{PID: dead(), PPID: os.Getpid()}, motion.InputCmdVel, now, true, 0)
	}
	if n := r.publisherCounts(now)[motion.InputCmdVel]; n != 1 {
		t.Fatalf("curl loop: %d publishers, want 1", n)
	}
	// Plus a running sender in a different process (this test, another parent): two.
	r.notePublisher(me, motion.InputCmdVel, now, true, 0)
	if n := r.publisherCounts(now)[motion.InputCmdVel]; n != 2 {
		t.Fatalf("loop + live sender: %d, want 2", n)
	}
	// The window passes: the exited ones are forgotten, this process's one-shot too.
	later := now.Add(PublisherWindow + time.Millisecond)
	if n := r.publisherCounts(later)[motion.InputCmdVel]; n != 0 {
		t.Fatalf("after the window: %d, want 0", n)
	}
	// Open streams count while open, whatever the window; one pid with two streams is one publisher.
	r.notePublisher(me, motion.InputCmdVel, time.Time{}, false, 1)
	r.notePublisher(me, motion.InputCmdVel, time.Time{}, false, 1)
	if n := r.publisherCounts(later.Add(time.Hour))[motion.InputCmdVel]; n != 1 {
		t.Fatalf("two streams of one pid: %d, want 1", n)
	}
	// A stream's commands do not keep a closed stream's pid counted.
	r.notePublisher(me, motion.InputCmdVel, later, false, 0)
	r.notePublisher(me, motion.InputCmdVel, time.Time{}, false, -2)
	if n := r.publisherCounts(later.Add(10 * time.Millisecond))[motion.InputCmdVel]; n != 0 {
		t.Fatalf("closed stream: %d, want 0", n)
	}
}

func TestRateMeterAndJitter(t *testing.T) {
	var m rateMeter
	t0 := time.Unix(1000, 0)
	for i := range 330 { // 3 s at 110 Hz
		m.add(t0.Add(time.Duration(i) * time.Second / 110))
	}
	end := t0.Add(3 * time.Second)
	if hz := m.hz(end); hz < 108 || hz > 111 {
		t.Fatalf("110 Hz measured as %v", hz)
	}
	if hz := m.hz(end.Add(2 * time.Second)); hz != 0 {
		t.Fatalf("silence measured as %v Hz", hz)
	}
	var j jitterStats
	for i := range 100 {
		d := 20 * time.Millisecond
		if i == 50 {
			d = 45 * time.Millisecond
		}
		j.add(d, 20*time.Millisecond)
	}
	s := j.stats(50)
	if s.TickP50Ms != 20 || s.TickMaxMs != 45 || s.Overruns != 1 {
		t.Fatalf("jitter stats %+v", s)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestNoGoroutineLeft(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	for range 3 {
		g := newLoopRig(t)
		g.tick()
		g.stop()
	}
	// The loop, reader, writer and disk goroutines end with Run (goleak retries while they are ending).
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("after three start/stop cycles: %v", err)
	}
}

// TestStartLatched: a driver started with Options.StartLatched (the supervisor's restart after a crash) is
// latched with that reason: enable is refused until a reset, the reset leaves it disabled, then enable works.
// The first start (no StartLatched) is disabled but not latched.
func TestStartLatched(t *testing.T) {
	peer := api.Peer{PID: os.Getpid()}
	first := newLoopRig(t)
	if st := first.tick(); st.EStop != nil || st.Enabled {
		t.Fatalf("first start: estop %v enabled %v; want disabled, not latched", st.EStop, st.Enabled)
	}
	if r := first.r.Enable(peer, true); !r.Success {
		t.Fatalf("first start: enable %+v", r)
	}
	first.stop()

	const why = "driver restarted after killed by SIGKILL"
	g := newLoopRig(t, func(o *Options) { o.StartLatched = why })
	st := g.tick()
	if st.EStop == nil || *st.EStop != why || st.Enabled || st.Blocked == nil || *st.Blocked != motion.BlockEStopPrefix+why {
		t.Fatalf("latched start: estop %v enabled %v blocked %v", st.EStop, st.Enabled, st.Blocked)
	}
	if r := g.r.Enable(peer, true); r.Success || r.Message != "refused: e-stop latched ("+why+")" {
		t.Fatalf("enable while latched at start: %+v", r)
	}
	g.r.Scan(peer, &api.Scan{}, true)
	g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.2}, false)
	for range 5 {
		g.tick()
	}
	for _, f := range g.frames() {
		if f != ([4]float64{}) {
			t.Fatalf("a latched driver wrote wheel speeds %v", f)
		}
	}
	if r := g.r.Reset(peer); r.Message != "e-stop cleared (was: "+why+"); motion still disabled" {
		t.Fatalf("reset: %+v", r)
	}
	if st := g.tick(); st.EStop != nil || st.Enabled {
		t.Fatalf("after reset: estop %v enabled %v; want disabled, not latched", st.EStop, st.Enabled)
	}
	if r := g.r.Enable(peer, true); !r.Success {
		t.Fatalf("enable after reset: %+v", r)
	}
}

// fire delivers the deadline timer's firing at the instant it was armed for (the fake clock jumps there),
// waits until the loop has handled it, and returns that instant.
func (g *loopRig) fire() time.Time {
	g.t.Helper()
	g.clk.timer.mu.Lock()
	at := g.clk.timer.armed
	g.clk.timer.mu.Unlock()
	if at.IsZero() {
		g.t.Fatal("deadline timer not armed")
	}
	if now := g.clk.Now(); at.Before(now) {
		g.t.Fatalf("deadline timer armed for %v, in the past", now.Sub(at))
	}
	g.clk.advance(at.Sub(g.clk.Now()))
	g.clk.timer.ch <- g.clk.Now()
	g.settle()
	return at
}

// TestLoopDeadlineTimer: the deadman's stop frame goes out when the deadline timer fires, cmd_timeout + 1 ns
// after the last command, between ticks; the timer is armed for each hand-over first, and the source topic
// names each hand-over with the previous input's command age.
func TestLoopDeadlineTimer(t *testing.T) {
	g := newLoopRig(t)
	peer, op := api.Peer{PID: os.Getpid()}, api.Peer{PID: os.Getppid()}
	g.r.Scan(peer, &api.Scan{}, true)
	g.r.Enable(peer, true)
	for range 10 { // autonomous drives, ramped up (one command per tick)
		g.r.Scan(peer, &api.Scan{}, true)
		g.r.CmdVel(peer, motion.InputAutonomous, api.Twist{VX: 0.1}, false)
		g.tick()
	}
	if st := g.tick(); st.Source != "autonomous" || st.BodyVel[0] != 0.1 {
		t.Fatalf("autonomous driving: source %q body %v", st.Source, st.BodyVel)
	}
	// The operator takes over with zero: no trip (another pid on another input), source manual at once.
	last := g.clk.Now()
	g.r.CmdVel(op, motion.InputManual, api.Twist{}, false)
	g.r.CmdVel(peer, motion.InputAutonomous, api.Twist{VX: 0.1}, false)
	st := g.tick()
	if st.EStop != nil || st.Source != "manual" || st.BodyVel != [3]float64{} {
		t.Fatalf("take-over: estop %s source %q body %v", strp(st.EStop), st.Source, st.BodyVel)
	}
	// Both fall silent at the same instant: no hand-over is due (autonomous goes stale with manual), so the
	// timer is armed for the deadman, cmd_timeout + 1 ns after the last command.
	if at := g.fire(); at.Sub(last) != 300*time.Millisecond+1 {
		t.Fatalf("deadline %v after the last commands, want cmd_timeout + 1 ns", at.Sub(last))
	}
	st, _ = g.r.State()
	if st.Blocked == nil || *st.Blocked != motion.BlockCmdTimeout || st.Source != motion.SourceNone {
		t.Fatalf("after the deadman's deadline: blocked %s source %q", strp(st.Blocked), st.Source)
	}
	// cmd_vel alone, moving: the deadman's stop frame comes from the timer, between ticks.
	for range 10 {
		g.r.Scan(peer, &api.Scan{}, true)
		last = g.clk.Now()
		g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.1}, false)
		g.tick()
	}
	g.clk.advance(7 * time.Millisecond) // off the tick grid
	n := len(g.frames())
	if f := g.frames(); f[len(f)-1] == ([4]float64{}) {
		t.Fatal("not moving before the deadman")
	}
	if at := g.fire(); at.Sub(last) != 300*time.Millisecond+1 {
		t.Fatalf("deadman deadline %v after the last command, want cmd_timeout + 1 ns", at.Sub(last))
	}
	if f := g.frames(); len(f) != n+1 || f[n] != [4]float64{} {
		t.Fatalf("deadman by the timer: %d new frames, want the stop frame", len(f)-n)
	}
}

// TestLoopPublishersPerInput: one sender on each input is arbitration; two senders on one input trip with
// that input's reason.
func TestLoopPublishersPerInput(t *testing.T) {
	g := newLoopRig(t)
	a, b := api.Peer{PID: os.Getpid()}, api.Peer{PID: os.Getppid()}
	g.r.Enable(a, true)
	g.r.CmdStream(a, motion.InputAutonomous, true)
	g.r.CmdStream(b, motion.InputManual, true)
	g.r.CmdVel(a, motion.InputAutonomous, api.Twist{VX: 0.1}, true)
	g.r.CmdVel(b, motion.InputManual, api.Twist{}, true)
	st := g.tick()
	if st.EStop != nil || len(st.Publishers) != 2 {
		t.Fatalf("one per input: estop %s publishers %+v", strp(st.EStop), st.Publishers)
	}
	g.r.CmdStream(a, motion.InputManual, true)
	st = g.tick()
	if st.EStop == nil || *st.EStop != "multiple manual/cmd_vel publishers" {
		t.Fatalf("two on manual: estop %s", strp(st.EStop))
	}
}

func strp(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}
