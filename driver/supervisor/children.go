package supervisor

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/heartbeat"
)

// The children: starting the driver and the LiDAR reader, watching them, and what follows their exits.

func (s *supervisor) env() []string { return os.Environ() }

// startDriver starts the driver child with the board on fds 3 (pipe from the pump) and 4 (the port), and its
// heartbeat pipe on fd 5 (childproc.HeartbeatFD, named in its environment by childproc.HeartbeatEnv).
func (s *supervisor) startDriver() bool {
	if s.port == nil || s.driver != nil || s.stopping {
		return true
	}
	argv := append([]string{s.cfg.Exe}, s.cfg.DriverArgs...)
	env := append(s.env(), childproc.HeartbeatEnv+"="+strconv.Itoa(childproc.HeartbeatFD))
	latch := ""
	if s.driverStarts > 0 { // the first driver of the service starts disabled, not latched
		latch = restartLatch(s.lastEnd, s.portDropped)
	}
	if latch != "" {
		env = append(env, childproc.StartLatchedEnv+"="+childproc.EnvSafe(latch))
	}
	sig := childDeathSignal
	if s.cfg.NoDriverPdeathsig {
		sig = 0
	}
	d, err := s.sys.startDriver(argv, env, s.port, s.capture != nil, sig)
	if err != nil {
		s.log.Error("cannot start the driver", "err", err)
		return false
	}
	if d.tapErr != nil {
		s.log.Error("capture: no tx tap for this driver; its writes are not recorded", "err", d.tapErr)
	}
	pid := d.pid
	c := &child{name: "driver", p: d.p, pid: pid, started: s.clk.Now(), sink: s.tee.addFeed(d.board),
		watchDone: make(chan struct{})}
	s.driver = c
	s.driverStarts++
	s.startLatched, s.lastEnd, s.portDropped = latch, driverEnd{}, false
	s.wg.Add(2)
	go s.waitChild(c, true)
	go s.watchDriver(c, d.heartbeat)
	if d.tap != nil {
		s.wg.Add(1)
		go s.readTap(d.tap)
	}
	if latch != "" {
		s.log.Warn("driver started with the e-stop LATCHED: "+latch+"; reset, then enable",
			"child_pid", pid, "start", s.driverStarts)
	} else {
		s.log.Info("driver started (motion disabled until enable)", "child_pid", pid, "start", s.driverStarts)
	}
	return true
}

func (s *supervisor) startReader() bool {
	if s.cfg.ReaderArgs == nil || s.reader != nil || s.stopping {
		return true
	}
	argv := append([]string{s.cfg.Exe}, s.cfg.ReaderArgs...)
	p, pid, err := s.sys.startReader(argv, s.env())
	if err != nil {
		s.log.Error("cannot start the LiDAR reader", "err", err)
		return false
	}
	c := &child{name: "lidar reader", p: p, pid: pid, started: s.clk.Now()}
	s.reader = c
	s.readerStarts++
	s.wg.Add(1)
	go s.waitChild(c, false)
	s.log.Info("LiDAR reader started", "child_pid", pid, "start", s.readerStarts)
	return true
}

// watchDriver runs the driver's heartbeat watcher (watchdog.go) until the driver is gone.
func (s *supervisor) watchDriver(c *child, hb heartbeatSource) {
	defer s.wg.Done()
	defer close(c.watchDone)
	wd := newWatchdog(c.started, s.cfg.WatchdogTimeout, s.cfg.WatchdogStartGrace, s.cfg.StopTimeout)
	watchHeartbeat(hb, wd, !s.cfg.NoWatchdog, watchHooks{
		seen: func(at time.Time, n int) {
			c.beats.Add(uint64(n))
			if prev := c.lastBeat.Swap(at.UnixNano()); prev != 0 && at.UnixNano()-prev > c.maxGap.Load() {
				c.maxGap.Store(at.UnixNano() - prev) // only this goroutine writes it
			}
		},
		late: func(late, silent time.Duration) {
			s.watchdogLate.Add(1)
			s.log.Warn(fmt.Sprintf("driver silent for %d ms, but the supervisor itself woke %d ms late (the machine stalled): giving the driver %d ms more",
				silent.Milliseconds(), late.Milliseconds(), recheckAfter.Milliseconds()), "child_pid", c.pid)
		},
		hung:  func(why string) { s.driverHung(c, why) },
		final: func(word []byte) { c.final = word },
		clk:   s.clk,
	})
}

// waitChild reaps c. For the driver it writes the stop frame itself, right after wait4 returns: that is the
// crash-stop path, and it must not wait for the loop. After a watchdog kill this is the stop frame that comes
// after anything the hung driver may still have written (watchdog.go).
func (s *supervisor) waitChild(c *child, isDriver bool) {
	defer s.wg.Done()
	ws, err := c.p.wait()
	ev := exitEvent{c: c, ws: ws, err: err, reaped: s.clk.Now()}
	if isDriver {
		ev.stopped = true
		ev.stopErr = s.stop.crash("driver " + c.exitHow(ws))
		ev.stopDur = s.clk.Now().Sub(ev.reaped)
	}
	s.exits <- ev
}

func (s *supervisor) driverExited(ev exitEvent) {
	c := ev.c
	s.driver = nil
	c.p.release()
	s.tee.remove(c.sink)
	how := c.exitHow(ev.ws)
	if ev.err != nil {
		how = "wait4: " + ev.err.Error()
	}
	s.driverLastExit = how
	// Its final word: the watcher reads it until the pipe's end of file, which the reaped driver's death has
	// already caused; the wait is for the watcher goroutine to get there.
	select {
	case <-c.watchDone:
	case <-s.clk.After(200 * time.Millisecond):
	}
	end := driverEnd{how: how}
	if latch, ok := heartbeat.ParseFinalWord(c.final); ok {
		end.latch = latch
		end.clean = ev.err == nil && ev.ws.Exited() && ev.ws.ExitStatus() == 0 && c.hung.Load() == nil
	} else if ev.err == nil && ev.ws.Exited() && ev.ws.ExitStatus() == 0 {
		end.how += " without its final word"
	}
	s.lastEnd = end
	removeStaleSocket(s.cfg.Socket)
	ran := ev.reaped.Sub(c.started).Round(time.Millisecond)
	switch {
	case ev.stopErr != nil:
		s.log.Error("driver exited; NO STOP FRAME", "child_pid", c.pid, "how", how, "ran", ran, "err", ev.stopErr)
	case s.stopping:
		s.log.Info("driver exited; stop frame written", "child_pid", c.pid, "how", how)
	default:
		s.log.Warn("driver exited; stop frame written", "child_pid", c.pid, "how", how, "ran", ran,
			"stop_after_reap", ev.stopDur)
	}
}

func (s *supervisor) readerExited(ev exitEvent) {
	c := ev.c
	s.reader = nil
	c.p.release()
	how := describeExit(ev.ws)
	s.readerExit = how
	switch {
	case s.stopping:
		s.log.Info("LiDAR reader exited", "child_pid", c.pid, "how", how)
	case s.cfg.NoReaderRespawn:
		s.log.Error("LiDAR reader exited; not respawning (--no-lidar-respawn): the scan gate holds software commands",
			"child_pid", c.pid, "how", how)
	default:
		s.log.Warn("LiDAR reader exited; respawning", "child_pid", c.pid, "how", how, "in", s.cfg.ReaderRespawnDelay)
	}
}
