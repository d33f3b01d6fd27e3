package motion

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/internal/breakrule"
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
// command is refused, counted and stops the wheels. hold_test.go pins what follows each stop (issue 34, no
// motion without a deliberate act): still until the act (Enable, scans back, the lower input leading again, a
// good command), then only the ramp from zero, never the old speed, with a publisher that never stopped.
type Gate struct {
	lim       Limits
	limitsErr error // non-nil: Enable(true) is refused forever

	enabled    bool
	estop      string // first trip reason; "" = not latched
	estopBlock string // BlockEStopPrefix+estop, built once so Step never allocates

	in [NumInputs]slot // the last command of each input

	scanT   time.Time
	hasScan bool

	cur kinematics.Twist

	publishers   [NumInputs]int
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

// slot is one input's last command.
type slot struct {
	cmd kinematics.Twist
	t   time.Time
	has bool
	src Source
}

// SetCmd stores the latest velocity command of input in, its arrival time and its source. A command with a
// non-finite component, or one larger than RejectFactor times its limit, is refused: the input's command
// becomes zero (fresh, so it still takes part in arbitration) and the current velocity zero at once (the wheels
// stop on the next Step, without a ramp, whichever input wins), the rejection is counted, and the returned
// error wraps ErrBadCommand. The runtime should then run Step and write the motor frame without waiting for the
// tick, as for a trip.
//
// A command stored while disabled is dropped by Enable(true) (errata).
func (g *Gate) SetCmd(in Input, t kinematics.Twist, now time.Time, src Source) error {
	if in >= NumInputs {
		return fmt.Errorf("%w: input %d", ErrUnknownInput, in)
	}
	s := &g.in[in]
	s.t, s.has, s.src = now, true, src
	if why := g.check(t); why != "" {
		s.cmd = kinematics.Twist{}
		if !breakrule.On(breakrule.KeepRamp) { // negative control only (constant false in a normal build)
			g.cur = kinematics.Twist{}
		}
		g.rejected++
		g.lastRejected = fmt.Sprintf("%s from %s on %s: %s", t, src, in, why)
		return fmt.Errorf("%w %s from %s on %s: %s; the wheels were stopped, fix the sender", ErrBadCommand, t, src, in, why)
	}
	s.cmd = t
	return nil
}

// Winner is arbitration at now: the input with the highest priority among those whose last command is at most
// SourceTimeout old. When none is fresh, the input that sent the latest command keeps the lead (it was the
// winner when the last fresh input went stale), so the wheels stop by the deadman, CmdTimeout after that
// command, exactly as with one input. ok is false when no command arrived since start (or since the enable).
//
// The rule against flapping: a higher input takes over at its first command; the lead falls back to a lower
// input only after the higher one has been silent for SourceTimeout. So the commanded input changes downward
// at most once per SourceTimeout, and each input's command goes through the same ramp.
func (g *Gate) Winner(now time.Time) (in Input, ok bool) {
	best, latest := -1, -1
	for i := range g.in {
		s := &g.in[i]
		if !s.has {
			continue
		}
		if now.Sub(s.t) <= g.lim.SourceTimeout && (best < 0 || g.lim.Priority[i] > g.lim.Priority[best]) {
			best = i
		}
		if l := latest; l < 0 || s.t.After(g.in[l].t) || (s.t.Equal(g.in[l].t) && g.lim.Priority[i] > g.lim.Priority[l]) {
			latest = i
		}
	}
	if best >= 0 {
		return Input(best), true
	}
	if latest >= 0 {
		return Input(latest), true
	}
	return 0, false
}

// LastCommand returns the arrival of input in's last command; ok is false when it sent none since start (or
// since the enable).
func (g *Gate) LastCommand(in Input) (at time.Time, ok bool) {
	if in >= NumInputs || !g.in[in].has {
		return time.Time{}, false
	}
	return g.in[in].t, true
}

// Current returns the velocity of the last Step (zeroed at once by trips, disable and rejections).
func (g *Gate) Current() kinematics.Twist { return g.cur }

// SourceNone is what Driving returns when no input drives.
const SourceNone = "none"

// Driving names the input whose command the gate follows at now ("manual", "autonomous", "cmd_vel"), or
// SourceNone when there is none or its command is older than CmdTimeout (the deadman). It does not say
// whether the wheels may turn (BlockReason does: disabled, e-stop, scan gate).
func (g *Gate) Driving(now time.Time) string {
	w, ok := g.Winner(now)
	if !ok || now.Sub(g.in[w].t) > g.lim.CmdTimeout {
		return SourceNone
	}
	return w.String()
}

// NextDeadline returns the earliest instant after now at which time alone can change what the gate does, or
// the zero time when there is none:
//   - the winner's command leaving SourceTimeout, when a later command of another input would take the lead
//     then (a hand-over; with one input it changes nothing, and no deadline is set for it);
//   - the winner's command leaving CmdTimeout (the deadman);
//   - the last scan leaving ScanTimeout (the scan gate).
//
// The runtime arms a timer for it and runs Step when it fires, so the deadman and the hand-overs act at their
// instant, not at the next control tick. Each deadline is 1 ns after the boundary, because the rules hold at
// exactly the timeout and release after it. A firing at any other instant is harmless: Step decides from now.
func (g *Gate) NextDeadline(now time.Time) time.Time {
	var next time.Time
	consider := func(t time.Time) {
		if t.After(now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if w, ok := g.Winner(now); ok {
		tw := g.in[w].t
		for i := range g.in {
			if s := &g.in[i]; Input(i) != w && s.has && s.t.After(tw) {
				consider(tw.Add(g.lim.SourceTimeout + 1))
				break
			}
		}
		consider(tw.Add(g.lim.CmdTimeout + 1))
	}
	if g.lim.ScanTimeout > 0 && g.hasScan {
		consider(g.scanT.Add(g.lim.ScanTimeout + 1))
	}
	return next
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
	if !breakrule.On(breakrule.KeepRamp) { // negative control only (constant false in a normal build)
		g.cur = kinematics.Twist{}
	}
	return first
}

// Reset clears the latch and returns the reason it held ("" if none). Motion stays disabled: only a separate
// Enable(true) moves the wheels again.
func (g *Gate) Reset() (was string) {
	was = g.estop
	g.estop, g.estopBlock = "", ""
	if breakrule.On(breakrule.SelfEnable) && g.limitsErr == nil {
		// NEGATIVE CONTROL (rosorin_breakrule builds only): the reset resumes motion by itself, with the
		// commands stored meanwhile; the reset-hold proof must FAIL on it.
		g.enabled = true
	}
	return was
}

// Enable turns motion on or off. Enable(true) is refused with an error wrapping ErrLatched while an e-stop is
// latched (and with the limits error if the limits are bad). Enable(false) always succeeds and zeroes the
// current velocity; the runtime writes the stop frame at once.
func (g *Gate) Enable(on bool) error {
	if !on {
		g.enabled = false
		if !breakrule.On(breakrule.KeepRamp) { // negative control only (constant false in a normal build)
			g.cur = kinematics.Twist{}
		}
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
		g.in = [NumInputs]slot{}
	}
	g.enabled = true
	return nil
}

// BlockReason says why the wheels may not turn at now, or "" if they may. Order as in the seed: e-stop,
// disabled, deadman, scan gate. The deadman fires when the winner's command is strictly older than CmdTimeout
// (seed: now - cmd_t > timeout), so at exactly 0.3 s the command still holds and at 0.3 s + 1 ns it does not.
// The scan gate holds the winner's command unless the gamepad sent it.
func (g *Gate) BlockReason(now time.Time) string {
	if g.estop != "" {
		return g.estopBlock
	}
	if !g.enabled {
		return BlockDisabled
	}
	w, ok := g.Winner(now)
	if !ok || now.Sub(g.in[w].t) > g.lim.CmdTimeout {
		return BlockCmdTimeout
	}
	if g.lim.ScanTimeout > 0 && g.in[w].src != SourceGamepad &&
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
		if breakrule.On(breakrule.KeepRamp) { // negative control only: zero out, the ramp keeps its old speed
			return kinematics.Twist{}
		}
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
	w, _ := g.Winner(now) // BlockReason "" means there is one
	cmd := g.in[w].cmd
	g.cur = kinematics.Twist{
		VX: approach(g.cur.VX, clamp(cmd.VX, g.lim.MaxLinear), g.lim.MaxAccelLinear*s),
		VY: approach(g.cur.VY, clamp(cmd.VY, g.lim.MaxLinear), g.lim.MaxAccelLinear*s),
		WZ: approach(g.cur.WZ, clamp(cmd.WZ, g.lim.MaxAngular), g.lim.MaxAccelAngular*s),
	}
	return g.cur
}

// approach moves cur toward tgt: slowing down (toward zero) is immediate, speeding up grows by at most step,
// and a sign change passes through zero. Why not the seed's symmetric ramp: the seed's rule is "speeding up is
// gradual, stopping is immediate", but its ramp also slowed a commanded stop to 0.5 m/s² (0.7 s from 0.35 m/s).
// A planner that asks for less speed gets it now.
//
// The build-tagged negative control keep-ramp (internal/breakrule; never in a normal build, where On is a
// constant false and this branch is compiled out) restores that symmetric ramp, and the zeroing of cur on
// every stop above is skipped with it: after a deadman stop a zero command then a small one give a burst at
// the old speed, and a release resumes at the old speed. hold_break_test.go requires the hold tests to FAIL so.
func approach(cur, tgt, step float64) float64 {
	if breakrule.On(breakrule.KeepRamp) { // negative control only: the seed's symmetric rate limiter
		return cur + clamp(tgt-cur, step)
	}
	if (cur > 0 && tgt < 0) || (cur < 0 && tgt > 0) {
		cur = 0
	}
	if math.Abs(tgt) <= math.Abs(cur) {
		return tgt
	}
	return cur + clamp(tgt-cur, step)
}

// SetPublishers records how many senders of velocity commands input in has now (ROS publishers on its topic,
// or clients of the control socket that sent velocity commands on it). More than one on one input trips the
// e-stop with PublishersReason(in) (rule 2, per input: senders on different inputs are arbitrated, not
// tripped); tripped is true whenever n > 1, and the runtime writes the stop frame.
func (g *Gate) SetPublishers(in Input, n int) (tripped bool) {
	if in >= NumInputs {
		return false
	}
	if n < 0 {
		n = 0
	}
	g.publishers[in] = n
	if n > 1 {
		g.Trip(PublishersReason(in))
		return true
	}
	return false
}

// PublishersReason is the trip reason of the two-publisher rule on input in: ReasonMultiplePublishers
// ("multiple cmd_vel publishers", the seed's words) on cmd_vel, "multiple manual/cmd_vel publishers" and
// "multiple autonomous/cmd_vel publishers" (the ROS 2 topics' names) on the others.
func PublishersReason(in Input) string {
	if in == InputCmdVel {
		return ReasonMultiplePublishers
	}
	return "multiple " + in.String() + "/cmd_vel publishers"
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
	// Cmd is the winning input's stored command (zero after a rejection), CmdSource its sender, CmdAge its age
	// (nil: none yet); Input the winning input and Driving its name or SourceNone (Gate.Driving).
	Cmd       kinematics.Twist
	CmdSource Source
	CmdAge    *time.Duration
	Input     Input
	Driving   string
	// ScanAge is the age of the last LiDAR scan, nil if none arrived since start.
	ScanAge *time.Duration
	// Rejected counts commands refused by SetCmd; LastRejected describes the latest one.
	Rejected     uint64
	LastRejected string
	// Trips counts latched e-stops (first trips only) since start.
	Trips uint64
	// Publishers is the last count given to SetPublishers, per input.
	Publishers [NumInputs]int
}

// Snapshot returns the gate's state at now.
func (g *Gate) Snapshot(now time.Time) GateState {
	s := GateState{
		Enabled: g.enabled, EStop: g.estop, Blocked: g.BlockReason(now), Cur: g.cur,
		Rejected: g.rejected, LastRejected: g.lastRejected, Trips: g.trips, Publishers: g.publishers,
		Driving: g.Driving(now),
	}
	if w, ok := g.Winner(now); ok {
		sl := &g.in[w]
		s.Input, s.Cmd, s.CmdSource = w, sl.cmd, sl.src
		a := now.Sub(sl.t)
		s.CmdAge = &a
	}
	if g.hasScan {
		a := now.Sub(g.scanT)
		s.ScanAge = &a
	}
	return s
}
