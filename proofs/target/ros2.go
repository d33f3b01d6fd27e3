package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// ROS2Config says where the driver node is on the ROS 2 graph.
type ROS2Config struct {
	Domain int
	// Namespace and Node name the driver node (ros2.NodeName: ours and the robot's Python driver alike).
	Namespace, Node string
}

// ROS2Target drives a driver through its ROS 2 interface (package ros2's Peer: cmd_vel, estop, ~/enable,
// ~/reset_estop, ~/state, imu/data_raw), so the proofs run against whatever serves those names: our bridge
// (rosorin-base run --ros2) or the robot's original Python driver. What is below the ROS graph goes through
// the inner target: killing processes (by the pids in ~/state), stopping and starting the service, the
// board's IMU from below the driver, the configuration and the gamepad button.
//
// Every method of Target is written here, not promoted from an embedded inner target: a method added to
// Target fails to compile until it is written, so no proof "over ROS 2" is silently served by the socket.
// The ones that forward to the inner target say so.
type ROS2Target struct {
	inner Target // for what is not on the graph
	peer  *ros2.Peer
	cfg   ROS2Config
	clock clock.Clock
	ev    *evidence.Log

	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	state  api.State
	at     time.Time // receipt of state, zero before the first
}

var _ Target = (*ROS2Target)(nil)

// NewROS2Target joins the graph next to inner's driver and follows its ~/state.
func NewROS2Target(inner Target, cfg ROS2Config, clk clock.Clock, ev *evidence.Log) (*ROS2Target, error) {
	if cfg.Node == "" {
		cfg.Node = ros2.NodeName
	}
	if clk == nil {
		clk = clock.Real{}
	}
	p, err := ros2.NewPeer(cfg.Domain, cfg.Namespace, cfg.Node, "stopproof")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &ROS2Target{inner: inner, peer: p, cfg: cfg, clock: clk, ev: ev, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		err := p.Subscribe(ctx, "~/state", "std_msgs/msg/String", dds.Latched, t.onState)
		if ctx.Err() == nil {
			ev.Logf("ros2: ~/state subscription ended: %v", err)
		}
	}()
	return t, nil
}

func (t *ROS2Target) onState(s dds.Sample) {
	var m rosmsg.String
	if err := cdr.Unmarshal(s.Data, &m); err != nil {
		t.ev.Logf("ros2: malformed ~/state sample: %v", err)
		return
	}
	var st api.State
	if err := json.Unmarshal([]byte(m.Data), &st); err != nil {
		t.ev.Logf("ros2: ~/state is not the driver's state record: %v", err)
		return
	}
	t.mu.Lock()
	t.state, t.at = st, t.clock.Now()
	t.mu.Unlock()
}

// Describe names the graph and the inner target.
func (t *ROS2Target) Describe() string {
	ns := t.cfg.Namespace
	if ns == "" {
		ns = "/"
	}
	return fmt.Sprintf("ROS 2 node %s (namespace %s, ROS_DOMAIN_ID %d) over Cyclone DDS; below the graph: %s",
		t.cfg.Node, ns, t.cfg.Domain, t.inner.Describe())
}

// stateMaxAge: ~/state comes at 10 Hz; older than this the driver (or the bridge) is not publishing.
const stateMaxAge = time.Second

// State is the latest ~/state received, if it is fresh; it waits up to 2 s (ctx) for one.
func (t *ROS2Target) State(ctx context.Context) (State, error) {
	deadline := t.clock.Now().Add(2 * time.Second)
	for {
		t.mu.Lock()
		st, at := t.state, t.at
		t.mu.Unlock()
		now := t.clock.Now()
		if !at.IsZero() && now.Sub(at) <= stateMaxAge {
			return FromAPI(st, at), nil
		}
		if now.After(deadline) {
			if at.IsZero() {
				return State{}, fmt.Errorf("%w: no ~/state over ROS 2 yet", ErrNoState)
			}
			return State{}, fmt.Errorf("%w: last ~/state over ROS 2 %.1f s ago", ErrNoState, now.Sub(at).Seconds())
		}
		if err := t.clock.Sleep(ctx, 20*time.Millisecond); err != nil {
			return State{}, err
		}
	}
}

// RecordIMU subscribes imu/data_raw. Receipt times are the proof's clock, as for the socket. The recording
// ends when ~/state names another driver pid than at its start (the driver was replaced: a recording never
// mixes two drivers; a restarted driver calibrates its gyro before it publishes, so none of its samples
// come before its state does).
func (t *ROS2Target) RecordIMU(ctx context.Context) (imu.Recording, error) {
	start, err := t.State(ctx)
	if err != nil {
		return nil, err
	}
	return imu.StartRecorder(ctx, func(ctx context.Context, emit func(imu.Sample)) error {
		return t.whileDriver(ctx, start.Pids.Driver, func(ctx context.Context) error {
			return t.peer.Subscribe(ctx, "imu/data_raw", "sensor_msgs/msg/Imu", dds.SensorData, func(s dds.Sample) {
				var m rosmsg.Imu
				if cdr.Unmarshal(s.Data, &m) != nil {
					return
				}
				emit(imu.Sample{At: t.clock.Now(), Stamp: time.Unix(0, m.Header.Stamp.Nanos()),
					Gyro: [3]float64{m.AngularVelocity.X, m.AngularVelocity.Y, m.AngularVelocity.Z}, Source: imu.SourceDriver})
			})
		})
	}), nil
}

// whileDriver runs sub until it returns, ctx ends, or ~/state names another driver pid than pid (then it
// returns that as the error).
func (t *ROS2Target) whileDriver(ctx context.Context, pid int, sub func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		for ctx.Err() == nil {
			t.mu.Lock()
			now := t.state.PIDs.Driver
			t.mu.Unlock()
			if now != pid {
				cancel(fmt.Errorf("driver replaced (pid %d -> %d)", pid, now))
				return
			}
			t.clock.Sleep(ctx, 20*time.Millisecond)
		}
	}()
	err := sub(ctx)
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
		return c
	}
	return err
}

// FollowScans subscribes scan (sensor-data QoS) until ctx ends, fn fails, or the driver is replaced.
func (t *ROS2Target) FollowScans(ctx context.Context, fn func(ScanSample) error) error {
	start, err := t.State(ctx)
	if err != nil {
		return err
	}
	return t.whileDriver(ctx, start.Pids.Driver, func(ctx context.Context) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		err := t.peer.Subscribe(ctx, "scan", "sensor_msgs/msg/LaserScan", dds.SensorData, func(s dds.Sample) {
			var m rosmsg.LaserScan
			if err := cdr.Unmarshal(s.Data, &m); err != nil {
				return
			}
			sc := api.Scan{Stamp: time.Unix(0, m.Header.Stamp.Nanos()), FrameID: m.Header.FrameID,
				ScanTime: float64(m.ScanTime), TimeIncrement: float64(m.TimeIncrement), AngleMin: float64(m.AngleMin),
				AngleMax: float64(m.AngleMax), AngleIncrement: float64(m.AngleIncrement), RangeMin: float64(m.RangeMin),
				RangeMax: float64(m.RangeMax), Ranges: m.Ranges, Intensities: m.Intensities}
			if err := fn(ScanSample{At: t.clock.Now(), Scan: sc}); err != nil {
				cancel(err)
			}
		})
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			return c
		}
		return err
	})
}

var _ ScanFollower = (*ROS2Target)(nil)

type ros2Pub struct {
	t  *ROS2Target
	mu sync.Mutex
	c  *ros2.CmdVel
}

// Publisher is one Twist publisher on the graph, on the input's topic: cmd_vel, or manual/cmd_vel and
// autonomous/cmd_vel (the driver node subscribes to one topic per input).
func (t *ROS2Target) Publisher(ctx context.Context, input string) (Publisher, error) {
	in, err := motion.ParseInput(input)
	if err != nil {
		return nil, err
	}
	topic := "cmd_vel"
	if in != motion.InputCmdVel {
		topic = in.String() + "/cmd_vel"
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := t.peer.CmdVelOn(mctx, topic)
	if err != nil {
		return nil, err
	}
	return &ros2Pub{t: t, c: c}, nil
}

func (p *ros2Pub) Send(ctx context.Context, tw kinematics.Twist) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c == nil {
		return errors.New("ros2: publisher closed")
	}
	return p.c.Send(tw.VX, tw.VY, tw.WZ)
}

func (p *ros2Pub) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c == nil {
		return nil
	}
	err := p.c.Close()
	p.c = nil
	return err
}

// Estop publishes std_msgs/Bool true on estop.
func (t *ROS2Target) Estop(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return t.peer.EStop(ctx)
}

var _ OneShotEstopper = (*ROS2Target)(nil)

// EstopOnce is the operator's e-stop: std_msgs/Bool true written once by a fresh publisher, as `ros2 topic
// pub --once` does (ros2.Peer.EStopOnce), timed on the proof's clock just before the write.
func (t *ROS2Target) EstopOnce(ctx context.Context) (time.Time, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	at, err := t.peer.EStopOnce(ctx, t.clock.Now)
	return at, "written once by a fresh publisher, as ros2 topic pub --once", err
}

// Enable calls ~/enable; a refusal is an error with the driver's words.
func (t *ROS2Target) Enable(ctx context.Context, on bool) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := t.peer.Enable(ctx, on)
	return replyErr(fmt.Sprintf("~/enable %v (ROS 2)", on), api.Reply{Success: r.Success, Message: r.Message}, err)
}

// Reset calls ~/reset_estop.
func (t *ROS2Target) Reset(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := t.peer.Reset(ctx)
	return replyErr("~/reset_estop (ROS 2)", api.Reply{Success: r.Success, Message: r.Message}, err)
}

// Close leaves the graph and closes the inner target.
func (t *ROS2Target) Close() error {
	t.cancel()
	<-t.done
	t.peer.Close()
	return t.inner.Close()
}

// What is below the graph forwards to the inner target: the configuration (a driver node publishes none on
// the graph), the board's IMU from below the driver, the processes and the service (killed and stopped by the
// pids in ~/state, which the inner target reads the same way), and the gamepad button (pressed on the board
// or by the operator, below the driver either way).

// Config forwards to the inner target.
func (t *ROS2Target) Config(ctx context.Context) (json.RawMessage, error) { return t.inner.Config(ctx) }

// RecordBoardIMU forwards to the inner target.
func (t *ROS2Target) RecordBoardIMU(ctx context.Context) (imu.Recording, error) {
	return t.inner.RecordBoardIMU(ctx)
}

// KillDriver forwards to the inner target.
func (t *ROS2Target) KillDriver(ctx context.Context) (int, error) { return t.inner.KillDriver(ctx) }

// KillLidarReader forwards to the inner target.
func (t *ROS2Target) KillLidarReader(ctx context.Context) (int, error) {
	return t.inner.KillLidarReader(ctx)
}

// StopService forwards to the inner target.
func (t *ROS2Target) StopService(ctx context.Context) error { return t.inner.StopService(ctx) }

// StartService forwards to the inner target.
func (t *ROS2Target) StartService(ctx context.Context) error { return t.inner.StartService(ctx) }

// PressButton forwards to the inner target.
func (t *ROS2Target) PressButton(ctx context.Context, prompt func(string)) (time.Time, string, error) {
	return t.inner.PressButton(ctx, prompt)
}

// ros2Sim is a ROS2Target over a simulated robot: the inner target's faults and binary pass through.
type ros2Sim struct{ *ROS2Target }

var (
	_ Faulter      = ros2Sim{}
	_ DriverBinary = ros2Sim{}
)

func (t ros2Sim) AtTrigger(ctx context.Context) error { return t.inner.(Faulter).AtTrigger(ctx) }
func (t ros2Sim) Clear(ctx context.Context) error     { return t.inner.(Faulter).Clear(ctx) }
func (t ros2Sim) FaultName() string                   { return t.inner.(Faulter).FaultName() }
func (t ros2Sim) DriverBinary() basebin.Bin           { return t.inner.(DriverBinary).DriverBinary() }

// The hold paths' roles below the graph: the simulated board's record of its motor frames, and its
// interruptions (the commands still come over the graph).
var (
	_ BoardFramer = ros2Sim{}
	_ Interrupter = ros2Sim{}
)

func (t ros2Sim) BoardFrames(from time.Time) []BoardFrame {
	if bf, ok := t.inner.(BoardFramer); ok {
		return bf.BoardFrames(from)
	}
	return nil
}

func (t ros2Sim) DropUSB(ctx context.Context, d time.Duration) error {
	in, ok := t.inner.(Interrupter)
	if !ok {
		return errors.New("the target below the graph cannot drop the board's USB")
	}
	return in.DropUSB(ctx, d)
}

func (t ros2Sim) ResetBoard(ctx context.Context, boot time.Duration) error {
	in, ok := t.inner.(Interrupter)
	if !ok {
		return errors.New("the target below the graph cannot reset the board")
	}
	return in.ResetBoard(ctx, boot)
}

// WrapROS2 is NewROS2Target returned as the Target the proofs take: with the inner target's Faulter and
// DriverBinary when it has both (the simulated robot).
func WrapROS2(inner Target, cfg ROS2Config, clock clock.Clock, ev *evidence.Log) (Target, error) {
	t, err := NewROS2Target(inner, cfg, clock, ev)
	if err != nil {
		return nil, err
	}
	_, f := inner.(Faulter)
	_, d := inner.(DriverBinary)
	if f && d {
		return ros2Sim{t}, nil
	}
	return t, nil
}

var _ ContactModer = (*ROS2Target)(nil)

// ContactMode implements ContactModer below the graph: our driver's reflex is switched through the inner
// target (its control socket), as the seed stopped the rosorin-contact service beside the ROS 2 driver. An
// inner target without the ability says so, and the stand proof notes that its drive paths may end in a
// contact e-stop.
func (t *ROS2Target) ContactMode(ctx context.Context, mode string, d time.Duration) error {
	cm, ok := t.inner.(ContactModer)
	if !ok {
		return errors.New("the contact reflex cannot be switched from the ROS 2 graph and the target below it has no control socket")
	}
	return cm.ContactMode(ctx, mode, d)
}
