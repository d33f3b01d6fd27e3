package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/imu"
)

// The roles a target plays. A proof, a trigger or a loop asks for the roles it uses; a new action is a new
// method on one role (or a role of its own) and its implementations, nothing else. The implementations are
// LiveTarget (a running driver through its control API), SimTarget (the simulated stand robot with the real
// driver started against it), ROS2Target (the ROS 2 graph) and targettest.Fake.
//
// Every method takes a context and returns when it is done; none may block beyond its context. Methods are
// safe for concurrent use (the proof keeps publishing commands while a trigger runs).

// Describer says what the proof is talking to and how it is configured.
type Describer interface {
	// Describe says what the proof is talking to, for the first output line and the evidence log.
	Describe() string
	// Config returns the driver's configuration as it reports it (for the JSON record).
	Config(ctx context.Context) (json.RawMessage, error)
}

// StateReader reads the driver's state record: what the proofs' state poll (runcore.Engine.Poll) reads.
type StateReader interface {
	// State reads the driver's state record once.
	State(ctx context.Context) (State, error)
}

// IMURecorder records the IMU, from the driver and from below it.
type IMURecorder interface {
	// RecordIMU starts recording the driver's IMU stream. The recording ends when ctx ends, when it is
	// closed, or when the stream ends (driver gone); it never reconnects, so a recording never mixes two
	// driver processes.
	RecordIMU(ctx context.Context) (imu.Recording, error)
	// RecordBoardIMU starts recording the board's IMU frames from below the driver: the supervisor's raw
	// stream if it answers, else the port itself while no process holds it. It keeps trying both until
	// closed, so it covers the driver's death and the service's absence. Close it before StartService: the
	// service needs the port.
	RecordBoardIMU(ctx context.Context) (imu.Recording, error)
}

// Commander opens the velocity-command publishers the proofs' drive loop (runcore.Engine.Drive) sends on.
type Commander interface {
	// Publisher opens one velocity-command publisher on the driver's input named input ("manual",
	// "autonomous", "cmd_vel"; "" is cmd_vel). It counts as one publisher of that input for the driver's
	// two-publisher rule; publishers on different inputs are arbitrated by priority. Close it when the path
	// is done.
	Publisher(ctx context.Context, input string) (Publisher, error)
}

// Switcher holds the driver's motion switches: enable, e-stop, reset.
type Switcher interface {
	// Enable enables (on) or disables the wheels. A refused enable is an error carrying the driver's words.
	Enable(ctx context.Context, on bool) error
	// Estop latches the driver's e-stop.
	Estop(ctx context.Context) error
	// Reset clears a latched e-stop; motion stays disabled.
	Reset(ctx context.Context) error
}

// Killer kills the driver's processes.
type Killer interface {
	// KillDriver sends SIGKILL to the driver process named in the state record and returns its pid.
	KillDriver(ctx context.Context) (int, error)
	// KillLidarReader sends SIGKILL to the LiDAR reader process named in the state record.
	KillLidarReader(ctx context.Context) (int, error)
}

// ServiceController stops and starts the whole driver service.
type ServiceController interface {
	// StopService stops the whole driver service (supervisor, driver, reader) the way the init system
	// does, including the stop-motors post step, and returns when it is stopped.
	StopService(ctx context.Context) error
	// StartService starts the service again and returns once it was asked to start (not when the driver
	// answers: wait for a new driver pid in the state record for that).
	StartService(ctx context.Context) error
}

// ButtonPresser gets a gamepad button pressed.
type ButtonPresser interface {
	// PressButton gets a gamepad button other than MODE pressed (the simulator presses it; on a robot the
	// operator is asked through prompt) and returns the time of the button's first gamepad frame and how
	// that time was taken.
	PressButton(ctx context.Context, prompt func(string)) (time.Time, string, error)
}

// Target is every role the stop proofs' paths need, and Close: the robot a proof drives. The proofs depend
// on nothing else; a check that needs less asks for less (the scan-gate check: Describer, StateReader,
// Killer).
type Target interface {
	Describer
	StateReader
	IMURecorder
	Commander
	Switcher
	Killer
	ServiceController
	ButtonPresser
	// Close tears down whatever the target started. It does not touch a live driver's state: disabling
	// the wheels is the proof's teardown, which runs before Close.
	Close() error
}

// The optional roles, found by type assertion: a target that cannot play one lacks it, and the proof says so
// or does without (ContactModer and ScanFollower are beside this file).

// Faulter is implemented by targets that can break the robot on purpose (the simulator): the negative
// controls. The proof calls AtTrigger just before each path's trigger (after the spin-up, so the wheels do
// spin) and Clear after the judge and in the teardown.
type Faulter interface {
	AtTrigger(ctx context.Context) error
	Clear(ctx context.Context) error
	// FaultName names the fault for the output ("" when none).
	FaultName() string
}

// DriverBinary is implemented by targets that started the driver themselves (the simulator) and so know
// which binary runs: the proof's record names it.
type DriverBinary interface {
	DriverBinary() basebin.Bin
}

// OneShotEstopper is implemented by targets whose operators e-stop with a one-shot message (the ROS 2
// target: `ros2 topic pub --once /estop ...`, a fresh publisher each time). The e-stop path triggers that
// way, timed at the write, since the publisher's discovery comes first; Switcher.Estop stays for teardowns.
type OneShotEstopper interface {
	EstopOnce(ctx context.Context) (at time.Time, how string, err error)
}

// Publisher sends velocity commands on one publisher connection.
type Publisher interface {
	// Send publishes one command. After an error (driver gone) the next Send tries to connect again.
	Send(ctx context.Context, tw kinematics.Twist) error
	Close() error
}

// Pids are the process ids the driver reports (0 = unknown or not running).
type Pids struct {
	Supervisor  int `json:"supervisor"`
	Driver      int `json:"driver"`
	LidarReader int `json:"lidar_reader"`
}

// State is the part of the driver's state record the proofs use, plus the record itself for the evidence.
type State struct {
	At         time.Time // when the proof received it (the proof's clock)
	Enabled    bool      // motion enabled
	Estop      string    // latched e-stop reason, "" when none
	Blocked    string    // why the wheels may not move now, "" when they may
	Plugged    bool      // charger believed plugged in
	ScanAge    float64   // seconds since the last LiDAR scan reached the driver; NaN if none yet
	Publishers int       // velocity-command publishers connected
	Source     string    // the velocity input that drives ("manual", "autonomous", "cmd_vel", "none"; "" unknown)
	Pids       Pids      // process ids
	// GyroBiasDPS is the driver's current gyro bias estimate (deg/s): what it subtracts from the board's
	// raw gyro. Zero when unknown.
	GyroBiasDPS [3]float64
	// Calibrating is true while a (re)started driver measures its gyro bias: it publishes no IMU then.
	Calibrating bool
	// Config is the driver's configuration summary from the record (speed limits, cmd_timeout,
	// scan_timeout); zero fields when the driver does not report them.
	Config api.ConfigSummary
	// BodyVel is the velocity the driver's gate gives the wheels [vx, vy, wz]; WheelRPS the last wheel frame
	// it wrote (motors 1..4, wire signs): the driver's own report of what the board was told.
	BodyVel  [3]float64
	WheelRPS [4]float64
	// BoardSilent: no board frame reached the driver for more than 0.5 s.
	BoardSilent bool
	Raw         json.RawMessage // the record as the driver sent it
}

// Short renders the fields a person needs, the seed's end-state line: {enabled: false, estop: none, ...}.
func (s State) Short() string {
	est := "none"
	if s.Estop != "" {
		est = fmt.Sprintf("%q", s.Estop)
	}
	age := "none"
	if !math.IsNaN(s.ScanAge) {
		age = fmt.Sprintf("%.2f s", s.ScanAge)
	}
	blocked := "-"
	if s.Blocked != "" {
		blocked = fmt.Sprintf("%q", s.Blocked)
	}
	return fmt.Sprintf("{enabled: %v, estop: %s, blocked: %s, plugged: %v, scan_age: %s, publishers: %d, pids: driver %d, lidar_reader %d, supervisor %d}",
		s.Enabled, est, blocked, s.Plugged, age, s.Publishers, s.Pids.Driver, s.Pids.LidarReader, s.Pids.Supervisor)
}

// ErrNoState is returned when no driver state arrived in time.
var ErrNoState = errors.New("no driver state received")

// Compact keeps an evidence line on one line even if the driver indents its JSON.
func Compact(raw []byte) string {
	out := make([]byte, 0, len(raw))
	inStr, esc := false, false
	for _, c := range raw {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '\n' || c == '\r' || c == '\t' || c == ' '):
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// The implementations and the optional roles each plays (targettest.Fake's are beside it).
var (
	_ Target       = (*SimTarget)(nil)
	_ Faulter      = (*SimTarget)(nil)
	_ DriverBinary = (*SimTarget)(nil)
	_ ScanFollower = (*LiveTarget)(nil)
)
