//go:build linux

package supervisor

// The supervisor's timing in virtual time: the real loop (run, with its restart backoff, reopen, watchdog and
// shutdown) in a testing/synctest bubble against the in-memory operating system of fakesys_test.go. Virtual
// time is exact, so these assert the exact instants the design promises (docs/supervisor.md) where the
// real-time end-to-end tests can only bound them; those keep what only the kernel shows (SIGKILL -> stop frame
// on a real tty, pdeathsig, USB drop on a pty, the watchdog against a SIGSTOPped process, exclusivity).

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/driver/heartbeat"
)

// want fails unless got equals want exactly.
func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestVirtualRestartBackoff: a driver that keeps exiting by itself right after its start is restarted after
// 0.5, 1, 2, 4, 5, 5 s (doubling, capped at 5 s); one that ran more than 2 s restarts after 0.5 s and the
// doubling starts over. Every
// exit is followed by the crash path's double stop frame at the same instant, and every restart is latched.
func TestVirtualRestartBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		const crashAfter = 100 * time.Millisecond
		fs.driverScript = func(n int) script {
			if n == 7 {
				return script{beat: 20 * time.Millisecond, exitAfter: 3 * time.Second, exitCode: 1}
			}
			return script{beat: 20 * time.Millisecond, exitAfter: crashAfter, exitCode: 1}
		}
		v := startVirtual(t, fs, Config{})
		time.Sleep(40 * time.Second)
		synctest.Wait()
		v.stop(t)

		// Driver 7 ran 3 s: its successor starts after 0.5 s and the doubling starts over from there.
		wantGaps := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
			5 * time.Second, 5 * time.Second, 500 * time.Millisecond, 500 * time.Millisecond, time.Second}
		for i, gap := range wantGaps {
			n := i + 1
			exit, err := fs.first(fmt.Sprintf("exit driver %d status 1", n), 0)
			if err != nil {
				t.Fatal(err)
			}
			start, err := fs.first(fmt.Sprintf("start driver %d", n+1), 0)
			if err != nil {
				t.Fatal(err)
			}
			want(t, fmt.Sprintf("restart delay after driver %d", n), start-exit, gap)
			stop, err := fs.first("stop x2", exit)
			if err != nil {
				t.Fatal(err)
			}
			want(t, fmt.Sprintf("stop frame after driver %d's exit", n), stop, exit)
			want(t, fmt.Sprintf("driver %d start latch", n+1), fs.driver(n+1).startLatched(), "driver restarted after exit status 1")
		}
		want(t, "first driver's start latch", fs.driver(1).startLatched(), "")
	})
}

// TestVirtualWatchdog: a driver whose heartbeats stop is SIGKILLed exactly WatchdogTimeout after the last one,
// with a stop frame at that instant and another when it is reaped; a driver that never beats gets
// WatchdogStartGrace; one that sent its final word gets StopTimeout. Each restart is latched with the
// watchdog's reason, after the crash-loop backoff when the hang came within 2 s of the start.
func TestVirtualWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		fs.driverScript = func(n int) script {
			switch n {
			case 1:
				return script{beat: 20 * time.Millisecond, beatFor: 1010 * time.Millisecond}
			case 2:
				return script{} // never beats
			case 3:
				return script{beat: 20 * time.Millisecond, finalAt: 500 * time.Millisecond, latch: "estop request"}
			}
			return script{beat: 20 * time.Millisecond}
		}
		v := startVirtual(t, fs, Config{})
		time.Sleep(20 * time.Second)
		synctest.Wait()
		v.stop(t)

		// Driver 1: killed 150 ms after its last heartbeat.
		last := fs.since(fs.driver(1).last())
		want(t, "driver 1's last heartbeat", last, time.Second)
		kill, err := fs.first("signal driver 1 SIGKILL", 0)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "driver 1 killed after its last heartbeat", kill-last, 150*time.Millisecond)
		stops := 0
		for _, d := range fs.find("stop x2") {
			if d == kill {
				stops++
			}
		}
		want(t, "double stop frames at the kill (watchdog's, then the reap's)", stops, 2)
		start2, _ := fs.first("start driver 2", 0)
		want(t, "driver 2 started after", start2-kill, 500*time.Millisecond)
		want(t, "driver 2 start latch", fs.driver(2).startLatched(),
			"driver restarted after killed by SIGKILL (watchdog: driver hung: no control-loop heartbeat for 150 ms)")

		// Driver 2: no heartbeat at all: the start grace.
		kill2, err := fs.first("signal driver 2 SIGKILL", 0)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "driver 2 killed after its start", kill2-start2, 5*time.Second)
		start3, _ := fs.first("start driver 3", 0)
		want(t, "driver 3 started after (it hung 5 s after its start: no backoff)", start3-kill2, 500*time.Millisecond)
		if !strings.Contains(fs.driver(3).startLatched(), "no control-loop heartbeat 5000 ms after its start") {
			t.Errorf("driver 3 start latch %q", fs.driver(3).startLatched())
		}

		// Driver 3: final word at 0.5 s, then hung: StopTimeout (3 s) after it; its latch is passed on.
		kill3, err := fs.first("signal driver 3 SIGKILL", 0)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "driver 3 killed after its final word", kill3-start3, 500*time.Millisecond+3*time.Second)
		want(t, "driver 4 start latch (driver 3's own)", fs.driver(4).startLatched(), "estop request")
		if _, err := fs.first("signal driver 4 SIGKILL", 0); err == nil {
			t.Error("a beating driver was killed")
		}
		if !strings.Contains(v.log.String(), "driver hung while stopping: not exited 3000 ms after its final stop frames") {
			t.Error("no 'hung while stopping' in the log")
		}
	})
}

// TestVirtualWatchdogOff: the negative control. With the watchdog off a silent driver is never killed.
func TestVirtualWatchdogOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		fs.driverScript = func(int) script { return script{beat: 20 * time.Millisecond, beatFor: time.Second} }
		v := startVirtual(t, fs, Config{NoWatchdog: true})
		time.Sleep(60 * time.Second)
		synctest.Wait()
		if k := fs.find("signal driver 1 SIGKILL"); len(k) != 0 {
			t.Errorf("watchdog off, but the driver was killed at %v", k)
		}
		v.stop(t)
	})
}

// TestVirtualReopen: the board vanishes at 1 s: the driver gets SIGTERM at once; the port is tried every
// ReopenEvery; it returns at 2.234 s and is opened at the next try (2.24 s), where the stop frame is the first
// write, and the driver restarts at that instant, latched for the USB drop. The status says "gone" meanwhile.
func TestVirtualReopen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		v := startVirtual(t, fs, Config{})
		time.Sleep(time.Second)
		fs.unplug()
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		st, err := ReadStatus(v.socket)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "status port while gone", st.Port, PortGone)
		want(t, "status driver pid while gone", st.DriverPID, 0)
		if !strings.Contains(st.Warning, "nothing can stop them") {
			t.Errorf("status warning %q", st.Warning)
		}
		time.Sleep(734 * time.Millisecond)
		fs.plug()
		time.Sleep(time.Second)
		synctest.Wait()
		v.stop(t)

		term, err := fs.first("signal driver 1 SIGTERM", 0)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "SIGTERM after the unplug", term, time.Second)
		opens := fs.find("open")
		if len(opens) != 2 {
			t.Fatalf("opens at %v, want 2", opens)
		}
		want(t, "reopened at", opens[1], 2240*time.Millisecond)
		fs.mu.Lock()
		tries := fs.tries
		fs.mu.Unlock()
		want(t, "open tries (start, 123 failed every 10 ms while gone, the one that worked)", tries, 1+123+1)
		stop, _ := fs.first("stop x2", opens[1])
		want(t, "stop frame on the returned port", stop, opens[1])
		start2, _ := fs.first("start driver 2", 0)
		want(t, "driver 2 started at the reopen", start2, opens[1])
		want(t, "driver 2 start latch", fs.driver(2).startLatched(), latchAfterUSBDrop)
		// Nothing was written to the board while it was gone (there was nothing to write to).
		for _, e := range fs.find("stop x2") {
			if e > time.Second && e < opens[1] {
				t.Errorf("a stop frame 'written' at %v while the port was gone", e)
			}
		}
	})
}

// TestVirtualShutdown: on cancel, SIGINT to both children at once; a driver that exits writes its final word
// and its crash-path stop frame; then the supervisor writes two stop frames, closes the port and returns at
// that same instant. A driver that ignores SIGINT is SIGKILLed exactly StopTimeout later, and the
// supervisor's final frames follow its reap.
func TestVirtualShutdown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ignoreInt bool
		wait      time.Duration
	}{{"cooperative", false, 0}, {"ignores SIGINT", true, 3 * time.Second}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fs := newFakeSys()
				fs.driverScript = func(int) script { return script{beat: 20 * time.Millisecond, ignoreInt: tc.ignoreInt} }
				v := startVirtual(t, fs, Config{ReaderArgs: []string{"reader"}})
				time.Sleep(time.Second)
				v.stop(t)
				end := fs.since(time.Now())
				want(t, "run returned at", end, time.Second+tc.wait)

				for _, c := range []string{"driver 1", "reader 1"} {
					at, err := fs.first("signal "+c+" SIGINT", 0)
					if err != nil {
						t.Fatal(err)
					}
					want(t, c+" SIGINT at", at, time.Second)
				}
				kill := fs.find("signal driver 1 SIGKILL")
				if tc.ignoreInt {
					if len(kill) != 1 || kill[0] != time.Second+3*time.Second {
						t.Errorf("SIGKILL at %v, want once at 4s", kill)
					}
				} else if len(kill) != 0 {
					t.Errorf("a cooperative driver was SIGKILLed at %v", kill)
				}
				// The order of the last writes: the reap's double stop frame, the shutdown's two, the close.
				fs.mu.Lock()
				var tail []string
				for _, e := range fs.events {
					if fs.since(e.at) == end && (strings.HasPrefix(e.what, "stop") || e.what == "close port") {
						tail = append(tail, e.what)
					}
				}
				fs.mu.Unlock()
				want(t, "the last writes", strings.Join(tail, ", "), "stop x2, stop x1, stop x1, close port")
				st, err := ReadStatus(v.socket)
				if err != nil {
					t.Fatal(err)
				}
				want(t, "status port", st.Port, PortClosed)
			})
		})
	}
}

// TestVirtualReaderRespawn: a LiDAR reader that exits is started again exactly ReaderRespawnDelay later, and
// not at all with NoReaderRespawn (the live scan-gate proof's negative control).
func TestVirtualReaderRespawn(t *testing.T) {
	for _, noRespawn := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoReaderRespawn=%v", noRespawn), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fs := newFakeSys()
				fs.readerScript = func(n int) script {
					if n == 1 {
						return script{exitAfter: time.Second, exitCode: 1}
					}
					return script{}
				}
				v := startVirtual(t, fs, Config{ReaderArgs: []string{"reader"}, NoReaderRespawn: noRespawn})
				time.Sleep(10 * time.Second)
				synctest.Wait()
				v.stop(t)
				starts := fs.find("start reader 2")
				if noRespawn {
					if len(starts) != 0 {
						t.Errorf("reader respawned at %v with NoReaderRespawn", starts)
					}
					return
				}
				if len(starts) != 1 {
					t.Fatalf("reader 2 started at %v", starts)
				}
				want(t, "reader respawned at", starts[0], time.Second+2*time.Second)
				// The reader's exit does not touch the driver or the board.
				if k := fs.find("signal driver 1 SIGINT"); len(k) != 1 || k[0] != 10*time.Second {
					t.Errorf("driver signalled at %v", k)
				}
			})
		})
	}
}

// vwatch runs watchHeartbeat on a fake pipe in the bubble; beats writes a heartbeat every period for d.
func vwatch(wd *watchdog, enabled bool) (p *fakePipe, run *watchRun) {
	p = newFakePipe()
	run = &watchRun{done: make(chan struct{})}
	go func() {
		defer close(run.done)
		watchHeartbeat(p, wd, enabled, watchHooks{
			seen: func(_ time.Time, n int) { run.mu.Lock(); run.beats += n; run.mu.Unlock() },
			late: func(time.Duration, time.Duration) { panic("late wake in virtual time") },
			hung: func(why string) { run.mu.Lock(); run.hung, run.at = why, time.Now(); run.mu.Unlock() },
		})
	}()
	return p, run
}

func vbeats(p *fakePipe, period, d time.Duration) (last time.Time) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(period) {
		p.write([]byte{heartbeat.Tick})
		last = time.Now()
	}
	return last
}

// TestVirtualWatcherSlowIsNotHung: beats with gaps of 60 % of the timeout never trip; the end of the pipe (the
// driver exited) ends the watcher without a trip.
func TestVirtualWatcherSlowIsNotHung(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 100 * time.Millisecond
		p, run := vwatch(newWatchdog(time.Now(), timeout, time.Second, time.Second), true)
		vbeats(p, 60*time.Millisecond, 600*time.Millisecond)
		p.closeWrite()
		<-run.done
		if beats, why, _ := run.result(); why != "" || beats != 10 {
			t.Fatalf("slow heartbeats: %d beats, trip %q; want 10, no trip", beats, why)
		}
		// A gap 1 ms longer than the timeout trips exactly at the timeout.
		p, run = vwatch(newWatchdog(time.Now(), timeout, time.Second, time.Second), true)
		first := vbeats(p, time.Millisecond, time.Millisecond)
		time.Sleep(timeout + time.Millisecond)
		p.write([]byte{heartbeat.Tick})
		<-run.done
		_, why, at := run.result()
		want(t, "trip after the beat", at.Sub(first), timeout)
		if !strings.HasPrefix(why, "driver hung: no control-loop heartbeat for 100 ms") {
			t.Errorf("why %q", why)
		}
	})
}

// TestVirtualWatcherStartGraceAndDisabled: no heartbeat at all trips exactly after the start grace, and never
// when disabled.
func TestVirtualWatcherStartGraceAndDisabled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		_, run := vwatch(newWatchdog(t0, 50*time.Millisecond, 300*time.Millisecond, time.Second), true)
		<-run.done
		_, why, at := run.result()
		want(t, "trip after the start", at.Sub(t0), 300*time.Millisecond)
		want(t, "why", why, "driver hung: no control-loop heartbeat 300 ms after its start")

		p, off := vwatch(newWatchdog(time.Now(), 50*time.Millisecond, 100*time.Millisecond, time.Second), false)
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case <-off.done:
			t.Fatal("disabled watcher ended while the pipe is open")
		default:
		}
		p.closeWrite()
		<-off.done
		if _, why, _ := off.result(); why != "" {
			t.Fatalf("disabled watchdog tripped: %q", why)
		}
	})
}

// TestVirtualWatcherStopGrace: after the stopping byte the driver gets the stop grace, not the tick timeout.
func TestVirtualWatcherStopGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, run := vwatch(newWatchdog(time.Now(), 50*time.Millisecond, time.Second, 400*time.Millisecond), true)
		vbeats(p, 20*time.Millisecond, 100*time.Millisecond)
		p.write([]byte{heartbeat.Stopping})
		q := time.Now()
		<-run.done
		_, why, at := run.result()
		want(t, "trip after the stopping byte", at.Sub(q), 400*time.Millisecond)
		if !strings.HasPrefix(why, "driver hung while stopping: not exited 400 ms") {
			t.Errorf("why %q", why)
		}
	})
}

// TestVirtualRestartLatch: a latched driver stopped cleanly (SIGTERM, final word "L<reason>") passes its reason
// to the next; an unlatched one stopped cleanly does not latch the next; both restart after RestartDelay.
func TestVirtualRestartLatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		const reason = "estop request from pid 7 (sh): latch test"
		fs.driverScript = func(n int) script {
			if n == 1 {
				return script{beat: 20 * time.Millisecond, latch: reason}
			}
			return script{beat: 20 * time.Millisecond}
		}
		v := startVirtual(t, fs, Config{})
		time.Sleep(3 * time.Second)
		_ = fs.driver(1).signal(syscall.SIGTERM)
		time.Sleep(3 * time.Second)
		_ = fs.driver(2).signal(syscall.SIGTERM)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		v.stop(t)
		want(t, "driver 2 start latch (driver 1's reason)", fs.driver(2).startLatched(), reason)
		want(t, "driver 3 start latch (driver 2 was unlatched and exited cleanly)", fs.driver(3).startLatched(), "")
		for n, at := range map[int]time.Duration{2: 3500 * time.Millisecond, 3: 6500 * time.Millisecond} {
			start, err := fs.first(fmt.Sprintf("start driver %d", n), 0)
			if err != nil {
				t.Fatal(err)
			}
			want(t, fmt.Sprintf("driver %d started at", n), start, at)
		}
	})
}

// TestVirtualStartFailureRetried: a driver that cannot be started (fork refused) is retried every RestartDelay,
// like a dead one, from the first start on; the first driver that does start is not latched.
func TestVirtualStartFailureRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		fs.failStarts = 3
		v := startVirtual(t, fs, Config{})
		time.Sleep(5 * time.Second)
		synctest.Wait()
		v.stop(t)
		fails := fs.find("start driver failed")
		want(t, "failed starts", fmt.Sprint(fails), "[0s 500ms 1s]")
		start, err := fs.first("start driver 1", 0)
		if err != nil {
			t.Fatal(err)
		}
		want(t, "first driver started at", start, 1500*time.Millisecond)
		want(t, "first driver's start latch", fs.driver(1).startLatched(), "")
	})
}

// TestVirtualGoneLoggedEvery: while the board is gone the supervisor says so at ERROR when it vanishes, then
// every GoneLogEvery (10 s), with how long it has been gone; nothing once it is back.
func TestVirtualGoneLoggedEvery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fs := newFakeSys()
		v := startVirtual(t, fs, Config{})
		time.Sleep(time.Second)
		fs.unplug()
		time.Sleep(25 * time.Second)
		fs.plug()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		v.stop(t)
		log := v.log.String()
		want(t, "BOARD PORT LOST lines", strings.Count(log, "BOARD PORT LOST"), 1)
		var still []string
		for _, l := range strings.Split(log, "\n") {
			if !strings.Contains(l, "BOARD PORT STILL GONE") {
				continue
			}
			f := strings.Fields(l)
			at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", strings.TrimPrefix(f[0], "time="))
			if err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			still = append(still, fs.since(at).String())
		}
		want(t, "STILL GONE at", strings.Join(still, " "), "11s 21s")
	})
}
