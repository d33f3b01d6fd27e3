package motion

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// Block reasons returned by Gate.BlockReason, in the order they are checked (chapter 11 MotionGate.block_reason).
const (
	// BlockEStopPrefix starts the reason while an e-stop is latched: "estop: <first trip reason>".
	BlockEStopPrefix = "estop: "
	// BlockDisabled: motion is off until Enable(true); the gate starts here (rule 3).
	BlockDisabled = "disabled"
	// BlockCmdTimeout: the deadman; no command yet, or the last one is older than Limits.CmdTimeout.
	BlockCmdTimeout = "cmd timeout"
	// BlockNoScan: the scan gate; a software command while the last LiDAR scan is older than
	// Limits.ScanTimeout (or no scan ever arrived). Not latched.
	BlockNoScan = "no scan"
)

// ReasonMultiplePublishers is the trip reason of the two-publisher rule (rule 2).
const ReasonMultiplePublishers = "multiple cmd_vel publishers"

// RejectFactor: a command component larger than RejectFactor times its limit is not a command, it is a broken
// sender (a unit mix-up, garbage on the wire). It is refused and the wheels stop. Components between the limit
// and this bound are clamped to the limit, as the seed did (test_limits_and_ramp).
const RejectFactor = 10.0

// maxRampDT caps the time step used for the ramp: after a stalled loop (a 2 s GC pause, a suspended process)
// the speed still grows by at most one 100 ms slice per tick instead of jumping to full speed.
const maxRampDT = 100 * time.Millisecond

var (
	// ErrBadCommand is wrapped by SetCmd for a non-finite or absurd command. The command was replaced by zero.
	ErrBadCommand = errors.New("motion: bad velocity command")
	// ErrLatched is wrapped by Enable(true) while an e-stop is latched.
	ErrLatched = errors.New("motion: e-stop latched")
)

// Gate decides, every control tick, what body velocity the wheels get (chapter 11 MotionGate). Its rule:
// speeding up is gradual, every stop is immediate. It is pure logic: no clock, no I/O, not safe for concurrent
// use; one goroutine (the runtime's control loop) owns it and passes the monotonic time in.
//
// Rules, each tested in gate_test.go: disabled at start; deadman (no command for CmdTimeout gives zero);
// limits (MaxLinear on x and y, MaxAngular) and ramps; a latched e-stop keeps its first reason; Enable(true) is
// refused while latched; Reset clears the latch and leaves motion disabled; the scan gate holds software
// commands without scans (not latched, gamepad exempt); more than one publisher trips; a non-finite or absurd
// command is refused, counted and stops the wheels.
type Gate struct {
	lim       Limits
	limitsErr error // non-nil: Enable(true) is refused forever

	enabled    bool
	estop      string // first trip reason; "" = not latched
	estopBlock string // BlockEStopPrefix+estop, built once so Step never allocates

	cmd    kinematics.Twist
	cmdT   time.Time
	hasCmd bool
	cmdSrc Source

	scanT   time.Time
	hasScan bool

	cur kinematics.Twist

	publishers   int
	rejected     uint64
	lastRejected string
	trips        uint64
}

// NewGate returns a disabled gate with limits l. If l fails Limits.Validate the gate still works as a gate
// that never moves: Enable(true) returns the validation error.
func NewGate(l Limits) *Gate {
	return &Gate{lim: l, limitsErr: l.Validate()}
}

// Limits returns the limits the gate was built with.
func (g *Gate) Limits() Limits { return g.lim }

// SetCmd stores the latest velocity command, its arrival time and its source. A command with a non-finite
// component, or one larger than RejectFactor times its limit, is refused: the stored command and the current
// velocity become zero at once (the wheels stop on the next Step, without a ramp), the rejection is counted,
// and the returned error wraps ErrBadCommand. The runtime should then run Step and write the motor frame
// without waiting for the tick, as for a trip.
//
// A command stored while disabled is kept; if it is still fresh when motion is enabled it applies (seed).
func (g *Gate) SetCmd(t kinematics.Twist, now time.Time, src Source) error {
	g.cmdT, g.hasCmd, g.cmdSrc = now, true, src
	if why := g.check(t); why != "" {
		g.cmd, g.cur = kinematics.Twist{}, kinematics.Twist{}
		g.rejected++
		g.lastRejected = fmt.Sprintf("%s from %s: %s", t, src, why)
		return fmt.Errorf("%w %s from %s: %s; the wheels were stopped, fix the sender", ErrBadCommand, t, src, why)
	}
	g.cmd = t
	return nil
}

// check returns why t is not a command, or "".
func (g *Gate) check(t kinematics.Twist) string {
	if !t.IsFinite() {
		return "non-finite component"
	}
	// Written as !(x <= bound) so that a NaN limit refuses everything.
	lin, ang := RejectFactor*g.lim.MaxLinear, RejectFactor*g.lim.MaxAngular
	if !(math.Abs(t.VX) <= lin) || !(math.Abs(t.VY) <= lin) {
		return fmt.Sprintf("linear speed over %g x max_linear (%g m/s)", RejectFactor, lin)
	}
	if !(math.Abs(t.WZ) <= ang) {
		return fmt.Sprintf("angular speed over %g x max_angular (%g rad/s)", RejectFactor, ang)
	}
	return ""
}

// Sensed records that a LiDAR scan arrived at now (the scan gate uses arrivals only, never the content).
func (g *Gate) Sensed(now time.Time) { g.scanT, g.hasScan = now, true }

// Trip latches the e-stop: it keeps the first reason, disables motion and zeroes the current velocity at once.
// first is true when this call latched it (false when already latched: the first reason stays). The runtime
// writes the stop frame right away on every Trip, not at the next tick. An empty reason is recorded as
// "unspecified" so the latch can never look released.
func (g *Gate) Trip(reason string) (first bool) {
	if reason == "" {
		reason = "unspecified"
	}
	first = g.estop == ""
	if first {
		g.estop = reason
		g.estopBlock = BlockEStopPrefix + reason
		g.trips++
	}
	g.enabled = false
	g.cur = kinematics.Twist{}
	return first
}

// Reset clears the latch and returns the reason it held ("" if none). Motion stays disabled: only a separate
// Enable(true) moves the wheels again.
func (g *Gate) Reset() (was string) {
	was = g.estop
	g.estop, g.estopBlock = "", ""
	return was
}

// Enable turns motion on or off. Enable(true) is refused with an error wrapping ErrLatched while an e-stop is
// latched (and with the limits error if the limits are bad). Enable(false) always succeeds and zeroes the
// current velocity; the runtime writes the stop frame at once.
func (g *Gate) Enable(on bool) error {
	if !on {
		g.enabled = false
		g.cur = kinematics.Twist{}
		return nil
	}
	if g.estop != "" {
		return fmt.Errorf("%w (%s): refused; reset the e-stop first, then enable", ErrLatched, g.estop)
	}
	if g.limitsErr != nil {
		return fmt.Errorf("enable refused: %w", g.limitsErr)
	}
	if !g.enabled {
		// A command that arrived while the wheels were disabled is not a request to move now: without this,
		// enabling within cmd_timeout of a command sent while disabled (even by a client that has since gone)
		// moved the wheels. Only a command that arrives after the enable may turn them.
		g.cmd, g.hasCmd = kinematics.Twist{}, false
	}
	g.enabled = true
	return nil
}

// BlockReason says why the wheels may not turn at now, or "" if they may. Order as in the seed: e-stop,
// disabled, deadman, scan gate. The deadman fires when the command is strictly older than CmdTimeout
// (seed: now - cmd_t > timeout), so at exactly 0.3 s the command still holds and at 0.3 s + 1 ns it does not.
func (g *Gate) BlockReason(now time.Time) string {
	if g.estop != "" {
		return g.estopBlock
	}
	if !g.enabled {
		return BlockDisabled
	}
	if !g.hasCmd || now.Sub(g.cmdT) > g.lim.CmdTimeout {
		return BlockCmdTimeout
	}
	if g.lim.ScanTimeout > 0 && g.cmdSrc != SourceGamepad &&
		(!g.hasScan || now.Sub(g.scanT) > g.lim.ScanTimeout) {
		return BlockNoScan
	}
	return ""
}

// Step advances one control tick of length dt and returns the body velocity the wheels get. Any block reason
// gives zero at once. Otherwise the command is clamped to the limits and each axis moves toward it: a growing
// speed by at most acceleration x dt (0.01 m/s per tick at 50 Hz and 0.5 m/s²), a falling speed at once.
// A sign reversal drops to zero first, then grows. dt <= 0 allows no growth; dt above 100 ms counts as 100 ms.
//
// The result is always finite and within the limits.
func (g *Gate) Step(now time.Time, dt time.Duration) kinematics.Twist {
	if g.BlockReason(now) != "" {
		g.cur = kinematics.Twist{}
		return g.cur
	}
	if dt < 0 {
		dt = 0
	}
	if dt > maxRampDT {
		dt = maxRampDT
	}
	s := dt.Seconds()
	g.cur = kinematics.Twist{
		VX: approach(g.cur.VX, clamp(g.cmd.VX, g.lim.MaxLinear), g.lim.MaxAccelLinear*s),
		VY: approach(g.cur.VY, clamp(g.cmd.VY, g.lim.MaxLinear), g.lim.MaxAccelLinear*s),
		WZ: approach(g.cur.WZ, clamp(g.cmd.WZ, g.lim.MaxAngular), g.lim.MaxAccelAngular*s),
	}
	return g.cur
}

// approach moves cur toward tgt: slowing down (toward zero) is immediate, speeding up grows by at most step,
// and a sign change passes through zero. Why not the seed's symmetric ramp: the seed's rule is "speeding up is
// gradual, stopping is immediate", but its ramp also slowed a commanded stop to 0.5 m/s² (0.7 s from 0.35 m/s).
// A planner that asks for less speed gets it now.
func approach(cur, tgt, step float64) float64 {
	if (cur > 0 && tgt < 0) || (cur < 0 && tgt > 0) {
		cur = 0
	}
	if math.Abs(tgt) <= math.Abs(cur) {
		return tgt
	}
	return cur + clamp(tgt-cur, step)
}

// SetPublishers records how many senders of velocity commands exist now (ROS publishers on cmd_vel, or
// clients of the control socket that sent velocity commands). More than one trips the e-stop with
// ReasonMultiplePublishers (rule 2); tripped is true whenever n > 1, and the runtime writes the stop frame.
func (g *Gate) SetPublishers(n int) (tripped bool) {
	if n < 0 {
		n = 0
	}
	g.publishers = n
	if n > 1 {
		g.Trip(ReasonMultiplePublishers)
		return true
	}
	return false
}

// Status is the small part of the gate's state other logic (Pad, the charger detector) decides on. It never
// allocates.
type Status struct {
	Enabled bool
	// EStop is the latched reason, "" when not latched.
	EStop string
}

// Status returns whether motion is enabled and the latched e-stop reason.
func (g *Gate) Status() Status { return Status{Enabled: g.enabled, EStop: g.estop} }

// GateState is everything the gate knows, for the runtime's state record.
type GateState struct {
	Enabled bool
	// EStop is the latched first reason, "" when not latched.
	EStop string
	// Blocked is BlockReason(now): "" when the wheels may turn.
	Blocked string
	// Cur is the velocity of the last Step (zeroed at once by trips, disable and rejections).
	Cur kinematics.Twist
	// Cmd is the stored command (zero after a rejection), CmdSource its sender, CmdAge its age (nil: none yet).
	Cmd       kinematics.Twist
	CmdSource Source
	CmdAge    *time.Duration
	// ScanAge is the age of the last LiDAR scan, nil if none arrived since start.
	ScanAge *time.Duration
	// Rejected counts commands refused by SetCmd; LastRejected describes the latest one.
	Rejected     uint64
	LastRejected string
	// Trips counts latched e-stops (first trips only) since start.
	Trips uint64
	// Publishers is the last count given to SetPublishers.
	Publishers int
}

// Snapshot returns the gate's state at now.
func (g *Gate) Snapshot(now time.Time) GateState {
	s := GateState{
		Enabled: g.enabled, EStop: g.estop, Blocked: g.BlockReason(now), Cur: g.cur,
		Cmd: g.cmd, CmdSource: g.cmdSrc,
		Rejected: g.rejected, LastRejected: g.lastRejected, Trips: g.trips, Publishers: g.publishers,
	}
	if g.hasCmd {
		a := now.Sub(g.cmdT)
		s.CmdAge = &a
	}
	if g.hasScan {
		a := now.Sub(g.scanT)
		s.ScanAge = &a
	}
	return s
}
