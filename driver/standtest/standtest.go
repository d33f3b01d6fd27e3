// Package standtest is the chapter 11 stand harness as one conformance suite, run against every target a
// driver can be tested on: the driver package's in-process driver on a pseudo-terminal fake board
// (driver/stand_test.go) and the whole `rosorin-base run` stack against the simulated robot
// (driver/simtest/stand_test.go). The checks are the same on both; a target that knows the wheels' truth (the
// sim) gets the truth checks too (the optional Truth interface).
//
// Spec: chapter 11's stand checks: nothing moves while disabled; forward then silence stops by the deadman;
// +0.5 rad/s turns the left wheels (motors 1, 2 = wire ids 0, 1) backward and the right ones (motors 3, 4,
// mounted mirrored) forward; the e-stop stops the wheels while commands keep coming, enable is refused until
// reset, reset leaves motion disabled; a gamepad button trips; LiDAR silence holds software commands within
// scan_timeout plus one tick and they resume by themselves; gamepad drive mode is not held by the scan gate.
package standtest

import (
	"context"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// Frame is one four-motor speed frame the board received. Targets judge every frame themselves (anything but a
// finite, in-limit four-motor frame fails the test) and give the suite only the good ones.
type Frame struct {
	Index int // position in the target's record: Frames(Index) starts with this frame
	At    time.Time
	RPS   [4]float64
	Raw   []byte
}

// Moving reports whether any wheel is commanded; a zero frame is byte for byte the stop frame.
func (f Frame) Moving() bool { return f.RPS != [4]float64{} }

// Bench is one driver with the board it drives, a LiDAR feed and a gamepad.
type Bench interface {
	Client() *api.Client
	// Count is the index the next frame will get; Frames returns the frames from index from on.
	Count() int
	Frames(from int) []Frame
	// Scans turns the LiDAR scans reaching the driver on or off (off: silence, as an unplugged LiDAR). Turning
	// them off returns when the last scan was sent, where the target feeds them itself (else zero).
	Scans(t testing.TB, on bool) (lastSent time.Time)
	// PadConnected makes the gamepad send its 20 Hz reports (centred sticks unless PadStick) or stop.
	PadConnected(t testing.TB, on bool)
	// PadPress sends buttons in one report (a quick tap).
	PadPress(t testing.TB, buttons uint16)
	// PadStick holds the left stick's forward axis at ly in every report from now on.
	PadStick(t testing.TB, ly int8)
	// LogCount counts the driver's log lines containing sub since the test began.
	LogCount(sub string) int
	Config() Config
}

// Config is what a target says about itself.
type Config struct {
	Tick  time.Duration // one control period
	Slack time.Duration // what a loaded machine may add to a rule's own time before an assertion fails
	// DeadmanRuns and EStopCycles: how many times the deadman and e-stop checks repeat (figures are logged).
	DeadmanRuns, EStopCycles int
	// ReaderPID is the pid the driver must name as its LiDAR reader while scans flow.
	ReaderPID int
	// Clock is the suite's time: its pauses, waits and measured intervals (nil: clock.Real{}; a stand is real
	// hardware in real time).
	Clock clock.Full
}

// clockOf is tg's clock.
func clockOf(tg Bench) clock.Full {
	if c := tg.Config().Clock; c != nil {
		return c
	}
	return clock.Real{}
}

// pause waits d on tg's clock.
func pause(tg Bench, d time.Duration) { _ = clockOf(tg).Sleep(context.Background(), d) }

// Wheels is what the suite reads of a simulated robot's ground truth: the wire rps last commanded and the
// wheels' actual speeds, ids 0..3 (motors 1..4).
type Wheels struct {
	TargetRPS, WheelRPS [4]float64
}

// Truth is the optional ground truth of a simulated robot, with the simulator's own kinematics: kept apart
// from the driver's on purpose, so that a sign error in the driver shows up as a disagreement.
type Truth interface {
	Wheels() Wheels
	// WheelRPS is the simulator's inverse kinematics: body velocity (vx m/s, vy m/s, wz rad/s) to wire rps.
	WheelRPS(v [3]float64) [4]float64
	// BodyVelocity is its forward kinematics: wire rps to the body velocity without slip.
	BodyVelocity(rps [4]float64) [3]float64
}

// The suite's cases, in the order Run runs them.
var cases = []struct {
	name string
	fn   func(t *testing.T, tg Bench)
}{
	{"DisabledNothingMoves", disabledNothingMoves},
	{"ForwardThenSilenceDeadman", forwardThenSilenceDeadman},
	{"RotateSigns", rotateSigns},
	{"EStopLatchesWhileCommandsKeepComing", estopLatches},
	{"GamepadButtonTripsOnFirstFrame", gamepadButtonTrips},
	{"ScanGateHoldsAndResumes", scanGateHoldsAndResumes},
	{"GamepadDrivingNotHeldByScanGate", gamepadDrivingNotHeldByScanGate},
}

// Run runs every case as a subtest on a target from newTarget, which gives each case a driver that is
// disabled, not latched, with scans flowing, no gamepad and no fresh command.
func Run(t *testing.T, newTarget func(t *testing.T) Bench) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newTarget(t)) })
	}
}

// Bounds for a stop request's stop frame through HTTP, the loop and the board's tty, in real time. They are
// safety-relevant, not tight: on a loaded 2-core CI machine one scheduling delay costs tens of ms, and a bound
// of one tick (20 ms) over 40 cycles failed for that reason alone. That the trip's frame goes out at once and
// not at the next tick is proven on the injected clock (driver's TestLoopTripWritesStopBeforeTheNextTick).
var (
	StopP99Bound = testkit.Bound(100 * time.Millisecond)
	StopMaxBound = testkit.Bound(250 * time.Millisecond)
)
