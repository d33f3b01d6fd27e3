package supervisor

import (
	"syscall"
	"time"
)

// The decisions about a driver that ended: how it ended, whether the next one starts latched (restartLatch),
// and how long to wait before the restart.

// maxCrashDelay caps the restart delay of a driver that keeps exiting by itself right after its start.
const maxCrashDelay = 5 * time.Second

// driverEnd is what the supervisor knows about how the last driver ended, for restartLatch.
type driverEnd struct {
	how   string // describeExit, with the watchdog's note ("killed by SIGKILL", "exit status 1", ...)
	clean bool   // exit status 0 after its final word, not killed by the watchdog
	latch string // the e-stop reason its final word reported ("": not latched, or unknown)
}

// Reasons a restarted driver starts latched with (restartLatch).
const (
	latchAfterUSBDrop = "board port reopened after USB drop"
	latchAfterPrefix  = "driver restarted after "
)

// restartLatch returns the e-stop reason the next driver starts latched with, "" for none (disabled only).
//
// Why: the latch lives in the driver process. A driver that dies (crash, kill, watchdog) or is stopped
// because the board vanished is replaced by a new process with a fresh gate; if that gate started unlatched,
// enable would work again without anyone having looked at what happened, and an e-stop latched before the
// death would be gone. So: a driver that reported a latched e-stop in its final word passes that reason on
// (first reason kept, as in the gate); after a USB drop the reason says so; after any other exit that was not
// clean (exit status 0 after its final word), "driver restarted after <how it ended>". A clean exit of an
// unlatched driver (someone sent it SIGTERM) restarts unlatched, and so does the first start of the service.
func restartLatch(prev driverEnd, portDropped bool) string {
	switch {
	case prev.latch != "":
		return prev.latch
	case portDropped:
		return latchAfterUSBDrop
	case !prev.clean:
		return latchAfterPrefix + prev.how
	}
	return ""
}

// exitHow says how c ended, and that the watchdog killed it if it did.
func (c *child) exitHow(ws syscall.WaitStatus) string {
	how := describeExit(ws)
	if why := c.hung.Load(); why != nil {
		how += " (watchdog: " + *why + ")"
	}
	return how
}

// restartDelay is RestartDelay, doubled (up to maxCrashDelay) while the driver keeps exiting by itself or
// hanging (killed by the watchdog) within 2 s of its start: a crash loop (bad config, broken binary, a deadlock
// at start) must not spin. Other kills restart at the short delay.
func (s *supervisor) restartDelay(ev exitEvent) time.Duration {
	byItself := ev.ws.Exited() || ev.c.hung.Load() != nil
	if byItself && ev.reaped.Sub(ev.c.started) < 2*time.Second {
		d := s.crashDelay
		s.crashDelay = min(2*s.crashDelay, maxCrashDelay)
		return d
	}
	s.crashDelay = s.cfg.RestartDelay
	return s.cfg.RestartDelay
}
