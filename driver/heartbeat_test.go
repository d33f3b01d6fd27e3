package driver

// The control loop's heartbeat (heartbeat.go): one byte per tick from the loop goroutine itself, silence when
// the loop is stuck, the final word after the final stop frames. Injected clock, race-safe.

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// wireLog records the board writes and the heartbeat bytes in one order.
type wireLog struct {
	mu     sync.Mutex
	events []string // "stop", "motor", or the heartbeat byte as a string
	fail   bool     // heartbeat writes fail
}

// board is the test's board (boardtest) with its writes logged as "stop" or "motor", in order with the beats.
func (l *wireLog) board() *boardtest.Board {
	return boardtest.New(boardtest.Options{OnWrite: func(p []byte) error {
		ev := "motor"
		if board.IsStopFrame(p) {
			ev = "stop"
		}
		l.mu.Lock()
		l.events = append(l.events, ev)
		l.mu.Unlock()
		return nil
	}})
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return 0, errors.New("heartbeat pipe full")
	}
	l.events = append(l.events, string(p)) // one write, one event: a tick byte, or the final word
	return len(p), nil
}

func (l *wireLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

func (l *wireLog) beats() int {
	n := 0
	for _, e := range l.snapshot() {
		if e == string(heartbeat.Tick) {
			n++
		}
	}
	return n
}

// stickyClock is a fakeClock whose Now can be made to block: a control loop stuck inside a tick.
type stickyClock struct {
	*fakeClock
	mu    sync.Mutex
	stuck chan struct{} // non-nil: Now blocks until it is closed
}

func (c *stickyClock) Now() time.Time {
	c.mu.Lock()
	ch := c.stuck
	c.mu.Unlock()
	if ch != nil {
		<-ch
	}
	return c.fakeClock.Now()
}

func (c *stickyClock) stick() {
	c.mu.Lock()
	c.stuck = make(chan struct{})
	c.mu.Unlock()
}

func (c *stickyClock) release() {
	c.mu.Lock()
	close(c.stuck)
	c.stuck = nil
	c.mu.Unlock()
}

type beatRig struct {
	t    *testing.T
	clk  *stickyClock
	r    *loopState
	log  *wireLog
	stop func()
}

func newBeatRig(t *testing.T, fail bool) *beatRig {
	clk := &stickyClock{fakeClock: newFakeClock()}
	wl := &wireLog{fail: fail}
	b := wl.board()
	r, stop := runLoop(t, Options{Config: config.Default(), BoardIn: b, BoardOut: b, Heartbeat: wl,
		Log: quietLog(), Clock: clk, StateDir: t.TempDir()})
	g := &beatRig{t: t, clk: clk, r: r, log: wl, stop: stop}
	// The loop's first beat comes before its first select: wait for it (or, when beats fail, for the state).
	if _, err := r.State(); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *beatRig) tick() {
	g.clk.advance(20 * time.Millisecond)
	g.clk.ch <- g.clk.fakeClock.Now()
}

func TestHeartbeatOnePerTickFromTheLoop(t *testing.T) {
	g := newBeatRig(t, false)
	if n := g.log.beats(); n != 1 {
		t.Fatalf("%d beats before the first tick, want 1 (the loop's start)", n)
	}
	for range 10 {
		g.tick()
	}
	g.r.State() // the loop has finished the last tick (one goroutine, in order)
	if n := g.log.beats(); n != 11 {
		t.Fatalf("%d beats after 10 ticks, want 11", n)
	}
	// Real time passing without ticks gives no beats: they come from ticks, not from a timer of their own.
	time.Sleep(60 * time.Millisecond)
	if n := g.log.beats(); n != 11 {
		t.Fatalf("%d beats after 60 ms without ticks, want 11", n)
	}

	// A loop stuck inside a tick (here: in its clock) beats no more, although every other goroutine runs.
	g.clk.stick()
	g.tick() // handed to the loop, which blocks in onTick
	time.Sleep(100 * time.Millisecond)
	if n := g.log.beats(); n != 11 {
		t.Fatalf("%d beats while the loop is stuck, want 11 (the negative control: a beat from elsewhere)", n)
	}
	g.clk.release()
	g.r.State()
	if n := g.log.beats(); n != 12 {
		t.Fatalf("%d beats after the stuck tick ended, want 12", n)
	}

	// Stopping: the final stop frames, then the final word (HeartbeatStopping, not latched), and nothing after.
	g.stop()
	ev := g.log.snapshot()
	last := len(ev) - 1
	if ev[last] != string(heartbeat.Stopping)+"U\n" {
		t.Fatalf("last event %q, want the final word %q; tail %q", ev[last], string(heartbeat.Stopping)+"U\n", ev[max(0, last-5):])
	}
	if ev[last-1] != "stop" || ev[last-2] != "stop" {
		t.Fatalf("the stopping byte does not follow the two final stop frames: tail %v", ev[max(0, last-5):])
	}
}

func TestHeartbeatFailuresDoNotStopTheLoop(t *testing.T) {
	g := newBeatRig(t, true)
	for range 20 {
		g.tick()
	}
	if _, err := g.r.State(); err != nil {
		t.Fatalf("loop not answering after failed heartbeats: %v", err)
	}
	g.stop()
	// Counters owned by the loop, read after it ended. The wheel frame goes out at the first tick and again
	// at the 0.2 s refresh (tick 11): the loop kept deciding. (The board writer may merge frames, so the
	// board's own count is not the measure.)
	if g.r.motorFrames < 2 {
		t.Fatalf("%d wheel frames in 20 ticks with a failing heartbeat, want >= 2", g.r.motorFrames)
	}
	if g.r.beatErrors < 21 || g.r.beats != 0 {
		t.Fatalf("beats %d, beat errors %d; want 0 and >= 21", g.r.beats, g.r.beatErrors)
	}
}

// TestFinalWordCarriesTheLatch: a driver that ends latched says so after its final stop frames, in the same
// write as the stopping byte, with control characters of the reason made harmless (the codec's bound on its
// length is tested in driver/heartbeat).
func TestFinalWordCarriesTheLatch(t *testing.T) {
	g := newBeatRig(t, false)
	g.r.EStop(api.Peer{PID: 42, Comm: "curl"}, "operator\nline two\x00")
	g.r.State()
	g.stop()
	ev := g.log.snapshot()
	want := string(heartbeat.Stopping) + "Lestop request from pid 42 (curl): operator line two \n"
	if last := ev[len(ev)-1]; last != want {
		t.Fatalf("final word %q, want %q", last, want)
	}
}
