package motion

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// Limits are the gate's speed limits, ramps and timeouts (chapter 11 parameter table).
type Limits struct {
	// MaxLinear (m/s) limits VX and VY separately (max_linear; the robot runs 0.35 from arm_limits.yaml).
	MaxLinear float64
	// MaxAngular (rad/s) limits WZ (max_angular).
	MaxAngular float64
	// MaxAccelLinear (m/s²) and MaxAccelAngular (rad/s²) bound how fast the speed may grow per tick.
	MaxAccelLinear, MaxAccelAngular float64
	// CmdTimeout is the deadman: a command older than this gives zero (cmd_timeout).
	CmdTimeout time.Duration
	// ScanTimeout is the scan gate: software commands are held when the last LiDAR scan is older than this
	// (scan_timeout). Zero turns the gate off, as in the seed.
	ScanTimeout time.Duration
	// SourceTimeout is arbitration's freshness (source_timeout): an input drives only while its last command
	// is at most this old, unless no input is fresh (then the last one keeps driving until CmdTimeout, the
	// deadman). 0 < SourceTimeout <= CmdTimeout.
	SourceTimeout time.Duration
	// Priority ranks the velocity inputs (input_priorities): the fresh input with the highest wins. Distinct
	// values >= 0.
	Priority [NumInputs]int
}

// DefaultLimits returns the chapter 11 code defaults: 0.2 m/s, 1.0 rad/s, 0.5 m/s², 2.0 rad/s², deadman 0.3 s,
// scan gate 0.5 s (a LiDAR revolution is about 0.1 s, so five missed revolutions hold the wheels).
func DefaultLimits() Limits {
	return Limits{
		MaxLinear:       0.2,
		MaxAngular:      1.0,
		MaxAccelLinear:  0.5,
		MaxAccelAngular: 2.0,
		CmdTimeout:      300 * time.Millisecond,
		ScanTimeout:     500 * time.Millisecond,
		SourceTimeout:   200 * time.Millisecond,
		Priority:        DefaultPriorities(),
	}
}

// ErrBadLimits is wrapped by Limits.Validate. A gate built with bad limits refuses Enable(true): it never moves.
var ErrBadLimits = errors.New("motion: bad limits")

// Validate checks that every limit is finite and positive (ScanTimeout may be 0 = gate off). It does not check
// what the board accepts; see MaxWheelRPS for that.
func (l Limits) Validate() error {
	pos := func(name string, v float64) error {
		if !isFinite(v) || v <= 0 {
			return fmt.Errorf("%w: %s = %v; it must be a finite number > 0", ErrBadLimits, name, v)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{
		{"max_linear", l.MaxLinear}, {"max_angular", l.MaxAngular},
		{"max_accel_linear", l.MaxAccelLinear}, {"max_accel_angular", l.MaxAccelAngular},
	} {
		if err := pos(c.name, c.v); err != nil {
			return err
		}
	}
	if l.CmdTimeout <= 0 {
		return fmt.Errorf("%w: cmd_timeout = %v; the deadman cannot be off, give a value > 0 (default 0.3 s)",
			ErrBadLimits, l.CmdTimeout)
	}
	if l.ScanTimeout < 0 {
		return fmt.Errorf("%w: scan_timeout = %v; use 0 to turn the scan gate off or a value > 0 (default 0.5 s)",
			ErrBadLimits, l.ScanTimeout)
	}
	if l.SourceTimeout <= 0 || l.SourceTimeout > l.CmdTimeout {
		return fmt.Errorf("%w: source_timeout = %v; give 0 < source_timeout <= cmd_timeout (%v; default 0.2 s): "+
			"an input the deadman has stopped must not win arbitration", ErrBadLimits, l.SourceTimeout, l.CmdTimeout)
	}
	for i, p := range l.Priority {
		if p < 0 {
			return fmt.Errorf("%w: priority of %s = %d; give a value >= 0", ErrBadLimits, Input(i), p)
		}
		for j := range i {
			if l.Priority[j] == p {
				return fmt.Errorf("%w: %s and %s have the same priority %d; arbitration needs distinct priorities",
					ErrBadLimits, Input(j), Input(i), p)
			}
		}
	}
	return nil
}

// MaxWheelRPS is the largest wheel speed (rev/s) the gate can ever command under these limits with geometry
// g: full MaxLinear on both axes plus full MaxAngular, all adding up on one wheel. The board's motor encoder
// refuses more than 5 rps, so a configuration above that could never be honoured in a diagonal turn.
func (l Limits) MaxWheelRPS(g kinematics.Geometry) float64 {
	k := (g.Wheelbase + g.Track) / 2
	return (2*l.MaxLinear + l.MaxAngular*k) / (math.Pi * g.WheelDiameter)
}

// Source says who sent a velocity command. Only SourceGamepad is exempt from the scan gate: a person holding
// the pad is watching the robot and must be able to move it with a dead LiDAR (chapter 11, 2026-10-02).
type Source uint8

const (
	// SourceSoftware is any program (the control socket, a ROS transport, navigation). Scan-gated.
	SourceSoftware Source = iota
	// SourceGamepad is the driver's own gamepad drive mode (Pad). Not scan-gated.
	SourceGamepad
)

// String returns "software" or "gamepad".
func (s Source) String() string {
	switch s {
	case SourceSoftware:
		return "software"
	case SourceGamepad:
		return "gamepad"
	}
	return fmt.Sprintf("source(%d)", uint8(s))
}

// Input is one of the gate's velocity command inputs, arbitrated by priority (after the peer robot's
// twist_mux table in seed 003, "Velocity command arbitration").
type Input uint8

const (
	// InputCmdVel is anything else, and every sender that names no input: today's only input (priority 1).
	InputCmdVel Input = iota
	// InputAutonomous is navigation (Nav2; priority 10).
	InputAutonomous
	// InputManual is a person: the board's gamepad when it drives, a teleop (priority 100).
	InputManual
	// NumInputs is the number of inputs.
	NumInputs
)

var inputNames = [NumInputs]string{"cmd_vel", "autonomous", "manual"}

// String returns the input's name: "cmd_vel", "autonomous" or "manual".
func (i Input) String() string {
	if i < NumInputs {
		return inputNames[i]
	}
	return fmt.Sprintf("input(%d)", uint8(i))
}

// ErrUnknownInput is wrapped by ParseInput.
var ErrUnknownInput = errors.New("unknown velocity input")

// ParseInput returns the input named s; "" is InputCmdVel (a sender that names no input).
func ParseInput(s string) (Input, error) {
	if s == "" {
		return InputCmdVel, nil
	}
	for i, n := range inputNames {
		if s == n {
			return Input(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q: use manual, autonomous or cmd_vel", ErrUnknownInput, s)
}

// DefaultPriorities: manual 100 over autonomous 10 over cmd_vel 1 (the peer robot's table).
func DefaultPriorities() [NumInputs]int { return [NumInputs]int{1, 10, 100} }

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clamp limits v to ±lim.
func clamp(v, lim float64) float64 { return math.Max(-lim, math.Min(lim, v)) }
