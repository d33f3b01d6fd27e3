package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/board"
)

// holdWriter is a board port whose writes can be held: while held, a write blocks in the kernel (a hung USB
// device) until release. It records when each write returned.
type holdWriter struct {
	mu       sync.Mutex
	held     bool
	release  chan struct{}
	entered  chan struct{} // receives once per held write when it begins
	returned []time.Time
	frames   [][]byte
	heldBack time.Time // when the last held write returned
	heldF    []byte    // and its frame
}

func newHoldWriter() *holdWriter {
	return &holdWriter{release: make(chan struct{}), entered: make(chan struct{}, 16)}
}

func (h *holdWriter) hold() {
	h.mu.Lock()
	h.held = true
	h.release = make(chan struct{})
	h.mu.Unlock()
}

// unhold releases held writes; idempotent (also a cleanup: a failed test must not leave the driver stuck).
func (h *holdWriter) unhold() {
	h.mu.Lock()
	if h.held {
		h.held = false
		close(h.release)
	}
	h.mu.Unlock()
}

func (h *holdWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	held, rel := h.held, h.release
	h.mu.Unlock()
	if held {
		h.entered <- struct{}{}
		<-rel
		h.mu.Lock()
		h.heldBack, h.heldF = time.Now(), append([]byte(nil), p...)
		h.mu.Unlock()
	}
	h.mu.Lock()
	h.frames = append(h.frames, append([]byte(nil), p...))
	h.returned = append(h.returned, time.Now())
	h.mu.Unlock()
	return len(p), nil
}

// waitFor polls cond every millisecond for up to 3 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(3 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readLatchFile(t *testing.T, path string) latchRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := parseLatch(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec
}

var testPeer = api.Peer{PID: os.Getpid()}

// TestLatchFileAfterStopFrame: an e-stop's latch reaches the disk only once its stop frame reached the port.
// The port's write is held: the persister waits for that frame, the loop ticks on (virtual time), and no file
// appears; the write completes and the file appears, latched with the request's reason, stamped after the
// write returned.
func TestLatchFileAfterStopFrame(t *testing.T) {
	hw := newHoldWriter()
	g := newLoopRig(t, func(o *Options) { o.BoardOut = hw })
	t.Cleanup(hw.unhold) // runs before the rig's stop
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	g.tick()
	hw.hold()
	rep := g.r.EStop(testPeer, "durable test")
	if !rep.Success {
		t.Fatalf("estop: %+v", rep)
	}
	<-hw.entered // the stop frame's write has begun and is stuck
	waitFor(t, "the persister to wait for the stop frame (or to write too early)", func() bool {
		return g.r.persist.waitingFor.Load() != 0 || g.r.persist.latchWrites.Load() != 0
	})
	for range 10 { // 0.2 s of virtual time: refresh frames are queued behind the stuck one
		g.clk.advance(20 * time.Millisecond)
		g.clk.ch <- g.clk.Now()
		g.r.State()
	}
	time.Sleep(20 * time.Millisecond) // real time for a persister that would not wait to write
	if fileExists(path) {
		t.Fatal("latch file written while the stop frame's write was still blocked")
	}
	if g.r.persist.latchWrites.Load() != 0 {
		t.Fatal("latch counted as written before the stop frame")
	}
	hw.unhold()
	waitFor(t, "the latch file", func() bool { return g.r.persist.latchWrites.Load() == 1 })
	rec := readLatchFile(t, path)
	if !rec.Latched || !strings.Contains(rec.Reason, "durable test") || rec.Source != "api" || rec.PID != os.Getpid() {
		t.Fatalf("latch file: %+v", rec)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	hw.mu.Lock()
	firstReturn, stopped := hw.heldBack, board.IsStopFrame(hw.heldF)
	hw.mu.Unlock()
	if !stopped {
		t.Fatal("the held write was not the stop frame")
	}
	if st.ModTime().Before(firstReturn.Add(-10 * time.Millisecond)) { // mtime granularity
		t.Fatalf("file written at %v, before the stop frame's write returned at %v", st.ModTime(), firstReturn)
	}
	t.Logf("stop frame write returned -> latch file durable (fsync, rename, fsync dir): %.3f ms",
		float64(g.r.persist.lastLatency.Load())/1e6)
}

// TestLatchFileReset: a reset removes the file; a new latch writes it again.
func TestLatchFileReset(t *testing.T) {
	g := newLoopRig(t)
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	g.r.EStop(testPeer, "one")
	waitFor(t, "the latch file", func() bool { return fileExists(path) })
	if rep := g.r.Reset(testPeer); !rep.Success {
		t.Fatalf("reset: %+v", rep)
	}
	waitFor(t, "the latch file's removal", func() bool { return !fileExists(path) })
	g.r.EStop(testPeer, "two")
	waitFor(t, "the second latch", func() bool { return g.r.persist.latchWrites.Load() == 2 })
	if rec := readLatchFile(t, path); !strings.Contains(rec.Reason, "two") {
		t.Fatalf("second latch: %+v", rec)
	}
}

// TestLatchSurvivesRestart: a driver latched and stopped; the next one on the same state directory starts
// latched with the reason from the file, refuses enable, and its reset clears the file; the one after starts
// unlatched. A third start, handed its predecessor's latch by the supervisor, does not nest the reason.
func TestLatchSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	inDir := func(o *Options) { o.StateDir = dir }
	path := filepath.Join(dir, LatchFileName)

	g := newLoopRig(t, inDir)
	g.r.EStop(testPeer, "before restart")
	waitFor(t, "the latch file", func() bool { return fileExists(path) })
	g.stop()

	g = newLoopRig(t, inDir)
	st := g.tick()
	want := "e-stop latched before the restart: estop request from pid"
	if st.EStop == nil || !strings.HasPrefix(*st.EStop, want) || !strings.Contains(*st.EStop, "before restart") ||
		!strings.HasSuffix(*st.EStop, "(kept in "+path+")") {
		t.Fatalf("restarted driver: e-stop %v, want %q... naming %s", st.EStop, want, path)
	}
	if rep := g.r.Enable(testPeer, true); rep.Success {
		t.Fatalf("enable of a driver restarted latched: %+v", rep)
	}
	reason := *st.EStop
	g.stop()

	// The supervisor hands the latch over as well (the final word): the reason stays as it was.
	g = newLoopRig(t, inDir, func(o *Options) { o.StartLatched = reason })
	if st := g.tick(); st.EStop == nil || *st.EStop != reason {
		t.Fatalf("third start: %v, want %q", st.EStop, reason)
	}
	if rec := readLatchFile(t, path); !strings.Contains(rec.Reason, "before restart") || strings.Contains(rec.Reason, "restart: e-stop latched") {
		t.Fatalf("file after restarts: %+v", rec)
	}
	g.r.Reset(testPeer)
	waitFor(t, "the latch file's removal", func() bool { return !fileExists(path) })
	if rep := g.r.Enable(testPeer, true); !rep.Success {
		t.Fatalf("enable after reset: %+v", rep)
	}
	g.stop()

	g = newLoopRig(t, inDir)
	if st := g.tick(); st.EStop != nil {
		t.Fatalf("start after the reset: e-stop %q", *st.EStop)
	}
}

// TestLatchAtStartFromFile: what the file says decides the start: missing and "not latched" start unlatched;
// corrupt, unreadable and newer-format files start latched with a reason that names the file, and the file is
// left as found.
func TestLatchAtStartFromFile(t *testing.T) {
	for _, c := range []struct {
		name    string
		content string // "" with dir: a folder in its place; "-": no file
		dir     bool
		latched string // a substring of the reason; "" not latched
	}{
		{name: "missing", content: "-"},
		{name: "not latched", content: `{"version":1,"latched":false,"time":"2026-12-04T18:00:00Z"}`},
		{name: "latched", content: `{"version":1,"latched":true,"reason":"gamepad button 0x0100","time":"2026-12-04T18:00:00Z"}`,
			latched: "e-stop latched before the restart: gamepad button 0x0100"},
		{name: "corrupt", content: `{"version":1,"lat`, latched: "unreadable"},
		{name: "newer", content: `{"version":7,"state":"latched"}`, latched: "newer format version 7"},
		{name: "unreadable", dir: true, latched: "unreadable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, LatchFileName)
			switch {
			case c.dir:
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			case c.content != "-":
				if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			g := newLoopRig(t, func(o *Options) { o.StateDir = dir })
			st := g.tick()
			if c.latched == "" {
				if st.EStop != nil {
					t.Fatalf("e-stop %q, want not latched", *st.EStop)
				}
				if rep := g.r.Enable(testPeer, true); !rep.Success {
					t.Fatalf("enable: %+v", rep)
				}
				return
			}
			if st.EStop == nil || !strings.Contains(*st.EStop, c.latched) || !strings.Contains(*st.EStop, path) {
				t.Fatalf("e-stop %v, want latched with %q naming %s", st.EStop, c.latched, path)
			}
			if rep := g.r.Enable(testPeer, true); rep.Success {
				t.Fatalf("enable of a driver started latched: %+v", rep)
			}
			g.tick()
			if !c.dir {
				if b, _ := os.ReadFile(path); string(b) != c.content {
					t.Fatalf("the file was rewritten at start: %q", b)
				}
			}
		})
	}
}

// TestLatchFromSupervisorKept: a driver the supervisor starts latched (after a crash) keeps that latch on
// disk too, so a supervisor crash right after does not clear it.
func TestLatchFromSupervisorKept(t *testing.T) {
	g := newLoopRig(t, func(o *Options) { o.StartLatched = "driver restarted after killed by SIGKILL" })
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	g.tick()
	waitFor(t, "the latch file", func() bool { return g.r.persist.latchWrites.Load() == 1 })
	if rec := readLatchFile(t, path); rec.Reason != "driver restarted after killed by SIGKILL" || rec.Source != "restart" {
		t.Fatalf("latch file: %+v", rec)
	}
}

// TestLatchFileNegativeControl: without a state directory nothing is kept, and the next start is not latched:
// the restart tests above can tell a kept latch from none.
func TestLatchFileNegativeControl(t *testing.T) {
	dir := t.TempDir()
	g := newLoopRig(t, func(o *Options) { o.StateDir = dir })
	g.r.EStop(testPeer, "gone")
	waitFor(t, "the latch file", func() bool { return fileExists(filepath.Join(dir, LatchFileName)) })
	g.stop()
	if err := os.Remove(filepath.Join(dir, LatchFileName)); err != nil {
		t.Fatal(err)
	}
	g = newLoopRig(t, func(o *Options) { o.StateDir = dir })
	if st := g.tick(); st.EStop != nil {
		t.Fatalf("started latched without the file: %q", *st.EStop)
	}
}

// TestLatchWrittenAtShutdownAfterFinalStop: the port's writer is stuck when the e-stop comes and the driver is
// stopped: the latch is written after the shutdown's final stop frames, not lost.
func TestLatchWrittenAtShutdownAfterFinalStop(t *testing.T) {
	hw := newHoldWriter()
	g := newLoopRig(t, func(o *Options) { o.BoardOut = hw })
	t.Cleanup(hw.unhold)
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	g.tick()
	hw.hold()
	g.r.EStop(testPeer, "at shutdown")
	<-hw.entered
	waitFor(t, "the persister to wait (or to write too early)", func() bool {
		return g.r.persist.waitingFor.Load() != 0 || g.r.persist.latchWrites.Load() != 0
	})
	var stopped atomic.Bool
	go func() { g.stop(); stopped.Store(true) }()
	// Run's final stop frames go to the same (held) port: they block too, so nothing may be on disk yet.
	<-hw.entered
	time.Sleep(20 * time.Millisecond)
	if fileExists(path) {
		t.Fatal("latch written before the final stop frames")
	}
	hw.unhold()
	waitFor(t, "the driver to stop", stopped.Load)
	if rec := readLatchFile(t, path); !strings.Contains(rec.Reason, "at shutdown") {
		t.Fatalf("latch file: %+v", rec)
	}
}

// TestRunParamsKeptForTheSameSupervisor: a tightened max_linear is applied again by a driver started by the
// same supervisor (here: this test process, as SupervisorPID), and dropped (file removed) by one of another
// supervisor; without a supervisor nothing is kept.
func TestRunParamsKeptForTheSameSupervisor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RunParamsFileName)
	sup := func(pid int) func(o *Options) {
		return func(o *Options) { o.StateDir, o.SupervisorPID = dir, pid }
	}
	maxLinear := func(g *loopRig) float64 {
		t.Helper()
		ps, err := g.r.Params()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Name == "max_linear" {
				return p.Value.(float64)
			}
		}
		t.Fatal("no max_linear")
		return 0
	}
	set := func(g *loopRig, v string) {
		t.Helper()
		if rep := g.r.SetParams(testPeer, []byte(`{"max_linear": `+v+`}`)); !rep.Success {
			t.Fatalf("set %s: %+v", v, rep)
		}
	}
	g := newLoopRig(t, sup(os.Getpid()))
	start := maxLinear(g)
	set(g, "0.1")
	waitFor(t, "the runtime parameter file", func() bool { return fileExists(path) })
	g.stop()

	g = newLoopRig(t, sup(os.Getpid()))
	if v := maxLinear(g); v != 0.1 {
		t.Fatalf("restart under the same supervisor: max_linear %v, want 0.1", v)
	}
	if lim := g.r.gate.Limits().MaxLinear; lim != 0.1 {
		t.Fatalf("gate limit %v, want 0.1", lim)
	}
	if st := g.tick(); st.Config.MaxLinear != 0.1 {
		t.Fatalf("state record's config: %+v", st.Config)
	}
	g.stop()

	// Another supervisor (the test's parent stands in): the kept value is dropped and its file removed.
	g = newLoopRig(t, sup(os.Getppid()))
	if v := maxLinear(g); v != start {
		t.Fatalf("new service start: max_linear %v, want the file's %v", v, start)
	}
	waitFor(t, "the other supervisor's runtime parameters to be removed", func() bool { return !fileExists(path) })
	g.stop()

	// Tightened, then back to the file's value: nothing left to keep.
	g = newLoopRig(t, sup(os.Getpid()))
	set(g, "0.1")
	waitFor(t, "the runtime parameter file", func() bool { return fileExists(path) })
	set(g, strconv.FormatFloat(start, 'f', -1, 64))
	waitFor(t, "the runtime parameter file's removal", func() bool { return !fileExists(path) })
	g.stop()

	// No supervisor: nothing kept.
	g = newLoopRig(t, sup(0))
	set(g, "0.1")
	g.tick()
	g.stop()
	if fileExists(path) {
		t.Fatal("runtime parameters kept without a supervisor")
	}
}

// TestRunParamsCheckedAgain: kept values the parameter file no longer allows (here: a looser max_linear than
// the file's after the file was tightened) are refused; the others apply.
func TestRunParamsCheckedAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, RunParamsFileName)
	g := newLoopRig(t, func(o *Options) { o.StateDir, o.SupervisorPID = dir, os.Getpid() })
	identity := func() (int, uint64) { p, s, _ := g.r.supervisorIdentity(); return p, s }
	pid, st := identity()
	g.stop()
	rec := runParamsRecord{Version: runParamsFormat, SupervisorPID: pid, SupervisorStart: st,
		Values: map[string]json.RawMessage{"max_linear": json.RawMessage("5"), "max_angular": json.RawMessage("0.5")}}
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	g = newLoopRig(t, func(o *Options) { o.StateDir, o.SupervisorPID = dir, os.Getpid() })
	lim := g.r.gate.Limits()
	def := g.r.o.Config.Limits()
	if lim.MaxLinear != def.MaxLinear || lim.MaxAngular != 0.5 {
		t.Fatalf("limits %+v: want max_linear the file's %v (5 refused) and max_angular 0.5", lim, def.MaxLinear)
	}
}

// TestPersisterNewestWins: states handed over while a latch waits replace it: a reset before the stop frame
// was written leaves no file.
func TestPersisterNewestWins(t *testing.T) {
	hw := newHoldWriter()
	t.Cleanup(hw.unhold)
	bw := newBoardWriter(hw, clock.Real{})
	dir := t.TempDir()
	p := newPersister(quietLog(), bw, filepath.Join(dir, LatchFileName))
	hw.hold()
	seq := bw.send(board.StopFrame())
	<-hw.entered
	p.putLatch(latchJobFor("first", seq, time.Now()))
	waitFor(t, "the persister to wait (or to write too early)", func() bool { return p.waitingFor.Load() == seq || p.latchWrites.Load() != 0 })
	p.putLatch(latchJob{}) // reset
	waitFor(t, "the removal", func() bool { return p.latchRemoves.Load() == 1 })
	hw.unhold()
	bw.stop(time.Second)
	if !p.close(time.Second) {
		t.Fatal("persister did not end")
	}
	if fileExists(filepath.Join(dir, LatchFileName)) || p.latchWrites.Load() != 0 {
		t.Fatal("a latch reset before its stop frame was written still reached the disk")
	}
}

// TestStandLatchFileGamepad: on the pty board, a gamepad button's latch reaches the file (source "gamepad"),
// and the gamepad's MODE hold reset removes it: the file follows every latch and reset, not only the API's.
func TestStandLatchFileGamepad(t *testing.T) {
	if testing.Short() {
		t.Skip("2.5 s of MODE hold")
	}
	s := newStand(t)
	path := filepath.Join(s.dir, "state", LatchFileName)
	s.b.pad(board.Gamepad{Buttons: board.BtnR1})
	waitFor(t, "the gamepad latch on disk", func() bool { return fileExists(path) })
	if rec := readLatchFile(t, path); rec.Reason != "gamepad button 0x8000" || rec.Source != "gamepad" {
		t.Fatalf("latch file: %+v", rec)
	}
	mode := uint16(1 << board.DefaultModeBit)
	for t0 := time.Now(); time.Since(t0) < 2300*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		s.b.pad(board.Gamepad{Buttons: mode})
	}
	if st := s.state(); st.EStop != nil {
		t.Fatalf("MODE hold did not reset: %q", *st.EStop)
	}
	waitFor(t, "the latch file's removal after the MODE hold", func() bool { return !fileExists(path) })
}

// TestSlowDiskNeverDelaysTheLoop: the latch file's write (its fsync) is stuck for as long as the test likes:
// the control loop ticks on, answers requests and resets the latch meanwhile; when the disk comes back, the
// newest state (reset: no file) is what the file ends up showing.
func TestSlowDiskNeverDelaysTheLoop(t *testing.T) {
	g := newLoopRig(t)
	g.tick() // run has started the persister
	path := filepath.Join(g.r.o.StateDir, LatchFileName)
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	g.r.persist.writeFile = func(path string, data []byte, perm os.FileMode) error {
		entered <- struct{}{}
		<-release
		return writeFileDurable(path, data, perm)
	}
	g.r.EStop(testPeer, "slow disk")
	<-entered      // the persister is inside the write
	for range 50 { // one second of virtual ticks, each answered while the disk is stuck
		st := g.tick()
		if st.EStop == nil {
			t.Fatal("latch lost while its file was being written")
		}
	}
	if rep := g.r.Reset(testPeer); !rep.Success {
		t.Fatalf("reset while the disk is stuck: %+v", rep)
	}
	g.tick()
	unblock()
	waitFor(t, "the reset to reach the disk", func() bool { return g.r.persist.latchRemoves.Load() == 1 })
	if fileExists(path) {
		t.Fatal("the latch file is left after a reset made while it was being written")
	}
}
