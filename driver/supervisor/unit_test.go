package supervisor

import (
	"bytes"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/protocol/board"
)

// TestTeeNeverBlocks: a driver pipe that nobody drains loses chunks (counted) and a dead driver's pipe is no
// longer written; a raw client that nobody drains is disconnected (counted); a draining sink gets everything
// in order; removing the driver's sink closes its pipe.
func TestTeeNeverBlocks(t *testing.T) {
	tt := newTee()
	feed := &fakeFeed{room: 2}
	drv := tt.addFeed(feed)
	raw := tt.addRaw(2)
	good := tt.addRaw(100)
	for i := 0; i < 5; i++ {
		tt.write([]byte{byte(i)})
	}
	if got := tt.driverDrops.Load(); got != 3 {
		t.Errorf("driver dropped %d bytes, want 3", got)
	}
	if !bytes.Equal(feed.got, []byte{0, 1}) {
		t.Errorf("driver pipe got % x, want 00 01", feed.got)
	}
	if got := tt.droppedRaw.Load(); got != 1 {
		t.Errorf("%d raw clients dropped, want 1", got)
	}
	if _, ok := <-raw.ch; !ok {
		t.Error("dropped raw client lost its queued data")
	}
	<-raw.ch
	if _, ok := <-raw.ch; ok {
		t.Error("dropped raw client's queue not closed")
	}
	for i := 0; i < 5; i++ {
		if c := <-good.ch; c[0] != byte(i) {
			t.Fatalf("chunk %d = %d", i, c[0])
		}
	}
	if n := tt.rawSinks.Load(); n != 1 {
		t.Errorf("%d raw sinks, want 1", n)
	}

	feed.room, feed.err = 100, syscall.EPIPE // the driver died: one failed write, then none
	tt.write([]byte{5})
	tt.write([]byte{6})
	if feed.tries != 6 {
		t.Errorf("%d writes tried on the driver's pipe, want 6 (none after EPIPE)", feed.tries)
	}
	tt.remove(drv)
	tt.remove(drv) // idempotent
	if feed.closes != 1 {
		t.Errorf("driver pipe closed %d times, want 1", feed.closes)
	}
	tt.closeAll()
	<-good.ch // 5
	<-good.ch // 6
	if _, ok := <-good.ch; ok {
		t.Error("closeAll left a queue open")
	}
}

// fakeFeed is a driver pipe with room for room chunks, then full; err fails every write.
type fakeFeed struct {
	room, tries, closes int
	err                 error
	got                 []byte
}

func (f *fakeFeed) tryWrite(c []byte) error {
	f.tries++
	if f.err != nil {
		return f.err
	}
	if len(f.got) >= f.room {
		return errFeedFull
	}
	f.got = append(f.got, c...)
	return nil
}

func (f *fakeFeed) Close() error { f.closes++; return nil }

// TestRestartDelay: kills restart at the short delay; a driver that keeps exiting by itself right after its
// start backs off (doubling up to 5 s); one that ran a while resets the back-off.
func TestRestartDelay(t *testing.T) {
	s := &supervisor{cfg: Config{RestartDelay: 500 * time.Millisecond}, crashDelay: 500 * time.Millisecond}
	start := time.Unix(100, 0)
	ev := func(ws syscall.WaitStatus, ran time.Duration) exitEvent {
		return exitEvent{c: &child{started: start}, ws: ws, reaped: start.Add(ran)}
	}
	const exited1 = syscall.WaitStatus(1 << 8) // exit status 1
	const killed = syscall.WaitStatus(syscall.SIGKILL)
	var got []time.Duration
	for _, e := range []exitEvent{
		ev(killed, 100*time.Millisecond), ev(exited1, time.Second), ev(exited1, time.Second), ev(exited1, time.Second),
		ev(exited1, time.Second), ev(exited1, time.Second), ev(exited1, time.Second), ev(exited1, 10*time.Second),
		ev(exited1, time.Second),
	} {
		got = append(got, s.restartDelay(e))
	}
	want := []time.Duration{500, 500, 1000, 2000, 4000, 5000, 5000, 500, 500}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("restart delays %v, want %v ms", got, want)
		}
	}
}

// naiveFrames is a board parser that does not resynchronise: after a header it trusts the length byte, and a
// frame with a bad checksum is dropped whole, with everything its length covered (a firmware weaker than the
// reference's rule, which drops one byte and searches again). It returns the frames whose checksum held.
func naiveFrames(b []byte) [][]byte {
	var out [][]byte
	for i := 0; i+1 < len(b); {
		if b[i] != 0xAA || b[i+1] != 0x55 {
			i++
			continue
		}
		if i+4 > len(b) {
			break
		}
		n := int(b[i+3])
		end := i + 4 + n + 1
		if end > len(b) {
			break
		}
		if board.CRC8(b[i+2:end-1]) == b[end-1] {
			out = append(out, b[i:end])
		}
		i = end
	}
	return out
}

// TestCrashStopSurvivesACutFrame: a driver killed in the middle of a motor frame's write leaves a cut frame on
// the wire; the crash path's stop write must still leave a whole stop frame for a parser that trusts the cut
// frame's length byte and swallows what follows as its payload. One stop frame is swallowed; the crash path
// writes two back to back. Every cut that kept the length byte (4 to 26 of the 27 bytes) is tried.
func TestCrashStopSurvivesACutFrame(t *testing.T) {
	motor, err := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	single := 0
	for cut := 4; cut < len(motor); cut++ {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		st := newStopper()
		st.set(w)
		if _, err := w.Write(motor[:cut]); err != nil {
			t.Fatal(err)
		}
		if err := st.crash("driver killed by SIGKILL"); err != nil {
			t.Fatal(err)
		}
		w.Close()
		got, _ := io.ReadAll(r)
		r.Close()
		wire := got[cut:]
		if len(wire) != 2*len(board.StopFrame()) || !board.IsStopFrame(wire[:len(wire)/2]) || !board.IsStopFrame(wire[len(wire)/2:]) {
			t.Fatalf("crash stop write: % x, want two stop frames back to back", wire)
		}
		if n, _, _ := st.stats(); n != 2 {
			t.Fatalf("stop frames counted %d, want 2", n)
		}
		stops := 0
		for _, f := range naiveFrames(got) {
			if board.IsStopFrame(f) {
				stops++
			}
		}
		if stops == 0 {
			t.Fatalf("cut after %d bytes: no stop frame survived the naive parser (wire % x)", cut, got)
		}
		// The negative control: one stop frame after the same cut.
		one := append(append([]byte(nil), motor[:cut]...), board.StopFrame()...)
		for _, f := range naiveFrames(one) {
			if board.IsStopFrame(f) {
				single++
			}
		}
	}
	if single != 0 {
		t.Fatalf("a single stop frame survived %d cuts: the naive parser does not model the failure", single)
	}
}

// TestRestartLatch: the e-stop the next driver starts latched with, from how the last one ended.
func TestRestartLatch(t *testing.T) {
	for _, c := range []struct {
		name string
		end  driverEnd
		usb  bool
		want string
	}{
		{"clean exit, not latched (SIGTERM by someone)", driverEnd{how: "exit status 0", clean: true}, false, ""},
		{"clean exit, latched: the reason is kept", driverEnd{how: "exit status 0", clean: true, latch: "gamepad button 0x0040"}, false, "gamepad button 0x0040"},
		{"SIGKILL", driverEnd{how: "killed by SIGKILL"}, false, "driver restarted after killed by SIGKILL"},
		{"crash", driverEnd{how: "exit status 2"}, false, "driver restarted after exit status 2"},
		{"watchdog", driverEnd{how: "killed by SIGKILL (watchdog: driver hung: no control-loop heartbeat for 150 ms)"}, false,
			"driver restarted after killed by SIGKILL (watchdog: driver hung: no control-loop heartbeat for 150 ms)"},
		{"exit status 0 without a final word", driverEnd{how: "exit status 0 without its final word"}, false,
			"driver restarted after exit status 0 without its final word"},
		{"USB drop, driver stopped cleanly", driverEnd{how: "exit status 0", clean: true}, true, "board port reopened after USB drop"},
		{"USB drop, driver failed on the write", driverEnd{how: "exit status 1"}, true, "board port reopened after USB drop"},
		{"USB drop after a latch: the first reason is kept", driverEnd{how: "exit status 1", latch: "estop request from pid 9 (curl)"}, true,
			"estop request from pid 9 (curl)"},
	} {
		if got := restartLatch(c.end, c.usb); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestFinalWordParse: the driver's final word as the watcher collects it from reads of any size.
func TestFinalWordParse(t *testing.T) {
	for _, c := range []struct {
		reads []string
		latch string
		ok    bool
	}{
		{[]string{"....qU\n"}, "", true},
		{[]string{"..", ".q", "U", "\n"}, "", true},
		{[]string{"...qLgamepad button 0x0040\n"}, "gamepad button 0x0040", true},
		{[]string{".qL", "estop request from pid 4 (curl): x\n"}, "estop request from pid 4 (curl): x", true},
		{[]string{"....."}, "", false},          // never stopped
		{[]string{"..qL"}, "", false},           // cut short
		{[]string{"..qX\n"}, "", false},         // garbled
		{[]string{"..qL\n"}, "", false},         // latched without a reason
		{[]string{"..qLa\nb\n"}, "", false},     // two lines
		{[]string{"..qU\n", "...."}, "", false}, // ticks after the final word: not a clean end
	} {
		var f finalWord
		beats := 0
		for _, r := range c.reads {
			beats += f.add([]byte(r))
		}
		latch, ok := heartbeat.ParseFinalWord(f.b)
		if latch != c.latch || ok != c.ok {
			t.Errorf("reads %q: (%q, %v), want (%q, %v)", c.reads, latch, ok, c.latch, c.ok)
		}
		all := strings.Join(c.reads, "")
		if q := strings.IndexByte(all, 'q'); q >= 0 && beats != q+1 || q < 0 && beats != len(all) {
			t.Errorf("reads %q: %d heartbeats counted, want the bytes up to the stopping byte", c.reads, beats)
		}
	}
	var f finalWord
	f.add([]byte("q"))
	f.add(bytes.Repeat([]byte("x"), 4*maxFinalWord))
	if len(f.b) != maxFinalWord {
		t.Fatalf("final word kept %d bytes, want at most %d", len(f.b), maxFinalWord)
	}
}

// TestWatcherDeliversTheFinalWord: through a real heartbeat pipe, ticks then the final word, then the end of
// file: the final hook gets the word.
func TestWatcherDeliversTheFinalWord(t *testing.T) {
	r, w, closeW := beatPipe(t)
	got := make(chan []byte, 1)
	wd := newWatchdog(time.Now(), 150*time.Millisecond, time.Second, time.Second)
	go watchHeartbeat(newFileHeartbeat(r), wd, true, watchHooks{
		seen: func(time.Time, int) {}, late: func(time.Duration, time.Duration) {}, hung: func(string) {},
		final: func(b []byte) { got <- b },
	})
	for range 3 {
		if _, err := w.Write([]byte{'.'}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := w.Write([]byte("qLkey1\n")); err != nil {
		t.Fatal(err)
	}
	closeW()
	select {
	case b := <-got:
		if latch, ok := heartbeat.ParseFinalWord(b); !ok || latch != "key1" {
			t.Fatalf("final word %q: (%q, %v)", b, latch, ok)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no final word")
	}
}

// TestBridgeProblem: what `rosorin-base state` says of the bridge: nothing while it runs or before its first
// start, DOWN with the reason once it failed or ended.
func TestBridgeProblem(t *testing.T) {
	for _, c := range []struct {
		b    *BridgeStatus
		want string
	}{
		{nil, ""},
		{&BridgeStatus{}, ""},
		{&BridgeStatus{Running: true, Healthy: true, Starts: 1}, ""},
		{&BridgeStatus{Starts: 1, LastExit: "pid 9: signal: killed"}, "DOWN: pid 9"},
		{&BridgeStatus{Failures: 2, LastError: "not found"}, "DOWN (2 failures in a row): not found"},
		{&BridgeStatus{Running: true, Starts: 3, Failures: 2, LastError: "exited at start"}, "restarting after 2 failures"},
	} {
		if got := c.b.Problem(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}
