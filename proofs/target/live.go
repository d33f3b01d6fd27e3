package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/imu"
)

// LiveConfig says how to reach a running driver.
type LiveConfig struct {
	// Socket is the driver's control socket (api.DefaultSocket on the robot).
	Socket string
	// Device is the board's port, read directly when the raw stream does not answer (/dev/ttyACM0).
	Device string
	// RawSocket is the supervisor's raw stream; "" means childproc.RawPath(Socket).
	RawSocket string
	// ServiceStop and ServiceStart are shell commands (systemctl stop/start rosorin-base).
	ServiceStop, ServiceStart string
	// ButtonWait bounds the wait for the operator's button press (30 s).
	ButtonWait time.Duration
	Clock      clock.Clock
	Evidence   *evidence.Log
}

// DefaultLiveConfig is the robot's: the service's socket and port, systemd for the service.
func DefaultLiveConfig() LiveConfig {
	return LiveConfig{Socket: api.DefaultSocket, Device: "/dev/ttyACM0", ServiceStop: "systemctl stop rosorin-base",
		ServiceStart: "systemctl start rosorin-base", ButtonWait: 30 * time.Second, Clock: clock.Real{}}
}

// LiveTarget is a running rosorin-base reached through its control API.
type LiveTarget struct {
	cfg LiveConfig
	c   *api.Client
}

// NewLiveTarget returns a target for the driver at cfg.Socket. It does not connect: the proof's first
// state read is the check that a driver answers.
func NewLiveTarget(cfg LiveConfig) *LiveTarget {
	if cfg.RawSocket == "" {
		cfg.RawSocket = childproc.RawPath(cfg.Socket)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.ButtonWait <= 0 {
		cfg.ButtonWait = 30 * time.Second
	}
	return &LiveTarget{cfg: cfg, c: api.NewClient(cfg.Socket)}
}

// Client is the control API client (for the scan-gate check and tests).
func (l *LiveTarget) Client() *api.Client { return l.c }

// Describe names the socket.
func (l *LiveTarget) Describe() string {
	return fmt.Sprintf("rosorin-base at %s (board %s)", l.cfg.Socket, l.cfg.Device)
}

// FromAPI converts the driver's state record into the proof's State.
func FromAPI(s api.State, at time.Time) State {
	st := State{At: at, Enabled: s.Enabled, ScanAge: math.NaN(), Publishers: len(s.Publishers), Source: s.Source,
		Pids:        Pids{Supervisor: s.PIDs.Supervisor, Driver: s.PIDs.Driver, LidarReader: s.PIDs.LidarReader},
		GyroBiasDPS: s.GyroBiasDPS, Calibrating: s.GyroCalibrating, Config: s.Config,
		BodyVel: s.BodyVel, WheelRPS: s.WheelRPS, BoardSilent: s.BoardSilent}
	if s.EStop != nil {
		st.Estop = *s.EStop
		if st.Estop == "" {
			st.Estop = "(no reason)"
		}
	}
	if s.Blocked != nil {
		st.Blocked = *s.Blocked
	}
	if s.Plugged != nil {
		st.Plugged = *s.Plugged
	}
	if s.ScanAgeS != nil {
		st.ScanAge = *s.ScanAgeS
	}
	st.Raw, _ = json.Marshal(s)
	return st
}

// State reads the state record.
func (l *LiveTarget) State(ctx context.Context) (State, error) {
	s, err := l.c.State(ctx)
	if err != nil {
		return State{}, err
	}
	return FromAPI(s, l.cfg.Clock.Now()), nil
}

// Config reads GET /v1/config.
func (l *LiveTarget) Config(ctx context.Context) (json.RawMessage, error) { return l.c.Config(ctx) }

// Every sample and every gamepad frame is timed on receipt by the proof's clock, never by the driver's
// stamp. The triggers are taken on the proof's clock, whose readings carry Go's monotonic clock; the
// driver's stamps are wall-clock times (its start's wall time plus its own monotonic clock, and JSON keeps no
// monotonic reading), so a wall-clock step since the driver started shifts them, and every stop time with
// them. Estimating the offset once and refusing a skew would catch a step only at that moment; receipt
// times cannot step at all. What they cost is the delivery latency (the driver writes each message to the
// socket as it has it, and flushes it): measured on every run from the same samples (Lag: receipt minus
// stamp, sub-millisecond on the simulated stand), and reported, so a backlog or a stepped clock is seen.
// The raw stream and the port are timed on receipt too (below.go); they carry no stamp to compare.

// RecordIMU follows the driver's IMU stream (rad/s, bias-corrected).
func (l *LiveTarget) RecordIMU(ctx context.Context) (imu.Recording, error) {
	return imu.StartRecorder(ctx, func(ctx context.Context, emit func(imu.Sample)) error {
		return l.c.FollowIMU(ctx, func(m api.IMU) error {
			emit(imu.Sample{At: l.cfg.Clock.Now(), Stamp: m.Stamp, Gyro: m.AngularVelocity, Source: imu.SourceDriver})
			return nil
		})
	}), nil
}

// RecordBoardIMU reads the board's IMU from below the driver (raw stream, else the port).
func (l *LiveTarget) RecordBoardIMU(ctx context.Context) (imu.Recording, error) {
	b := BoardIMU{RawSocket: l.cfg.RawSocket, Device: l.cfg.Device, Clock: l.cfg.Clock, Evidence: l.cfg.Evidence}
	return imu.StartRecorder(ctx, b.Stream), nil
}

// livePub is one velocity command stream on one input, reopened after the driver closed it (a killed driver). Streams live on the
// context given to Publisher, not on a Send's: a stream must outlive each command.
type livePub struct {
	l     *LiveTarget
	ctx   context.Context
	input string

	mu     sync.Mutex
	s      *api.CmdVelStream
	closed bool
}

// Publisher opens a velocity command stream on input ("" is cmd_vel).
func (l *LiveTarget) Publisher(ctx context.Context, input string) (Publisher, error) {
	p := &livePub{l: l, ctx: ctx, input: input}
	s, err := l.c.StreamCmdVelOn(ctx, input)
	if err != nil {
		return nil, err
	}
	p.s = s
	return p, nil
}

func (p *livePub) Send(ctx context.Context, tw kinematics.Twist) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("publisher closed")
	}
	if p.s == nil {
		s, err := p.l.c.StreamCmdVelOn(p.ctx, p.input)
		if err != nil {
			return err
		}
		p.s = s
	}
	if err := p.s.Send(api.Twist{VX: tw.VX, VY: tw.VY, WZ: tw.WZ}); err != nil {
		go p.s.Close() // the driver is gone or ended the stream; Close waits for its answer
		p.s = nil
		return err
	}
	return nil
}

func (p *livePub) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.s == nil {
		return nil
	}
	_, err := p.s.Close()
	p.s = nil
	return err
}

func replyErr(what string, r api.Reply, err error) error {
	if err != nil {
		return err
	}
	if !r.Success {
		return fmt.Errorf("%s refused: %s", what, r.Message)
	}
	return nil
}

// Estop latches the e-stop with the driver's own reason for the request (the seed's "estop topic").
func (l *LiveTarget) Estop(ctx context.Context) error {
	r, err := l.c.EStop(ctx, "")
	return replyErr("e-stop", r, err)
}

// Enable enables or disables the wheels.
func (l *LiveTarget) Enable(ctx context.Context, on bool) error {
	r, err := l.c.Enable(ctx, on)
	return replyErr(fmt.Sprintf("enable %v", on), r, err)
}

// Reset clears the e-stop latch.
func (l *LiveTarget) Reset(ctx context.Context) error {
	r, err := l.c.Reset(ctx)
	return replyErr("reset", r, err)
}

func (l *LiveTarget) kill(ctx context.Context, which string, pid func(Pids) int) (int, error) {
	st, err := l.State(ctx)
	if err != nil {
		return 0, err
	}
	p := pid(st.Pids)
	if p <= 1 {
		return 0, fmt.Errorf("the driver's state names no %s process (pid %d)", which, p)
	}
	if err := syscall.Kill(p, syscall.SIGKILL); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return p, fmt.Errorf("SIGKILL of the %s (pid %d): %w: run the proof as the service's user or as root", which, p, err)
		}
		return p, fmt.Errorf("SIGKILL of the %s (pid %d): %w", which, p, err)
	}
	l.cfg.Evidence.Logf("SIGKILL sent to the %s, pid %d", which, p)
	return p, nil
}

// KillDriver SIGKILLs the driver process named in the state.
func (l *LiveTarget) KillDriver(ctx context.Context) (int, error) {
	return l.kill(ctx, "driver", func(p Pids) int { return p.Driver })
}

// KillLidarReader SIGKILLs the LiDAR reader named in the state.
func (l *LiveTarget) KillLidarReader(ctx context.Context) (int, error) {
	return l.kill(ctx, "LiDAR reader", func(p Pids) int { return p.LidarReader })
}

func (l *LiveTarget) shell(ctx context.Context, what, cmdline string) error {
	if strings.TrimSpace(cmdline) == "" {
		return fmt.Errorf("no command to %s the service (pass --service-stop/--service-start)", what)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline)
	cmd.Stdout, cmd.Stderr = &out, &out
	start := l.cfg.Clock.Now()
	err := cmd.Run()
	l.cfg.Evidence.Logf("service %s: %q took %.2f s: %v %s", what, cmdline, l.cfg.Clock.Now().Sub(start).Seconds(), err, bytes.TrimSpace(out.Bytes()))
	if err != nil {
		return fmt.Errorf("%q: %v: %s", cmdline, err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}

// StopService runs the stop command (systemd runs ExecStopPost's stop-motors before it returns).
func (l *LiveTarget) StopService(ctx context.Context) error {
	return l.shell(ctx, "stop", l.cfg.ServiceStop)
}

// StartService runs the start command.
func (l *LiveTarget) StartService(ctx context.Context) error {
	return l.shell(ctx, "start", l.cfg.ServiceStart)
}

// PressButton asks the operator to press a gamepad button other than MODE and takes the trigger time from
// the driver's gamepad stream: the first frame with such a button (the driver trips on that very frame).
func (l *LiveTarget) PressButton(ctx context.Context, prompt func(string)) (time.Time, string, error) {
	mode := uint16(1) << 4 // board.DefaultModeBit, unless the driver's configuration says otherwise
	if st, err := l.c.State(ctx); err == nil && st.Config.ControlRateHz > 0 && st.Config.PadModeBit >= 0 && st.Config.PadModeBit < 16 {
		mode = uint16(1) << st.Config.PadModeBit
	}
	ctx, cancel := context.WithTimeout(ctx, l.cfg.ButtonWait)
	defer cancel()
	return waitButton(ctx, l.c, l.cfg.Clock, func(b uint16) bool { return b&^mode != 0 }, func() error {
		prompt(fmt.Sprintf(">>> PRESS ANY GAMEPAD BUTTON EXCEPT MODE NOW (waiting up to %.0f s) <<<", l.cfg.ButtonWait.Seconds()))
		return nil
	})
}

// waitButton subscribes to the gamepad stream, calls press once the subscription is up, and returns the
// receipt time (on clock) of the first frame whose buttons satisfy match.
func waitButton(ctx context.Context, c *api.Client, clock clock.Clock, match func(uint16) bool, press func() error) (time.Time, string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type hit struct {
		at      time.Time
		buttons uint16
	}
	found := make(chan hit, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Follow(ctx, api.TopicGamepad, func(line []byte) error {
			var g api.Gamepad
			if json.Unmarshal(line, &g) != nil {
				return nil
			}
			if match(g.RawButtons) {
				select {
				case found <- hit{clock.Now(), g.RawButtons}:
				default:
				}
				return errors.New("found")
			}
			return nil
		})
	}()
	// The stream has no greeting: give the subscription a moment to be registered before the press, so the
	// press's first frame is not missed.
	if err := clock.Sleep(ctx, 150*time.Millisecond); err != nil {
		return time.Time{}, "", err
	}
	if err := press(); err != nil {
		return time.Time{}, "", err
	}
	select {
	case h := <-found:
		return h.at, fmt.Sprintf("the first gamepad frame with buttons 0x%04x (received)", h.buttons), nil
	case err := <-done:
		select {
		case h := <-found:
			return h.at, fmt.Sprintf("the first gamepad frame with buttons 0x%04x (received)", h.buttons), nil
		default:
		}
		if ctx.Err() != nil {
			return time.Time{}, "", fmt.Errorf("no gamepad button seen: %w", ctx.Err())
		}
		return time.Time{}, "", fmt.Errorf("gamepad stream: %v", err)
	case <-ctx.Done():
		return time.Time{}, "", fmt.Errorf("no gamepad button seen: %w", ctx.Err())
	}
}

// Close drops idle connections. The driver keeps running: it is not ours.
func (l *LiveTarget) Close() error {
	l.c.CloseIdle()
	return nil
}

var _ Target = (*LiveTarget)(nil)
