package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/childproc"
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
	// Clock is the supervisor's time: back-offs, reopen and shutdown timers, the watchdog's readings, the
	// status stamps (clock.Real{}; virtual in the tests' testing/synctest bubbles).
	Clock clock.Full
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
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
}

// childDeathSignal is every child's parent-death signal (PR_SET_PDEATHSIG): SIGTERM, which the children
// treat like SIGINT (the driver halts its output with a stop frame and exits).
const childDeathSignal = syscall.SIGTERM

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
	clk   clock.Full // cfg.Clock
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
	s := &supervisor{cfg: cfg, log: cfg.Log, clk: cfg.Clock, sys: sys, tee: newTee(), stop: newStopper(),
		exits: make(chan exitEvent, 4), crashDelay: cfg.RestartDelay}
	s.stop.clk = s.clk
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
		s.raw, err = listenRaw(childproc.RawPath(cfg.Socket), s.tee, s.clk)
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
	s.portState, s.portSince = PortOpen, s.clk.Now()
}

func (s *supervisor) loop(ctx context.Context) {
	var (
		done          = ctx.Done()
		driverRestart <-chan time.Time
		readerRestart <-chan time.Time
		reopen        <-chan time.Time
		kill          <-chan time.Time
		tick          = s.clk.NewTicker(time.Second)
	)
	defer tick.Stop()
	var reopenTicker clock.Ticker
	defer func() {
		if reopenTicker != nil {
			reopenTicker.Stop()
		}
	}()
	// A child that could not be started (fork failed: out of memory, pids) is retried like a dead one.
	if s.driver == nil {
		driverRestart = s.clk.After(s.cfg.RestartDelay)
	}
	if s.reader == nil && s.cfg.ReaderArgs != nil {
		readerRestart = s.clk.After(s.cfg.ReaderRespawnDelay)
	}
	s.writeStatus()
	for !(s.stopping && s.driver == nil && s.reader == nil) {
		select {
		case ev := <-s.exits:
			if ev.c == s.driver {
				s.driverExited(ev)
				if !s.stopping && s.port != nil {
					driverRestart = s.clk.After(s.restartDelay(ev))
				}
			} else if ev.c == s.reader {
				s.readerExited(ev)
				if !s.stopping && !s.cfg.NoReaderRespawn {
					readerRestart = s.clk.After(s.cfg.ReaderRespawnDelay)
				}
			}
		case err := <-s.pumpDone:
			s.pumpDone = nil
			s.portLost(err)
			if s.stopping {
				break
			}
			driverRestart = nil
			reopenTicker = s.clk.NewTicker(s.cfg.ReopenEvery)
			reopen = reopenTicker.C()
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
					driverRestart = s.clk.After(s.cfg.RestartDelay)
				}
			}
		case <-readerRestart:
			readerRestart = nil
			if !s.startReader() {
				readerRestart = s.clk.After(s.cfg.ReaderRespawnDelay)
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
			kill = s.clk.After(s.cfg.StopTimeout)
		case <-kill:
			kill = nil
			for _, c := range []*child{s.driver, s.reader} {
				if c != nil {
					s.log.Error("child did not exit after SIGINT; killing it", "child", c.name, "child_pid", c.pid,
						"waited", s.cfg.StopTimeout)
					_ = c.p.signal(syscall.SIGKILL)
				}
			}
		case <-tick.C():
			if s.port == nil && s.clk.Now().Sub(s.goneLogged) >= s.cfg.GoneLogEvery {
				s.goneLogged = s.clk.Now()
				s.log.Error("BOARD PORT STILL GONE: the wheels keep their last speed and nothing can stop them",
					"device", s.cfg.Device, "gone_for", s.clk.Now().Sub(s.portSince).Round(time.Second))
			}
		}
		s.writeStatus()
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
	s.portState, s.portSince = PortClosed, s.clk.Now()
	s.writeStatus()
	count, _, _ := s.stop.stats()
	s.log.Info("supervisor stopped", "stop_frames", count)
}
