package supervisor

// The driver watchdog: a driver that is alive but hung (a deadlock, a control loop stuck inside a tick,
// SIGSTOP) never exits, so the crash-stop path (waitChild) never fires, and the board keeps the last wheel
// speed forever. The driver's control loop writes one byte per tick (heartbeat.Tick, 50 Hz) on a pipe
// the supervisor passes as childproc.HeartbeatFD; this file reads it and stops a driver that falls silent.
//
// On a hang, in this order, from the watcher goroutine (not the loop: like the crash path, the stop must not
// wait for anything):
//
//  1. SIGKILL through the pidfd. A SIGSTOPped or deadlocked process dies at once; first, so that the window in
//     which the driver could still write is already closing when the stop frame goes out.
//  2. A stop frame at once. The kill is asynchronous: a driver stuck in uninterruptible sleep (D state, e.g. a
//     wedged USB write) dies only when that syscall returns, which may be never; the wheels must not wait for
//     it.
//  3. When wait4 reaps the driver, the waiter writes a stop frame again (the ordinary crash path). This one is
//     the guarantee of order: the driver shares the port's open file and writes to it directly, so between
//     1 and its death it may still complete one write(2) (a thread that was inside the kernel, or one the
//     scheduler had not yet stopped), and a motor frame could land after the stop frame of step 2. A dead,
//     reaped process writes nothing, and tty writes of one frame are atomic (the tty's write lock), so the
//     frame written after the reap is the last frame the board hears before the next driver, which starts
//     latched and writes a stop frame first.
//
// A driver that ends its loop on purpose (SIGINT, board gone) writes heartbeat.Stopping after its own
// final stop frames; from then on it gets StopTimeout to exit before it is treated as hung, so a slow teardown
// is not reported as a hang. Before the first heartbeat it gets WatchdogStartGrace (configuration, socket).

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/internal/rawio"
)

// Watchdog defaults.
const (
	// DefaultWatchdogTimeout is 7.5 ticks at 50 Hz: a Go GC pause or a scheduling delay on a loaded 2-core
	// board computer costs a few ms to a few tens of ms, far below it, while a hung driver's wheels stop in
	// about half the deadman's 0.3 s.
	DefaultWatchdogTimeout = 150 * time.Millisecond
	// DefaultWatchdogStartGrace covers a driver's start before its first heartbeat: exec, configuration load,
	// the first stop frame, the control socket.
	DefaultWatchdogStartGrace = 5 * time.Second
)

// The supervisor's own lateness. The watcher's timer fires within a millisecond or two of its deadline
// (measured: silences of 150-151 ms at a 150 ms timeout). Woken later than lateSlack, the supervisor itself did
// not get the CPU: the whole machine stalled (a hypervisor's steal time, a storm of other work), and the driver
// most likely did not run either, so its silence proves nothing yet. Seen on the 2-core test VM: a healthy
// driver killed after "175 ms" of silence, the supervisor 25 ms late. The watchdog then gives the driver
// recheckAfter of running time to beat, at most maxRechecks times in a row, so a machine that stalls without
// end still gets a hung driver killed.
const (
	lateSlack    = 10 * time.Millisecond
	recheckAfter = 50 * time.Millisecond // 2.5 ticks at 50 Hz
	maxRechecks  = 5
)

// watchdog judges a driver's heartbeats. Pure logic: time comes in as arguments.
type watchdog struct {
	timeout, startGrace, stopGrace time.Duration
	started                        time.Time // the fork
	last                           time.Time // the last heartbeat read
	beats                          uint64
	stopping                       bool      // heartbeat.Stopping seen
	recheckAt                      time.Time // after a late wake: judge again then (zero: none)
	rechecks                       int       // late wakes since the last heartbeat
}

func newWatchdog(started time.Time, timeout, startGrace, stopGrace time.Duration) *watchdog {
	return &watchdog{started: started, timeout: timeout, startGrace: startGrace, stopGrace: stopGrace}
}

// beat records the bytes one read of the pipe returned at now.
func (w *watchdog) beat(now time.Time, b []byte) {
	if len(b) == 0 {
		return
	}
	w.beats += uint64(len(b))
	w.last = now
	w.recheckAt, w.rechecks = time.Time{}, 0
	if bytes.IndexByte(b, heartbeat.Stopping) >= 0 {
		w.stopping = true
	}
}

// silentSince is when the silence being judged began, and limit how long it may last.
func (w *watchdog) silentSince() (since time.Time, limit time.Duration) {
	switch {
	case w.stopping:
		return w.last, w.stopGrace
	case w.beats == 0:
		return w.started, w.startGrace
	default:
		return w.last, w.timeout
	}
}

// deadline is when the driver counts as hung if nothing more arrives.
func (w *watchdog) deadline() time.Time {
	since, limit := w.silentSince()
	if d := since.Add(limit); w.recheckAt.Before(d) {
		return d
	}
	return w.recheckAt
}

// verdict is check's answer.
type verdict int

const (
	verdictAlive   verdict = iota // not yet
	verdictRecheck                // the supervisor woke late (by late): judge again at deadline()
	verdictHung                   // why says so
)

// check judges the driver at now, when the watcher woke for deadline(); late is how far past it.
func (w *watchdog) check(now time.Time) (v verdict, why string, late time.Duration) {
	dl := w.deadline()
	if now.Before(dl) {
		return verdictAlive, "", 0
	}
	late = now.Sub(dl)
	if late > lateSlack && w.rechecks < maxRechecks {
		w.rechecks++
		w.recheckAt = now.Add(recheckAfter)
		return verdictRecheck, "", late
	}
	since, _ := w.silentSince()
	silent := now.Sub(since).Milliseconds()
	switch {
	case w.stopping:
		why = fmt.Sprintf("driver hung while stopping: not exited %d ms after its final stop frames", silent)
	case w.beats == 0:
		why = fmt.Sprintf("driver hung: no control-loop heartbeat %d ms after its start", silent)
	default:
		why = fmt.Sprintf("driver hung: no control-loop heartbeat for %d ms", silent)
	}
	return verdictHung, why, late
}

// watchHooks are the watcher's reports: seen for each read's time and heartbeat count (status); late when
// the supervisor woke late past a deadline and rechecks (logged, counted); hung once, when the driver is hung;
// final when the watcher returns, with the driver's final word (heartbeat.Stopping and what followed it, at
// most maxFinalWord bytes; nil if the stopping byte never came).
type watchHooks struct {
	seen  func(at time.Time, n int)
	late  func(late time.Duration, silent time.Duration)
	hung  func(why string)
	final func(word []byte)
	// clk reads the time of each heartbeat; nil = clock.Real{}.
	clk clock.Clock
}

// maxFinalWord bounds what is kept of the driver's final word (heartbeat.FinalWord: 3 bytes plus a reason of
// at most heartbeat.MaxReason).
const maxFinalWord = 512

// finalWord collects the driver's final word from the heartbeat's reads.
type finalWord struct {
	b        []byte
	stopping bool
}

// add takes one read and returns how many of its bytes are heartbeats (ticks and the stopping byte, not the
// latch line after it).
func (f *finalWord) add(chunk []byte) int {
	if !f.stopping {
		i := bytes.IndexByte(chunk, heartbeat.Stopping)
		if i < 0 {
			return len(chunk)
		}
		f.stopping = true
		f.b = append(f.b, chunk[i:min(len(chunk), i+maxFinalWord)]...)
		return i + 1
	}
	if room := maxFinalWord - len(f.b); room > 0 {
		f.b = append(f.b, chunk[:min(len(chunk), room)]...)
	}
	return 0
}

// watchHeartbeat reads the heartbeat pipe r until it ends (EOF: every write end is closed, the driver is gone)
// and, when enabled, calls h.hung once when wd says the driver is hung, then returns. It owns r and closes it.
func watchHeartbeat(r heartbeatSource, wd *watchdog, enabled bool, h watchHooks) {
	defer r.Close()
	var fw finalWord
	defer func() {
		if h.final != nil {
			h.final(fw.b)
		}
	}()
	clk := h.clk
	if clk == nil {
		clk = clock.Real{}
	}
	buf := make([]byte, 256)
	for {
		if enabled {
			_ = r.SetReadDeadline(wd.deadline())
		}
		n, err := r.Read(buf)
		now := clk.Now()
		if n > 0 {
			wd.beat(now, buf[:n])
			h.seen(now, fw.add(buf[:n]))
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return // EOF or the pipe closed: the driver is gone, and its waiter writes the stop frame
		}
		// Go's poller reports a passed deadline without reading. Bytes (or the EOF of a driver that just
		// exited) that arrived while this goroutine waited for a CPU would be missed, and a live driver
		// killed for the supervisor's own lateness: look once more, directly.
		n, eof := r.readNow(buf)
		if n > 0 {
			wd.beat(now, buf[:n])
			h.seen(now, fw.add(buf[:n]))
			continue
		}
		if eof {
			return
		}
		switch v, why, late := wd.check(now); v {
		case verdictRecheck:
			since, _ := wd.silentSince()
			h.late(late, now.Sub(since))
		case verdictHung:
			h.hung(why)
			return
		}
	}
}

// rawRead is one non-blocking read(2) of r, bypassing the poller's deadline check. eof is true on end of
// file or any error but EAGAIN.
func rawRead(r *os.File, buf []byte) (n int, eof bool) {
	rc, err := r.SyscallConn()
	if err != nil {
		return 0, true
	}
	var rerr syscall.Errno
	if err := rc.Control(func(fd uintptr) { n, rerr = rawio.Read(fd, buf) }); err != nil {
		return 0, true
	}
	switch {
	case rerr == unix.EAGAIN:
		return 0, false
	case rerr != 0 || n == 0:
		return 0, true
	}
	return n, false
}

// driverHung is the watchdog's action (see the top of this file for the order and why).
func (s *supervisor) driverHung(c *child, why string) {
	c.hung.Store(&why)
	s.watchdogTrips.Add(1)
	s.lastWatchdog.Store(&why)
	kerr := c.p.signal(syscall.SIGKILL)
	serr := s.stop.crash("driver hung (watchdog)")
	msg := why
	if serr != nil {
		msg += "; STOP FRAME FAILED (" + serr.Error() + ")"
	} else {
		msg += "; stop frame sent"
	}
	msg += fmt.Sprintf("; killing pid %d", c.pid)
	if kerr != nil && !errors.Is(kerr, errReaped) {
		msg += fmt.Sprintf(" (SIGKILL failed: %v)", kerr)
	}
	s.log.Error(msg, "child_pid", c.pid, "next", "a second stop frame when it is reaped, then a restart, latched")
}
