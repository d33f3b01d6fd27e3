package supervisor

// The watchdog's judge on an injected clock, and its watcher against a real pipe (no child processes; these
// run under -race): the trip on silence, the final word and the poller's hidden bytes. The graces, slow beats
// and the disabled watcher are in virtual time (virtual_test.go); the end-to-end tests with a SIGSTOPped
// driver are in watchdog_e2e_test.go.

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWatchdogJudge(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	w := newWatchdog(t0, 150*time.Millisecond, 5*time.Second, 3*time.Second)
	is := func(now time.Time, want verdict, wantWhy string) {
		t.Helper()
		v, why, _ := w.check(now)
		if v != want || why != wantWhy {
			t.Fatalf("at +%v: verdict %d %q, want %d %q", now.Sub(t0), v, why, want, wantWhy)
		}
	}

	// Start-up: 5 s for the first heartbeat.
	is(ms(4999), verdictAlive, "")
	is(ms(5000), verdictHung, "driver hung: no control-loop heartbeat 5000 ms after its start")

	// Running: 150 ms after the last heartbeat, whatever came before.
	w.beat(ms(100), []byte("."))
	w.beat(ms(120), []byte(".."))
	if w.beats != 3 || !w.deadline().Equal(ms(270)) {
		t.Fatalf("beats %d, deadline %v; want 3 and +270 ms", w.beats, w.deadline().Sub(t0))
	}
	is(ms(269), verdictAlive, "")
	is(ms(272), verdictHung, "driver hung: no control-loop heartbeat for 152 ms")
	w.beat(ms(300), nil) // an empty read is not a heartbeat
	if !w.deadline().Equal(ms(270)) {
		t.Fatal("an empty read moved the deadline")
	}

	// Stopping: after the stopping byte (even inside a batch), the stop grace; further ticks do not undo it.
	w.beat(ms(400), []byte(".q"))
	w.beat(ms(410), []byte("."))
	is(ms(3409), verdictAlive, "")
	if v, why, _ := w.check(ms(3410)); v != verdictHung || !strings.HasPrefix(why, "driver hung while stopping: not exited 3000 ms") {
		t.Fatalf("after the stop grace: %d %q", v, why)
	}
}

// TestWatchdogLateWake: a supervisor that wakes more than lateSlack past the deadline gives the driver
// recheckAfter more, at most maxRechecks times in a row; a heartbeat resets the count; on time, it trips.
func TestWatchdogLateWake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	w := newWatchdog(t0, 150*time.Millisecond, time.Second, time.Second)
	w.beat(ms(0), []byte("."))

	// 10 ms late is on time: trip.
	if v, _, late := w.check(ms(160)); v != verdictHung || late != 10*time.Millisecond {
		t.Fatalf("10 ms late: %d (late %v), want hung", v, late)
	}
	// 25 ms late (the stall seen on the test VM): recheck 50 ms later; the driver beats meanwhile: alive.
	if v, _, _ := w.check(ms(175)); v != verdictRecheck || !w.deadline().Equal(ms(225)) {
		t.Fatalf("25 ms late: %d, deadline +%v; want recheck at +225 ms", v, w.deadline().Sub(t0))
	}
	w.beat(ms(180), []byte("."))
	if w.rechecks != 0 || !w.deadline().Equal(ms(330)) {
		t.Fatalf("after a beat: rechecks %d, deadline +%v; want 0 and +330 ms", w.rechecks, w.deadline().Sub(t0))
	}
	// Late, then on time at the recheck with no beat: hung, the silence counted from the last beat.
	if v, _, _ := w.check(ms(360)); v != verdictRecheck {
		t.Fatal("30 ms late: no recheck")
	}
	if v, why, _ := w.check(ms(411)); v != verdictHung || why != "driver hung: no control-loop heartbeat for 231 ms" {
		t.Fatalf("on time at the recheck: %d %q", v, why)
	}
	// A machine that stalls at every wake: maxRechecks, then hung anyway.
	w2 := newWatchdog(t0, 150*time.Millisecond, time.Second, time.Second)
	w2.beat(ms(0), []byte("."))
	now := ms(0)
	for i := 0; i <= maxRechecks; i++ {
		now = w2.deadline().Add(40 * time.Millisecond)
		v, _, _ := w2.check(now)
		if want := map[bool]verdict{true: verdictRecheck, false: verdictHung}[i < maxRechecks]; v != want {
			t.Fatalf("late wake %d: %d, want %d", i+1, v, want)
		}
	}
	t.Logf("always 40 ms late: hung after %v of silence", now.Sub(ms(0)))
}

// beatPipe is a heartbeat pipe with the read end under the poller, as heartbeatPipe makes it.
func beatPipe(t *testing.T) (r *os.File, w beatWriter, closeW func()) {
	t.Helper()
	fd, rf, err := heartbeatPipe()
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeW = func() { once.Do(func() { unix.Close(fd) }) }
	t.Cleanup(closeW)
	return rf, beatWriter(fd), closeW
}

// beatWriter writes heartbeats the way the driver child does (childproc.HeartbeatWriter): one raw write(2).
type beatWriter int

func (w beatWriter) Write(p []byte) (int, error) {
	n, err := unix.Write(int(w), p)
	if err != nil {
		return 0, err
	}
	return n, nil
}

type watchRun struct {
	mu    sync.Mutex
	beats int
	hung  string
	at    time.Time
	done  chan struct{}
}

func startWatch(r *os.File, wd *watchdog, enabled bool) *watchRun {
	w := &watchRun{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		watchHeartbeat(newFileHeartbeat(r), wd, enabled, watchHooks{
			seen: func(_ time.Time, n int) { w.mu.Lock(); w.beats += n; w.mu.Unlock() },
			late: func(time.Duration, time.Duration) {},
			hung: func(why string) { w.mu.Lock(); w.hung, w.at = why, time.Now(); w.mu.Unlock() },
		})
	}()
	return w
}

func (w *watchRun) result() (beats int, hung string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.beats, w.hung, w.at
}

// beatFor writes a heartbeat every period for d and returns the time of the last one.
func beatFor(t *testing.T, w beatWriter, period, d time.Duration) time.Time {
	t.Helper()
	var last time.Time
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(period) {
		if _, err := w.Write([]byte{'.'}); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
	}
	return last
}

// TestWatcherTripsOnSilence: beats every 20 ms, then silence: onHung once, timeout after the last beat.
func TestWatcherTripsOnSilence(t *testing.T) {
	const timeout = 100 * time.Millisecond
	r, w, _ := beatPipe(t)
	run := startWatch(r, newWatchdog(time.Now(), timeout, time.Second, time.Second), true)
	last := beatFor(t, w, 20*time.Millisecond, 300*time.Millisecond)
	select {
	case <-run.done:
	case <-time.After(2 * time.Second):
		t.Fatal("no trip 2 s after the heartbeats stopped")
	}
	beats, why, at := run.result()
	lat := at.Sub(last)
	t.Logf("silence after %d beats: trip %v after the last beat (timeout %v): %s", beats, lat.Round(time.Millisecond), timeout, why)
	if lat < timeout || lat > timeout+150*time.Millisecond {
		t.Errorf("trip %v after the last beat, want in [%v, %v]", lat, timeout, timeout+150*time.Millisecond)
	}
	if !strings.HasPrefix(why, "driver hung: no control-loop heartbeat for ") || beats < 5 {
		t.Errorf("why %q after %d beats", why, beats)
	}
}

// TestRawReadSeesWhatThePollerHides: with a deadline already passed, Go's Read reports the timeout without
// reading the byte that is there; rawRead finds it (the supervisor's own lateness must not kill a live driver).
func TestRawReadSeesWhatThePollerHides(t *testing.T) {
	r, w, closeW := beatPipe(t)
	if _, err := w.Write([]byte{'.'}); err != nil {
		t.Fatal(err)
	}
	_ = r.SetReadDeadline(time.Now().Add(-time.Second))
	buf := make([]byte, 8)
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read with a past deadline: %d, %v; the poller's behaviour changed, revisit watchHeartbeat", n, err)
	}
	if n, eof := rawRead(r, buf); n != 1 || eof {
		t.Fatalf("rawRead: %d bytes, eof %v; want the waiting byte", n, eof)
	}
	if n, eof := rawRead(r, buf); n != 0 || eof {
		t.Fatalf("rawRead of an empty pipe: %d, eof %v; want EAGAIN", n, eof)
	}
	closeW()
	if _, eof := rawRead(r, buf); !eof {
		t.Fatal("rawRead after the write end closed: no EOF")
	}
	r.Close()
}
