// Package stacktest is the testing side of internal/simrobot, the one robot starter: it starts
// `rosorin-base run` for a test, on given board and LiDAR devices (StartService, New) or on a simulated robot
// it starts first (StartSim, NewSim), and returns once a real readiness condition holds: the driver's state
// says what the test needs (a driver process, a live board link, fresh scans), never a sleep. What it adds to
// the engine is the test's side: the binary built from the source tree when none is named (testkit.Binary),
// the whole log kept (Service.Log), the waits widened under -race (testkit.Bound), and testing.TB's failure
// and cleanup. It is imported only by tests.
package stacktest

import (
	"context"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/simrobot"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// DefaultConfig is the parameter file of a driver with chapter 11's defaults (simrobot.DefaultConfig).
const DefaultConfig = simrobot.DefaultConfig

// RobotConfig is the simulated robot's driver configuration, the one the tests and stopproof --sim share
// (simrobot.RobotConfig): max_linear 0.35 m/s (chapter 19's stand runs), everything else chapter 11's
// defaults (cmd_timeout 0.3 s, scan_timeout 0.5 s, 50 Hz).
const RobotConfig = simrobot.RobotConfig

// FreshScan is the largest scan age, in seconds, that counts as scans flowing.
const FreshScan = simrobot.FreshScan

// Condition judges the driver's state: nil when it holds, else what is missing.
type Condition = simrobot.Condition

// DriverUp holds when a driver other than notPID (0: any) answers and its board link is not silent.
func DriverUp(notPID int) Condition { return simrobot.DriverUp(notPID) }

// Scanning is DriverUp plus LiDAR scans reaching the driver (scan age below FreshScan).
func Scanning(notPID int) Condition { return simrobot.Scanning(notPID) }

// Options is one `rosorin-base run`.
type Options struct {
	// Bin is the rosorin-base binary; "" builds ./cmd/rosorin-base once per test process (testkit.Binary).
	Bin string
	// Dir holds the socket (base.sock), the parameter file (base.yaml) and the state directory; "" makes a
	// short temporary one (unix socket paths are limited to 108 bytes) that Close removes.
	Dir string
	// Device is the board's tty; Lidar the LiDAR's ("" runs without a LiDAR reader).
	Device, Lidar string
	// Config is written to Dir/base.yaml unless that file exists; "" is DefaultConfig.
	Config string
	// Args are further flags after run's own (--device, --lidar, --socket, --config, --state-dir).
	Args []string
	// Env is the process's environment; nil inherits the test's.
	Env []string
	// Wrap is a program and its arguments that end by exec'ing the command (an unshare and mount wrapper).
	Wrap []string
	// Ready is the condition on the driver's state StartService waits for; nil is Scanning(0) with a LiDAR
	// and DriverUp(0) without.
	Ready Condition
	// ReadyCheck, when set, replaces Ready: a readiness test on the service itself (its status file, say).
	ReadyCheck func(*Service) error
	// ReadyTimeout bounds the wait (widened under -race); 0 is 15 s.
	ReadyTimeout time.Duration
}

// engine is o as simrobot's options, the service's whole log going to log.
func (o Options) engine(log *testkit.LockedBuffer) (simrobot.Options, error) {
	e := simrobot.Options{Bin: o.Bin, Dir: o.Dir, Device: o.Device, Lidar: o.Lidar, Config: o.Config, Args: o.Args,
		Env: o.Env, Wrap: o.Wrap, Log: log, Ready: o.Ready, ReadyTimeout: o.ReadyTimeout, Widen: testkit.Bound}
	if e.Bin == "" {
		var err error
		if e.Bin, err = testkit.Binary("./cmd/rosorin-base"); err != nil {
			return e, err
		}
	}
	if check := o.ReadyCheck; check != nil {
		e.ReadyCheck = func(s *simrobot.Service) error { return check(&Service{Service: s, Log: log}) }
	}
	return e, nil
}

// Service is one running `rosorin-base run` (simrobot.Service: its Dir, Socket, ConfigPath, StateDir,
// Client, Cmd and Ready state, its Done, Err, Exited, Interrupt, WaitExit, Stop and Close), with its whole
// log.
type Service struct {
	*simrobot.Service
	Log *testkit.LockedBuffer
}

// StartService starts `rosorin-base run` as o says and waits until it is ready. On an error everything it
// started is stopped again.
func StartService(o Options) (*Service, error) {
	log := &testkit.LockedBuffer{}
	e, err := o.engine(log)
	if err != nil {
		return nil, err
	}
	s, err := simrobot.StartService(context.Background(), e)
	if err != nil {
		return nil, err
	}
	return &Service{Service: s, Log: log}, nil
}

// Wait polls check (timeout widened under -race) until it returns nil; it gives up at once when the process
// has exited, with its log.
func (s *Service) Wait(timeout time.Duration, check func(*Service) error) error {
	return s.Service.Wait(context.Background(), timeout, func(*simrobot.Service) error { return check(s) })
}

// WaitState polls the driver's state until c holds (timeout widened under -race) and returns the last state
// read. A failed request drops the client's idle connections: they may be to a driver that was restarted.
func (s *Service) WaitState(timeout time.Duration, c Condition) (api.State, error) {
	return s.Service.WaitState(context.Background(), timeout, c)
}

// New is StartService for one test: it fails the test when the service does not start and stops it when
// the test ends, logging its output if the test failed.
func New(t testing.TB, o Options) *Service {
	t.Helper()
	s, err := StartService(o)
	if err != nil {
		t.Fatalf("start rosorin-base run: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		if t.Failed() {
			t.Logf("rosorin-base run log:\n%s", s.Log.String())
		}
	})
	return s
}

// Stack is a simulated robot and a `rosorin-base run` on its board and LiDAR.
type Stack struct {
	Sim *sim.Sim
	*Service

	robot *simrobot.Stack
}

// StartSim starts the sim (cfg; cfg.Dir "" is the service's directory) and `rosorin-base run` on its ptys
// (o's Device and Lidar are set from the sim), and waits until the service is ready.
func StartSim(cfg sim.Config, o Options) (*Stack, error) {
	log := &testkit.LockedBuffer{}
	e, err := o.engine(log)
	if err != nil {
		return nil, err
	}
	r, err := simrobot.Start(context.Background(), cfg, e)
	if err != nil {
		return nil, err
	}
	return &Stack{Sim: r.Sim, Service: &Service{Service: r.Service, Log: log}, robot: r}, nil
}

// Close stops the service, then the sim, and removes a directory StartSim made.
func (st *Stack) Close() { st.robot.Close() }

// NewSim is StartSim for one test: it fails the test when the stack does not start and closes it when the
// test ends, logging the service's output if the test failed.
func NewSim(t testing.TB, cfg sim.Config, o Options) *Stack {
	t.Helper()
	st, err := StartSim(cfg, o)
	if err != nil {
		t.Fatalf("start sim + rosorin-base run: %v", err)
	}
	t.Cleanup(func() {
		st.Close()
		if t.Failed() {
			t.Logf("rosorin-base run log:\n%s", st.Log.String())
		}
	})
	return st
}
