// Package stacktest starts `rosorin-base run` for a test, on given board and LiDAR devices (StartService) or
// on a simulated robot it starts first (StartSim), and returns once a real readiness condition holds: the
// driver's state says what the test needs (a driver process, a live board link, fresh scans), never a sleep.
// It is imported only by tests.
package stacktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// DefaultConfig is the parameter file of a driver with chapter 11's defaults.
const DefaultConfig = "rosorin_board_driver:\n  ros__parameters: {}\n"

// RobotConfig is the robot's max_linear (0.35 m/s, chapter 19's stand runs), everything else chapter 11's
// defaults (cmd_timeout 0.3 s, scan_timeout 0.5 s, 50 Hz).
const RobotConfig = "rosorin_board_driver:\n  ros__parameters:\n    max_linear: 0.35\n"

// FreshScan is the largest scan age, in seconds, that counts as scans flowing.
const FreshScan = 0.3

// Condition judges the driver's state: nil when it holds, else what is missing.
type Condition func(api.State) error

// DriverUp holds when a driver other than notPID (0: any) answers and its board link is not silent.
func DriverUp(notPID int) Condition {
	return func(st api.State) error {
		switch {
		case st.PIDs.Driver == 0:
			return errors.New("no driver pid")
		case st.PIDs.Driver == notPID:
			return fmt.Errorf("still driver pid %d", notPID)
		case st.BoardSilent:
			return fmt.Errorf("driver %d: board silent", st.PIDs.Driver)
		}
		return nil
	}
}

// Scanning is DriverUp plus LiDAR scans reaching the driver (scan age below FreshScan).
func Scanning(notPID int) Condition {
	up := DriverUp(notPID)
	return func(st api.State) error {
		if err := up(st); err != nil {
			return err
		}
		if st.ScanAgeS == nil || *st.ScanAgeS >= FreshScan {
			return fmt.Errorf("driver %d: scan age %s", st.PIDs.Driver, age(st.ScanAgeS))
		}
		return nil
	}
}

func age(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.3f s", *p)
}

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

// Service is one running `rosorin-base run`.
type Service struct {
	Dir, Socket, ConfigPath, StateDir string
	Client                            *api.Client
	Log                               *testkit.LockedBuffer
	Cmd                               *exec.Cmd
	// Ready is the state read when Options.Ready held (zero with Options.ReadyCheck).
	Ready api.State

	ownDir bool
	done   chan struct{}
	err    error
	once   sync.Once
}

// StartService starts `rosorin-base run` as o says and waits until it is ready. On an error everything it
// started is stopped again.
func StartService(o Options) (*Service, error) {
	s := &Service{Dir: o.Dir, Log: &testkit.LockedBuffer{}, done: make(chan struct{})}
	if err := s.start(o); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.waitReady(o); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Service) start(o Options) error {
	bin := o.Bin
	if bin == "" {
		var err error
		if bin, err = testkit.Binary("./cmd/rosorin-base"); err != nil {
			return err
		}
	}
	if s.Dir == "" {
		d, err := os.MkdirTemp("", "rbase")
		if err != nil {
			return err
		}
		s.Dir, s.ownDir = d, true
	}
	s.Socket = filepath.Join(s.Dir, "base.sock")
	s.ConfigPath = filepath.Join(s.Dir, "base.yaml")
	s.StateDir = filepath.Join(s.Dir, "state")
	if _, err := os.Stat(s.ConfigPath); err != nil {
		cfg := o.Config
		if cfg == "" {
			cfg = DefaultConfig
		}
		if err := os.WriteFile(s.ConfigPath, []byte(cfg), 0o644); err != nil {
			return err
		}
	}
	args := []string{"run", "--device", o.Device}
	if o.Lidar != "" {
		args = append(args, "--lidar", o.Lidar)
	}
	args = append(args, "--socket", s.Socket, "--config", s.ConfigPath, "--state-dir", s.StateDir)
	args = append(args, o.Args...)
	if o.Wrap != nil {
		s.Cmd = exec.Command(o.Wrap[0], append(append(o.Wrap[1:len(o.Wrap):len(o.Wrap)], bin), args...)...)
	} else {
		s.Cmd = exec.Command(bin, args...)
	}
	s.Cmd.Env = o.Env
	s.Cmd.Stdout, s.Cmd.Stderr = s.Log, s.Log
	s.Cmd.WaitDelay = 2 * time.Second // a child that kept the log pipe must not hang the test
	if err := s.Cmd.Start(); err != nil {
		s.Cmd = nil
		return err
	}
	go func() { s.err = s.Cmd.Wait(); close(s.done) }()
	s.Client = api.NewClient(s.Socket)
	return nil
}

func (s *Service) waitReady(o Options) error {
	timeout := o.ReadyTimeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	if o.ReadyCheck != nil {
		return s.Wait(timeout, o.ReadyCheck)
	}
	ready := o.Ready
	if ready == nil {
		ready = DriverUp(0)
		if o.Lidar != "" {
			ready = Scanning(0)
		}
	}
	var err error
	s.Ready, err = s.WaitState(timeout, ready)
	return err
}

// Done is closed when the process has ended; Err is then its exit error.
func (s *Service) Done() <-chan struct{} { return s.done }

// Err is the process's exit error once Done is closed.
func (s *Service) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Exited reports whether the process has ended.
func (s *Service) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Interrupt sends SIGINT (its stop path runs) and waits up to timeout for the exit.
func (s *Service) Interrupt(timeout time.Duration) (code int, ok bool) {
	if s.Cmd == nil {
		return -1, false
	}
	if !s.Exited() {
		_ = s.Cmd.Process.Signal(os.Interrupt)
	}
	return s.WaitExit(timeout)
}

// WaitExit waits up to timeout for the process to end by itself (it sends nothing) and returns its exit code.
func (s *Service) WaitExit(timeout time.Duration) (code int, ok bool) {
	if s.Cmd == nil {
		return -1, false
	}
	select {
	case <-s.done:
		return s.Cmd.ProcessState.ExitCode(), true
	case <-time.After(timeout):
		return -1, false
	}
}

// Stop interrupts the process and kills it if it is not gone within 5 s (widened under -race). Later calls do
// nothing.
func (s *Service) Stop() {
	s.once.Do(func() {
		if s.Cmd == nil {
			return
		}
		if _, ok := s.Interrupt(testkit.Bound(5 * time.Second)); !ok {
			_ = s.Cmd.Process.Kill()
			<-s.done
		}
	})
}

// Close stops the process, drops the client's connections and removes a directory StartService made.
func (s *Service) Close() {
	s.Stop()
	if s.Client != nil {
		s.Client.CloseIdle()
	}
	if s.ownDir {
		os.RemoveAll(s.Dir)
	}
}

// Wait polls check (timeout widened under -race) until it returns nil; it gives up at once when the process
// has exited, with its log.
func (s *Service) Wait(timeout time.Duration, check func(*Service) error) error {
	return testkit.Eventually(testkit.Bound(timeout), func() error {
		if s.Exited() {
			return testkit.Abort(fmt.Errorf("rosorin-base run exited (%v); log:\n%s", s.err, s.Log.String()))
		}
		return check(s)
	})
}

// WaitState polls the driver's state until c holds (timeout widened under -race) and returns the last state
// read. A failed request drops the client's idle connections: they may be to a driver that was restarted.
func (s *Service) WaitState(timeout time.Duration, c Condition) (api.State, error) {
	var last api.State
	err := s.Wait(timeout, func(*Service) error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
		defer cancel()
		st, err := s.Client.State(ctx)
		if err != nil {
			s.Client.CloseIdle()
			return err
		}
		last = st
		return c(st)
	})
	return last, err
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
}

// StartSim starts the sim (cfg; cfg.Dir "" is the service's directory) and `rosorin-base run` on its ptys
// (o's Device and Lidar are set from the sim), and waits until the service is ready.
func StartSim(cfg sim.Config, o Options) (*Stack, error) {
	own := o.Dir == ""
	if own {
		d, err := os.MkdirTemp("", "rsim") // short: unix socket paths are limited to 108 bytes
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	cleanup := func() {
		if own {
			os.RemoveAll(o.Dir)
		}
	}
	if cfg.Dir == "" {
		cfg.Dir = o.Dir
	}
	s, err := sim.Start(context.Background(), cfg)
	if err != nil {
		cleanup()
		return nil, err
	}
	o.Device, o.Lidar = s.BoardPath(), s.LidarPath()
	svc, err := StartService(o)
	if err != nil {
		s.Close()
		cleanup()
		return nil, err
	}
	svc.ownDir = own
	return &Stack{Sim: s, Service: svc}, nil
}

// Close stops the service, then the sim, and removes a directory StartSim made.
func (st *Stack) Close() {
	st.Service.Stop()
	if st.Client != nil {
		st.Client.CloseIdle()
	}
	st.Sim.Close()
	if st.ownDir {
		os.RemoveAll(st.Dir)
	}
}

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
