package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/internal/rawio"
	"github.com/rosorin/rosorin/serialport"
)

// Config configures Run. Zero durations take the defaults in parentheses.
type Config struct {
	// Device is the board's serial device (/dev/ttyACM0).
	Device string
	// Socket is the driver's control socket path. The supervisor serves childproc.RawPath(Socket) and writes
	// StatusPath(Socket), and removes a stale Socket after the driver child dies.
	Socket string
	// Exe is the program run for the children ("/proc/self/exe": the same binary, even if the file on disk
	// was replaced by an upgrade since the supervisor started).
	Exe string
	// DriverArgs are the driver child's arguments after the program name; it finds the board on
	// childproc.BoardInFD and childproc.BoardOutFD.
	DriverArgs []string
	// ReaderArgs are the LiDAR reader child's arguments; nil runs no reader.
	ReaderArgs []string
	// RestartDelay is the pause before a dead driver is restarted (0.5 s). A driver that keeps exiting by
	// itself within 2 s of its start is restarted with a doubling delay, up to 5 s.
	RestartDelay time.Duration
	// ReaderRespawnDelay is the pause before a dead LiDAR reader is restarted (2 s, the seed's respawn).
	ReaderRespawnDelay time.Duration
	// NoReaderRespawn leaves a dead reader dead: the negative control for the live scan-gate proof.
	NoReaderRespawn bool
	// ReopenEvery is the retry period for a vanished board (10 ms: the stop frame waits for the next try after the
	// device returns, and a failed open of a missing path costs microseconds); GoneLogEvery repeats the error (10 s).
	ReopenEvery, GoneLogEvery time.Duration
	// StopTimeout bounds the wait for the children on shutdown before SIGKILL (3 s; systemd's
	// TimeoutStopSec=10 is the outer bound). It is also the watchdog's allowance for a driver's teardown after
	// its final stop frames.
	StopTimeout time.Duration
	// WatchdogTimeout: a driver whose control loop sends no heartbeat for this long is hung: SIGKILL, stop
	// frame at once and again after the reap, restart latched (150 ms = 7.5 ticks, watchdog.go).
	WatchdogTimeout time.Duration
	// WatchdogStartGrace is the allowance before a new driver's first heartbeat (5 s).
	WatchdogStartGrace time.Duration
	// NoWatchdog turns the watchdog off: a hung driver keeps the wheels at their last speed (the negative
	// control). Heartbeats are still read and reported in the status.
	NoWatchdog bool
	// NoDriverPdeathsig starts the driver child without its parent-death signal. Test only: the negative
	// control of the supervisor-death test (without it the driver still stops the wheels when its board pipe
	// ends, later and by another path, which that test tells apart).
	NoDriverPdeathsig bool
	// Capture, when set, records the board's bytes both ways into rotating MCAP segments in Capture.Dir
	// (board-<UTC time>.mcap; capture.go). Its Prefix is set here.
	Capture *segment.SegmentOptions
	// Bridge, when set, reports the ROS 2 bridge child (driver/service runs it) for the status file.
	Bridge func() *BridgeStatus
	// Log receives the supervisor's log; nil discards it.
	Log *slog.Logger
}

func (c *Config) defaults() {
	if c.Exe == "" {
		c.Exe = "/proc/self/exe"
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.RestartDelay, 500*time.Millisecond)
	def(&c.ReaderRespawnDelay, 2*time.Second)
	def(&c.ReopenEvery, 10*time.Millisecond)
	def(&c.GoneLogEvery, 10*time.Second)
	def(&c.StopTimeout, 3*time.Second)
	def(&c.WatchdogTimeout, DefaultWatchdogTimeout)
	def(&c.WatchdogStartGrace, DefaultWatchdogStartGrace)
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// childDeathSignal is every child's parent-death signal (PR_SET_PDEATHSIG): SIGTERM, which the children
// treat like SIGINT (the driver halts its output with a stop frame and exits).
const childDeathSignal = syscall.SIGTERM

// maxCrashDelay caps the restart delay of a driver that keeps exiting by itself right after its start.
const maxCrashDelay = 5 * time.Second

type child struct {
	name    string
	p       process
	pid     int
	started time.Time
	sink    *sink // driver: its share of the board's bytes

	// driver: written by its heartbeat watcher, read by the loop
	hung     atomic.Pointer[string] // why the watchdog killed it; nil = it did not
	beats    atomic.Uint64
	lastBeat atomic.Int64 // unix nanoseconds of the last heartbeat read; 0 = none yet
	maxGap   atomic.Int64 // the longest interval between two heartbeats read (ns): the margin to the timeout

	// driver: its final word (heartbeat.FinalWord), set by the watcher before it closes watchDone
	final     []byte
	watchDone chan struct{}
}

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

type exitEvent struct {
	c       *child
	ws      syscall.WaitStatus
	err     error
	reaped  time.Time
	stopErr error         // driver: the stop frame written by the waiter
	stopDur time.Duration // driver: from wait4's return to the stop frame queued
	stopped bool          // driver: a stop frame was attempted
}

type supervisor struct {
	cfg   Config
	log   *slog.Logger
	sys   osys
	tee   *tee
	stop  *stopper
	raw   *rawServer
	exits chan exitEvent
	wg    sync.WaitGroup // pump, pipe writers, waiters

	port       boardPort
	portState  string
	portSince  time.Time
	goneLogged time.Time
	pumpDone   chan error

	driver, reader             *child
	driverStarts, readerStarts int
	driverLastExit, readerExit string
	crashDelay                 time.Duration
	stopping                   bool

	// For restartLatch: how the last driver ended, whether the board port vanished since the current or last
	// driver started, and the latch the current driver was started with.
	lastEnd      driverEnd
	portDropped  bool
	startLatched string

	capture *segment.Queue // nil: not recording
	capStop func()         // ends the state follower
	tapLost atomic.Uint64  // driver writes whose tap copy a full pipe dropped

	watchdogTrips atomic.Uint64
	watchdogLate  atomic.Uint64
	lastWatchdog  atomic.Pointer[string]
}

// Run is `rosorin-base run`: it opens the board exclusively, writes a stop frame, starts the driver and the
// LiDAR reader as children and keeps them running until ctx ends; then it sends SIGINT to the children, waits
// for them (bounded), writes the stop frame twice, closes the port and returns nil.
//
// Every exit of the driver child is followed at once by a stop frame from the waiter goroutine (milliseconds
// after a SIGKILL), then a restart after RestartDelay; the child starts with its e-stop latched (restartLatch)
// and writes its own stop frame.
// If the board's device vanishes, the driver is stopped and the port is reopened every ReopenEvery; the instant
// it is back, a stop frame goes out and the driver restarts.
//
// Errors: a busy port (*serialport.BusyError naming the holder), a missing device or a broken socket path at start.
func Run(ctx context.Context, cfg Config) error {
	cfg.defaults()
	if cfg.Device == "" || cfg.Socket == "" || len(cfg.DriverArgs) == 0 {
		return errors.New("supervisor: Device, Socket and DriverArgs are required")
	}
	return run(ctx, cfg, &realSys{}, true)
}

// run is Run on the operating system sys; serveRaw is false only in the virtual-time tests (a socket's Accept
// is not a wait the synctest bubble can see through).
func run(ctx context.Context, cfg Config, sys osys, serveRaw bool) error {
	f, err := sys.openBoard(cfg.Device)
	if err != nil {
		if serialport.IsBusy(err) {
			return err
		}
		return fmt.Errorf("board port: %w; check the cable and --device", err)
	}
	s := &supervisor{cfg: cfg, log: cfg.Log, sys: sys, tee: newTee(), stop: newStopper(), exits: make(chan exitEvent, 4),
		crashDelay: cfg.RestartDelay}
	s.capture = startCapture(&s.cfg, s.log)
	if s.capture != nil {
		s.stop.onWrite = func(at time.Time, b []byte) { s.capture.Put(capTx, at, b) }
	}
	s.setPort(f)
	// Known state first: whatever the wheels were doing before this start, they stop now.
	if err := s.stop.crash("supervisor start"); err != nil {
		f.Close()
		return fmt.Errorf("board port %s: %w", cfg.Device, err)
	}
	if serveRaw {
		s.raw, err = listenRaw(childproc.RawPath(cfg.Socket), s.tee)
		if err != nil {
			f.Close()
			return err
		}
	}
	s.log.Info("owning the board port; stop frame written", "device", cfg.Device, "raw", childproc.RawPath(cfg.Socket))
	s.startPump()
	if s.capture != nil {
		fctx, cancel := context.WithCancel(context.Background())
		s.capStop = cancel
		s.wg.Add(2)
		go s.followState(fctx)
		go s.followContact(fctx)
	}
	s.startDriver()
	s.startReader()
	s.loop(ctx)
	s.finish()
	return nil
}

func (s *supervisor) setPort(f boardPort) {
	s.port = f
	s.stop.set(f)
	s.portState, s.portSince = PortOpen, time.Now()
}

func (s *supervisor) loop(ctx context.Context) {
	var (
		done          = ctx.Done()
		driverRestart <-chan time.Time
		readerRestart <-chan time.Time
		reopen        <-chan time.Time
		kill          <-chan time.Time
		tick          = time.NewTicker(time.Second)
	)
	defer tick.Stop()
	var reopenTicker *time.Ticker
	defer func() {
		if reopenTicker != nil {
			reopenTicker.Stop()
		}
	}()
	// A child that could not be started (fork failed: out of memory, pids) is retried like a dead one.
	if s.driver == nil {
		driverRestart = time.After(s.cfg.RestartDelay)
	}
	if s.reader == nil && s.cfg.ReaderArgs != nil {
		readerRestart = time.After(s.cfg.ReaderRespawnDelay)
	}
	s.writeStatus()
	for !(s.stopping && s.driver == nil && s.reader == nil) {
		select {
		case ev := <-s.exits:
			if ev.c == s.driver {
				s.driverExited(ev)
				if !s.stopping && s.port != nil {
					driverRestart = time.After(s.restartDelay(ev))
				}
			} else if ev.c == s.reader {
				s.readerExited(ev)
				if !s.stopping && !s.cfg.NoReaderRespawn {
					readerRestart = time.After(s.cfg.ReaderRespawnDelay)
				}
			}
		case err := <-s.pumpDone:
			s.pumpDone = nil
			s.portLost(err)
			if s.stopping {
				break
			}
			driverRestart = nil
			reopenTicker = time.NewTicker(s.cfg.ReopenEvery)
			reopen = reopenTicker.C
		case <-reopen:
			if s.tryReopen() {
				reopenTicker.Stop()
				reopenTicker, reopen = nil, nil
				if s.driver == nil {
					s.startDriver()
				}
			}
		case <-driverRestart:
			driverRestart = nil
			if s.port != nil {
				if !s.startDriver() {
					driverRestart = time.After(s.cfg.RestartDelay)
				}
			}
		case <-readerRestart:
			readerRestart = nil
			if !s.startReader() {
				readerRestart = time.After(s.cfg.ReaderRespawnDelay)
			}
		case <-done:
			done = nil
			s.stopping = true
			driverRestart, readerRestart, reopen = nil, nil, nil
			s.log.Info("shutting down: SIGINT to the children")
			for _, c := range []*child{s.driver, s.reader} {
				if c != nil {
					_ = c.p.signal(syscall.SIGINT)
				}
			}
			kill = time.After(s.cfg.StopTimeout)
		case <-kill:
			kill = nil
			for _, c := range []*child{s.driver, s.reader} {
				if c != nil {
					s.log.Error("child did not exit after SIGINT; killing it", "child", c.name, "child_pid", c.pid,
						"waited", s.cfg.StopTimeout)
					_ = c.p.signal(syscall.SIGKILL)
				}
			}
		case <-tick.C:
			if s.port == nil && time.Since(s.goneLogged) >= s.cfg.GoneLogEvery {
				s.goneLogged = time.Now()
				s.log.Error("BOARD PORT STILL GONE: the wheels keep their last speed and nothing can stop them",
					"device", s.cfg.Device, "gone_for", time.Since(s.portSince).Round(time.Second))
			}
		}
		s.writeStatus()
	}
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

func (s *supervisor) startPump() {
	done := make(chan error, 1)
	s.pumpDone = done
	var f io.Reader = s.port
	if pf, ok := s.port.(*os.File); ok {
		// The port's reads as raw system calls (rawio: no sysmon wake-up per read); a port not in
		// non-blocking mode keeps os.File's reads.
		if rf, err := rawio.NewFile(pf); err == nil {
			f = rf
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		buf := make([]byte, maxChunk)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				chunk := append([]byte(nil), buf[:n]...)
				if s.capture != nil {
					s.capture.Put(capRx, time.Now(), chunk) // never blocks (segment.Queue)
				}
				s.tee.write(chunk)
			}
			if err == nil && n == 0 {
				err = io.EOF
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
}

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
	c := &child{name: "driver", p: d.p, pid: pid, started: time.Now(), sink: s.tee.addFeed(d.board),
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
	c := &child{name: "lidar reader", p: p, pid: pid, started: time.Now()}
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
	})
}

// waitChild reaps c. For the driver it writes the stop frame itself, right after wait4 returns: that is the
// crash-stop path, and it must not wait for the loop. After a watchdog kill this is the stop frame that comes
// after anything the hung driver may still have written (watchdog.go).
func (s *supervisor) waitChild(c *child, isDriver bool) {
	defer s.wg.Done()
	ws, err := c.p.wait()
	ev := exitEvent{c: c, ws: ws, err: err, reaped: time.Now()}
	if isDriver {
		ev.stopped = true
		ev.stopErr = s.stop.crash("driver " + c.exitHow(ws))
		ev.stopDur = time.Since(ev.reaped)
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
	case <-time.After(200 * time.Millisecond):
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

// removeStaleSocket removes the dead driver's control socket so the next one can listen (a SIGKILLed
// process cannot unlink its socket).
func removeStaleSocket(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		_ = os.Remove(path)
	}
}

// portLost handles a read error or EOF on the board: USB drop. The old descriptor is dead for good.
func (s *supervisor) portLost(err error) {
	s.portDropped = true // the next driver starts latched (restartLatch)
	s.stop.set(nil)
	s.port.Close()
	s.port = nil
	s.portState, s.portSince = PortGone, time.Now()
	s.goneLogged = time.Now()
	s.log.Error("BOARD PORT LOST: the wheels keep their last speed and nothing can stop them until it returns; "+
		"stopping the driver, reopening", "device", s.cfg.Device, "err", err, "every", s.cfg.ReopenEvery)
	if s.driver != nil {
		_ = s.driver.p.signal(syscall.SIGTERM)
	}
}

// tryReopen opens the vanished board again; on success the stop frame goes out before anything else.
func (s *supervisor) tryReopen() bool {
	f, err := s.sys.openBoard(s.cfg.Device)
	if err != nil {
		if time.Since(s.goneLogged) >= s.cfg.GoneLogEvery {
			s.goneLogged = time.Now()
			s.log.Error("BOARD PORT STILL GONE: the wheels keep their last speed and nothing can stop them",
				"device", s.cfg.Device, "gone_for", time.Since(s.portSince).Round(time.Second), "err", err)
		}
		return false
	}
	gone := time.Since(s.portSince)
	s.setPort(f)
	if err := s.stop.crash("board port returned"); err != nil {
		s.log.Error("board port back but the stop frame failed", "device", s.cfg.Device, "err", err)
	} else {
		s.log.Warn("board port back; stop frame written", "device", s.cfg.Device, "gone_for", gone.Round(time.Millisecond))
	}
	s.startPump()
	return true
}

func (s *supervisor) writeStatus() {
	count, last, at := s.stop.stats()
	st := Status{
		PID: os.Getpid(), Device: s.cfg.Device, Port: s.portState, PortSince: s.portSince,
		DriverStarts: s.driverStarts, DriverLastExit: s.driverLastExit, DriverStartLatched: s.startLatched,
		ReaderStarts: s.readerStarts, ReaderLastExit: s.readerExit,
		StopFrames: count, LastStop: last, LastStopAt: at,
		BoardBytes: s.tee.bytes.Load(), DriverDroppedBytes: s.tee.driverDrops.Load(),
		RawClients: int(s.tee.rawSinks.Load()), RawDroppedClients: s.tee.droppedRaw.Load(),
		Updated: time.Now(),
	}
	if s.driver != nil {
		st.DriverPID = s.driver.pid
		st.DriverHeartbeats = s.driver.beats.Load()
		st.DriverHeartbeatMaxGapMS = float64(s.driver.maxGap.Load()/1000) / 1000
		if ns := s.driver.lastBeat.Load(); ns != 0 {
			st.LastHeartbeatAt = time.Unix(0, ns)
		}
	}
	st.Watchdog = "off"
	if !s.cfg.NoWatchdog {
		st.Watchdog = s.cfg.WatchdogTimeout.String()
	}
	st.WatchdogTrips = s.watchdogTrips.Load()
	st.WatchdogLateWakes = s.watchdogLate.Load()
	if w := s.lastWatchdog.Load(); w != nil {
		st.LastWatchdog = *w
	}
	if s.reader != nil {
		st.ReaderPID = s.reader.pid
	}
	if s.capture != nil {
		cs := s.capture.Status()
		st.Capture = &CaptureStatus{QueueStatus: cs, TxTapLost: s.tapLost.Load()}
	}
	if s.cfg.Bridge != nil {
		st.Bridge = s.cfg.Bridge()
	}
	if s.portState == PortGone {
		st.Warning = "board port " + s.cfg.Device + " gone for " +
			strconv.FormatFloat(time.Since(s.portSince).Seconds(), 'f', 1, 64) +
			" s: the wheels keep their last speed and nothing can stop them until it returns"
	}
	if err := writeStatus(StatusPath(s.cfg.Socket), st); err != nil && s.portState != PortClosed {
		s.log.Debug("status file", "err", err)
	}
}

// finish runs after every child is gone: two stop frames, close, final status.
func (s *supervisor) finish() {
	if s.port != nil {
		for i := 0; i < 2; i++ {
			if err := s.stop.write("supervisor shutdown"); err != nil {
				s.log.Error("shutdown stop frame failed", "err", err)
			}
		}
		s.stop.set(nil)
		s.port.Close()
		s.port = nil
	} else {
		s.log.Error("exiting with the board port gone: the wheels keep their last speed; stop-motors (ExecStopPost) waits for the device",
			"device", s.cfg.Device)
	}
	if s.raw != nil {
		s.raw.Close()
	}
	if s.capStop != nil {
		s.capStop()
	}
	s.wg.Wait()
	s.sys.close()
	if s.capture != nil {
		if err := s.capture.Close(); err != nil {
			s.log.Error("capture: recording ended with an error", "err", err)
		} else {
			s.log.Info("capture: recording finished", "dir", s.cfg.Capture.Dir)
		}
	}
	s.portState, s.portSince = PortClosed, time.Now()
	s.writeStatus()
	count, _, _ := s.stop.stats()
	s.log.Info("supervisor stopped", "stop_frames", count)
}
