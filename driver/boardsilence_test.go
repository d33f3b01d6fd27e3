package driver

// The board-silence rule (issue 34, "no motion without a deliberate act"): a board that had been talking and
// falls silent for more than BoardSilentAfter latches the e-stop, which holds when its frames return. On the
// injected clock: exact in time, no sockets.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/breakrule"
	"github.com/rosorin/rosorin/protocol/board"
)

// boardTalks has the board send one IMU frame and waits until the loop has taken it (stamped at the clock's
// present instant).
func (g *loopRig) boardTalks() {
	g.t.Helper()
	before := g.state().Link.Frames
	g.b.Emit(board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}}))
	waitFor(g.t, "the board frame in the loop", func() bool { return g.state().Link.Frames > before })
}

func (g *loopRig) state() api.State {
	st, err := g.r.State()
	if err != nil {
		g.t.Fatal(err)
	}
	return st
}

// TestBoardSilenceLatches: the wheels turning, the board falls silent (a firmware reset, say). At the first
// tick more than 0.5 s after its last frame the e-stop latches, with the stop frame at once and the latch file
// naming the board; not a tick before. When the board talks again the latch holds and the wheel frames stay
// zero (a commanded speed is refused) until a reset and an enable.
//
// Built with rosorin_breakrule and ROSORIN_BREAK_RULE=board-resume it checks the negative control instead:
// nothing latches and the old speed is refreshed through the silence.
func TestBoardSilenceLatches(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true)
	if r := g.r.Enable(peer, true); !r.Success {
		t.Fatal(r.Message)
	}
	cmd := api.Twist{VX: 0.2}
	for range 25 { // 0.5 s of driving with the board talking
		g.boardTalks()
		g.driveTicks(peer, cmd, 1)
	}
	g.boardTalks()
	f := g.frames()
	if f[len(f)-1][0] <= 0 {
		t.Fatalf("not moving: %v", f[len(f)-1])
	}
	moving := f[len(f)-1]
	// Silence: the commands and scans keep coming, the board says nothing.
	for i := 1; i <= 25; i++ {
		g.driveTicks(peer, cmd, 1)
		if st := g.state(); st.EStop != nil {
			t.Fatalf("latched %v after the last board frame (%q); want only after more than 0.5 s", time.Duration(i)*20*time.Millisecond, *st.EStop)
		}
	}
	n := len(g.frames())
	g.driveTicks(peer, cmd, 1) // 0.52 s
	st := g.state()
	if breakrule.On(breakrule.BoardResume) {
		if st.EStop != nil {
			t.Fatalf("board-resume broken on purpose, yet latched: %q", *st.EStop)
		}
		if f := g.frames(); f[len(f)-1] != moving {
			t.Fatalf("board-resume broken on purpose: the wheels hold %v, want the old speed %v", f[len(f)-1], moving)
		}
		t.Log("negative control: the silent board did not latch the e-stop (rule board-resume broken)")
		return
	}
	if st.EStop == nil || !strings.HasPrefix(*st.EStop, "board silent for 0.5 s (firmware reset, hang or USB gone)") ||
		!strings.Contains(*st.EStop, "reset, then enable") {
		t.Fatalf("0.52 s after the last board frame: estop %v, want the board-silence latch", st.EStop)
	}
	if st.Enabled {
		t.Fatal("still enabled after the latch")
	}
	if f := g.frames(); len(f) <= n || f[n] != ([4]float64{}) {
		t.Fatalf("the latch wrote no stop frame at once: %d new frames %v", len(f)-n, f[n:])
	}
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	waitFor(t, "the latch file", func() bool { return g.r.persist.latchWrites.Load() == 1 })
	if rec := readLatchFile(t, path); !rec.Latched || rec.Source != "board" || rec.Reason != *st.EStop {
		t.Fatalf("latch file %+v, want the board's latch", rec)
	}

	// The board is back (its firmware restarted): the latch holds, the wheels stay still.
	for range 30 {
		g.boardTalks()
		g.driveTicks(peer, cmd, 1)
	}
	if st := g.state(); st.EStop == nil || st.Enabled || st.BoardSilent {
		t.Fatalf("board back: estop %v enabled %v silent %v; want latched, disabled, not silent", st.EStop, st.Enabled, st.BoardSilent)
	}
	for i, w := range g.frames()[n:] {
		if w != ([4]float64{}) {
			t.Fatalf("frame %d after the latch: %v; the wheels moved without a reset and an enable", i, w)
		}
	}
	if r := g.r.Enable(peer, true); r.Success {
		t.Fatal("enable accepted while latched")
	}
	// The deliberate act: reset, then enable; the speed ramps up again from zero.
	if r := g.r.Reset(peer); !r.Success {
		t.Fatal(r.Message)
	}
	if r := g.r.Enable(peer, true); !r.Success {
		t.Fatal(r.Message)
	}
	g.boardTalks()
	g.driveTicks(peer, cmd, 1)
	if st := g.state(); st.EStop != nil || st.BodyVel[0] <= 0 || st.BodyVel[0] > 0.0100001 {
		t.Fatalf("after reset and enable: estop %v vx %v; want moving again, one ramp step (0.01 m/s)", st.EStop, st.BodyVel[0])
	}
}

// TestBoardSilenceOncePerSilence: a board that falls silent twice latches twice (a reset in between), and one
// long silence latches once.
func TestBoardSilenceOncePerSilence(t *testing.T) {
	if breakrule.On(breakrule.BoardResume) {
		t.Skip("rule board-resume broken on purpose")
	}
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.boardTalks()
	for range 100 { // 2 s of silence
		g.tick()
	}
	if st := g.state(); st.EStop == nil || g.r.gate.Snapshot(g.clk.Now()).Trips != 1 {
		t.Fatalf("2 s of silence: estop %v, trips %d; want latched once", st.EStop, g.r.gate.Snapshot(g.clk.Now()).Trips)
	}
	g.boardTalks()
	g.tick()
	g.r.Reset(peer)
	for range 30 {
		g.tick()
	}
	if st := g.state(); st.EStop == nil || g.r.gate.Snapshot(g.clk.Now()).Trips != 2 {
		t.Fatalf("second silence: estop %v, trips %d; want latched again", st.EStop, g.r.gate.Snapshot(g.clk.Now()).Trips)
	}
}

// TestBoardNeverTalkedDoesNotLatch: a board silent since the start (never a frame) is logged, not latched:
// motion is disabled at start anyway, and enable still works.
func TestBoardNeverTalkedDoesNotLatch(t *testing.T) {
	g := newLoopRig(t)
	for range 50 {
		g.tick()
	}
	st := g.state()
	if st.EStop != nil || !st.BoardSilent {
		t.Fatalf("never a frame, 1 s: estop %v silent %v; want silent, not latched", st.EStop, st.BoardSilent)
	}
	if r := g.r.Enable(api.Peer{PID: os.Getpid()}, true); !r.Success {
		t.Fatalf("enable: %s", r.Message)
	}
}

// TestBoardSilenceReasonSource: the latch file names the board as the latch's source, and no other rule's
// wording is taken for it.
func TestBoardSilenceReasonSource(t *testing.T) {
	r := boardSilentReason(520 * time.Millisecond)
	if got := latchSource(r); got != "board" {
		t.Errorf("latchSource(%q) = %q, want board", r, got)
	}
	if !strings.HasPrefix(r, "board silent for 0.5 s") {
		t.Errorf("reason %q", r)
	}
	for _, other := range []string{"board port reopened after USB drop", "estop request from pid 7", "key1"} {
		if latchSource(other) == "board" {
			t.Errorf("latchSource(%q) = board", other)
		}
	}
}

// TestStartLatchedUnlessSelfEnable: a driver started latched stays latched and disabled; built with
// rosorin_breakrule and ROSORIN_BREAK_RULE=self-enable (the negative control) it starts enabled instead.
func TestStartLatchedUnlessSelfEnable(t *testing.T) {
	g := newLoopRig(t, func(o *Options) { o.StartLatched = "driver restarted after killed by SIGKILL" })
	st := g.tick()
	if breakrule.On(breakrule.SelfEnable) {
		if st.EStop != nil || !st.Enabled {
			t.Fatalf("self-enable broken on purpose: estop %v enabled %v; want enabled", st.EStop, st.Enabled)
		}
		t.Log("negative control: the restarted driver enabled itself (rule self-enable broken)")
		return
	}
	if st.EStop == nil || st.Enabled {
		t.Fatalf("started latched: estop %v enabled %v", st.EStop, st.Enabled)
	}
}
