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

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clamp limits v to ±lim.
func clamp(v, lim float64) float64 { return math.Max(-lim, math.Min(lim, v)) }
