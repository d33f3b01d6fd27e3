package simrobot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
)

// Options is one `rosorin-base run`.
type Options struct {
	// Clock times the waits (clock.Real{} when nil): the stack runs in real time, so a test's virtual clock
	// does not fit here; the field is the seam, not a fake's entry.
	Clock clock.Full
	// Bin is the rosorin-base binary (required: the caller builds or finds it).
	Bin string
	// Dir holds the socket (base.sock), the parameter files (WriteConfig) and the state directory; "" makes a
	// short temporary one (unix socket paths are limited to 108 bytes) that Close removes.
	Dir string
	// Device is the board's tty; Lidar the LiDAR's ("" runs without a LiDAR reader).
	Device, Lidar string
	// Config is written to Dir/base.yaml unless that file exists; "" is DefaultConfig. RobotConfig is the
	// simulated robot's.
	Config string
	// Overrides, when set, is a second parameter file, read after Config (WriteConfig).
	Overrides []byte
	// Args are further flags after run's own (--device, --lidar, --socket, --config, --state-dir).
	Args []string
	// Env is the process's environment; nil inherits this process's.
	Env []string
	// Wrap is a program and its arguments that end by exec'ing the command (an unshare and mount wrapper).
	Wrap []string
	// Log receives the service's output (the engine keeps the tail of it for its errors besides); an
	// *os.File is handed to the process as it is (doc.go, errata).
	Log io.Writer
	// ProcAttr is the process's attributes (its own process group, a parent-death signal); with Setpgid the
	// kill after a stop that timed out reaches the whole group.
	ProcAttr *syscall.SysProcAttr
	// Started, when set, is called as soon as each process has started, before any wait.
	Started func(*Service)
	// Ready is the condition on the driver's state the start waits for; nil is Scanning(0) with a LiDAR and
	// DriverUp(0) without.
	Ready Condition
	// ReadyCheck, when set, replaces Ready: a readiness test on the service itself (its status file, say).
	ReadyCheck func(*Service) error
	// ReadyTimeout bounds the readiness wait; 0 is 15 s.
	ReadyTimeout time.Duration
	// Widen, when set, widens the waits (readiness, each state query, the stop before a kill): a test's
	// testkit.Bound under the race detector. Never Interrupt's or WaitExit's timeout: tests use those as bounds.
	Widen func(time.Duration) time.Duration
}

// Service is one running `rosorin-base run`.
type Service struct {
	Dir, Socket, StateDir string
	// ConfigPath is the first parameter file (base.yaml).
	ConfigPath string
	// Device and Lidar are the devices it runs on.
	Device, Lidar string
	Client        *api.Client
	Cmd           *exec.Cmd
	// Ready is the state read when Options.Ready held (zero with Options.ReadyCheck).
	Ready api.State

	o       Options
	logFile *os.File
	tail    tailBuffer
	ownDir  bool
	done    chan struct{}
	err     error
	once    sync.Once
	stopErr error
}

// Launch starts `rosorin-base run` as o says and returns without waiting for it to be ready. On an error
// everything it started is stopped again.
func Launch(o Options) (*Service, error) {
	s := &Service{Dir: o.Dir, Device: o.Device, Lidar: o.Lidar, o: o, done: make(chan struct{})}
	if err := s.start(); err != nil {
		s.Close()
		return nil, err
	}
	if o.Started != nil {
		o.Started(s)
	}
	return s, nil
}

// StartService starts `rosorin-base run` as o says and waits until it is ready (WaitReady). On an error
// everything it started is stopped again.
func StartService(ctx context.Context, o Options) (*Service, error) {
	s, err := Launch(o)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Service) start() error {
	if s.o.Bin == "" {
		return errors.New("simrobot: Options.Bin is empty; name the rosorin-base binary")
	}
	if s.Dir == "" {
		d, err := os.MkdirTemp("", "rbase")
		if err != nil {
			return err
		}
		s.Dir, s.ownDir = d, true
	}
	s.Socket = filepath.Join(s.Dir, "base.sock")
	// The driver persists the charger state: keep the simulated robot's apart from this host's.
	s.StateDir = filepath.Join(s.Dir, "state")
	configs, err := WriteConfig(s.Dir, s.o.Config, s.o.Overrides)
	if err != nil {
		return err
	}
	s.ConfigPath = configs[0]
	args := []string{"run", "--device", s.o.Device}
	if s.o.Lidar != "" {
		args = append(args, "--lidar", s.o.Lidar)
	}
	args = append(args, "--socket", s.Socket, "--config", configs[0], "--state-dir", s.StateDir)
	for _, c := range configs[1:] {
		args = append(args, "--config", c)
	}
	args = append(args, s.o.Args...)
	if w := s.o.Wrap; w != nil {
		s.Cmd = exec.Command(w[0], append(append(w[1:len(w):len(w)], s.o.Bin), args...)...)
	} else {
		s.Cmd = exec.Command(s.o.Bin, args...)
	}
	s.Cmd.Env = s.o.Env
	switch l := s.o.Log.(type) {
	case nil:
		s.Cmd.Stdout = &s.tail
	case *os.File:
		s.Cmd.Stdout, s.logFile = l, l
	default:
		s.Cmd.Stdout = io.MultiWriter(l, &s.tail)
	}
	s.Cmd.Stderr = s.Cmd.Stdout
	s.Cmd.SysProcAttr = s.o.ProcAttr
	s.Cmd.WaitDelay = 2 * time.Second // a child that kept the log pipe must not hang the caller
	if err := s.Cmd.Start(); err != nil {
		s.Cmd = nil
		return fmt.Errorf("start %s: %w", s.o.Bin, err)
	}
	go func() { s.err = s.Cmd.Wait(); close(s.done) }()
	s.Client = api.NewClient(s.Socket)
	return nil
}

func (s *Service) widen(d time.Duration) time.Duration {
	if s.o.Widen != nil {
		return s.o.Widen(d)
	}
	return d
}

// WaitReady waits until the service is ready as its Options say (ReadyCheck, else Ready, within
// ReadyTimeout). The error carries the log's tail.
func (s *Service) WaitReady(ctx context.Context) error {
	timeout := s.o.ReadyTimeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	var err error
	if s.o.ReadyCheck != nil {
		err = s.Wait(ctx, timeout, s.o.ReadyCheck)
	} else {
		ready := s.o.Ready
		if ready == nil {
			ready = DriverUp(0)
			if s.o.Lidar != "" {
				ready = Scanning(0)
			}
		}
		s.Ready, err = s.WaitState(ctx, timeout, ready)
	}
	if err != nil && !s.Exited() {
		err = fmt.Errorf("rosorin-base run not ready: %w; %s", err, s.Tail())
	}
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
	case <-s.clk().After(timeout):
		return -1, false
	}
}

// StopWithin sends SIGINT (systemd's KillSignal: the stop path runs) and waits up to wait for the exit, then
// kills the process (its process group with Options.ProcAttr's Setpgid) and says so. Later calls do nothing
// and return the first one's error.
func (s *Service) StopWithin(wait time.Duration) error {
	s.once.Do(func() {
		if s.Cmd == nil || s.Exited() {
			return
		}
		_ = s.Cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-s.clk().After(wait):
			if a := s.o.ProcAttr; a != nil && a.Setpgid {
				_ = syscall.Kill(-s.Cmd.Process.Pid, syscall.SIGKILL)
			} else {
				_ = s.Cmd.Process.Kill()
			}
			<-s.done
			s.stopErr = fmt.Errorf("rosorin-base run did not exit within %v of SIGINT: killed", wait)
		}
	})
	return s.stopErr
}

// clk is Options.Clock or the real one.
func (s *Service) clk() clock.Full {
	if s.o.Clock == nil {
		return clock.Real{}
	}
	return s.o.Clock
}

// Stop is StopWithin 5 s (widened by Options.Widen), its error dropped.
func (s *Service) Stop() { _ = s.StopWithin(s.widen(5 * time.Second)) }

// Close stops the process, drops the client's connections and removes a directory Launch made.
func (s *Service) Close() {
	s.Stop()
	if s.Client != nil {
		s.Client.CloseIdle()
	}
	if s.ownDir {
		os.RemoveAll(s.Dir)
	}
}

// Wait polls check every 10 ms until it returns nil, for up to timeout (widened by Options.Widen); it gives
// up at once when ctx ends or when the process has exited, with the log's tail.
func (s *Service) Wait(ctx context.Context, timeout time.Duration, check func(*Service) error) error {
	timeout = s.widen(timeout)
	end := s.clk().Now().Add(timeout)
	for {
		if s.Exited() {
			return fmt.Errorf("rosorin-base run exited (%v); %s", s.Err(), s.Tail())
		}
		err := check(s)
		if err == nil {
			return nil
		}
		if s.clk().Now().After(end) {
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (waiting: %v)", ctx.Err(), err)
		case <-s.clk().After(10 * time.Millisecond):
		}
	}
}

// WaitState polls the driver's state until c holds (Wait) and returns the last state read. Each request is
// bounded by 1 s (widened); a failed one drops the client's idle connections: they may be to a driver that
// was restarted.
func (s *Service) WaitState(ctx context.Context, timeout time.Duration, c Condition) (api.State, error) {
	var last api.State
	err := s.Wait(ctx, timeout, func(*Service) error {
		qctx, cancel := context.WithTimeout(ctx, s.widen(time.Second))
		defer cancel()
		st, err := s.Client.State(qctx)
		if err != nil {
			s.Client.CloseIdle()
			return err
		}
		last = st
		return c(st)
	})
	return last, err
}

// tailBytes is how much of the log's end an error carries.
const tailBytes = 4096

// Tail is the end of the service's log, for an error a person can act on: "log FILE:" or "log:" and the
// last lines.
func (s *Service) Tail() string {
	if s.logFile == nil {
		return "log:\n" + string(bytes.TrimSpace(s.tail.bytes()))
	}
	name := s.logFile.Name()
	f, err := os.Open(name)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > tailBytes {
		_, _ = f.Seek(fi.Size()-tailBytes, io.SeekStart)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return "log " + name + ":\n" + string(bytes.TrimSpace(b))
}

// tailBuffer keeps the last tailBytes (at least) of what is written to it: the log of a service whose
// output is not kept elsewhere costs no more than that however long it runs.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append([]byte(nil), t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.b[max(0, len(t.b)-tailBytes):]...)
}
