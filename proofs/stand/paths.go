package stand

import (
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/stoppath"
)

// Path names a stop path (the record's "path").
type Path string

// The stop paths of chapter 19, plus the gamepad button the seed could never time and the operator's take-over
// of velocity arbitration.
const (
	Deadman  Path = "deadman"
	Estop    Path = "estop"
	Disable  Path = "disable"
	ScanLoss Path = "scanloss"
	Kill     Path = "kill"
	Service  Path = "service"
	Gamepad  Path = "gamepad"
	TakeOver Path = "takeover"

	// The hold paths (docs/safety-case.md, "No motion without a deliberate act"): after each event the wheels
	// stay still while the publisher keeps commanding, until the deliberate act; then only the ramp from zero.
	ResetHold        Path = "reset-hold"
	RestartHold      Path = "restart-hold"
	ServiceHold      Path = "service-hold"
	USBHold          Path = "usb-hold"
	BoardResetHold   Path = "board-reset-hold"
	ZeroAfterTimeout Path = "zero-after-timeout"
)

// Motion is the drive command a path spins the wheels with.
type Motion = stoppath.Motion

// The three motions of chapter 19's table: 0.2 m/s (the floor limit), 0.35 m/s (max_linear since 2026-10-01)
// and a 1.0 rad/s turn (the weakest vibration, just above the threshold).
var (
	Fwd02  = Motion{Name: "fwd 0.2", Twist: kinematics.Twist{VX: 0.2}}
	Fwd035 = Motion{Name: "fwd 0.35", Twist: kinematics.Twist{VX: 0.35}}
	Rot10  = Motion{Name: "rot 1.0", Twist: kinematics.Twist{WZ: 1.0}}
)

// Rule is the stand proof's judging rule for a path. The zero value is the judge's own: still within 2 s,
// then 2 s of quiet.
type Rule struct {
	// ScanGate is the scan gate's rule: the gate lets go by itself once scans are back, so the proof keeps
	// commanding through the loss and the return (following the driver's scan_age), judges the stop only up to
	// the last state that still showed the scan stale, with Options.ScanLossQuiet of quiet instead of 2 s,
	// and judges the release (the Spec's Release line) with stand.ReleaseCheck.
	ScanGate bool
	// Contact is the contact path's rule: no trigger of the proof's own; the driver's contact reflex must
	// latch the e-stop (contact.go). Every other path runs with the reflex in log mode.
	Contact bool
}

// Spec is one stop path of the stand proof; Step one run of it.
type (
	Spec = stoppath.Spec[Rule]
	Step = stoppath.Step[Rule]
)

// after is the round after the sweep of deadman, estop and disable over the three motions; holds the round
// of the hold paths after it.
const (
	after = 3
	holds = 4
)

// Paths is the stand proof's table, in the order the proof runs them: deadman, estop and disable at fwd 0.2,
// then at fwd 0.35, then at rot 1.0; then scanloss, kill and service at fwd 0.35, gamepad at fwd 0.2, takeover
// at fwd 0.35 and contact at fwd 0.2.
var Paths = stoppath.Table[Rule]{
	{Name: string(Deadman), Label: "deadman (silence)", Help: "silence: no command for cmd_timeout",
		At: stoppath.Sweep(Fwd02, Fwd035, Rot10), Trigger: stoppath.Silence},
	{Name: string(Estop), Label: "estop request", Help: "the e-stop request (the seed's estop topic)",
		At: stoppath.Sweep(Fwd02, Fwd035, Rot10), Trigger: stoppath.EstopRequest},
	{Name: string(Disable), Label: "enable false", Help: "enable false",
		At: stoppath.Sweep(Fwd02, Fwd035, Rot10), Trigger: stoppath.EnableFalse},
	{Name: string(ScanLoss), Label: "LiDAR silent (scan gate)",
		Help: "SIGKILL of the LiDAR reader: the scan gate stops the wheels, and they turn again by themselves once the reader respawns",
		At:   stoppath.Once(Fwd035, after), Trigger: stoppath.KillLidarReader,
		Release: "LiDAR back: wheels released by themselves", ReleaseRow: "LiDAR back (released)", ReleaseFrom: "the kill", Rule: Rule{ScanGate: true}},
	{Name: string(Kill), Label: "driver kill", Row: "SIGKILL of the driver", Help: "SIGKILL of the driver",
		At: stoppath.Once(Fwd035, after), KillsDriver: true, Trigger: stoppath.KillDriver},
	{Name: string(Service), Label: "driver service", Row: "service stop", Help: "the whole service stopped, then started again",
		At: stoppath.Once(Fwd035, after), KillsDriver: true, StopsService: true, Trigger: stoppath.StopService},
	{Name: string(Gamepad), Label: "gamepad button",
		Help: "a gamepad button other than MODE (the sim presses it; on a robot you are asked to)",
		At:   stoppath.Once(Fwd02, after), Trigger: stoppath.PressButton},
	{Name: string(TakeOver), Label: "manual take-over", Input: "autonomous",
		Help: "autonomous drives; a manual publisher sends zero while autonomous keeps commanding, then lets go and autonomous must drive again",
		At:   stoppath.Once(Fwd035, after), Trigger: stoppath.ManualTakeOver,
		Release: "operator let go: autonomous resumed", ReleaseRow: "let go (autonomous resumed)", ReleaseFrom: "letting go"},
	{Name: string(ResetHold), Label: "held after e-stop reset", Row: "e-stop reset (held, then resumed)",
		Help: "e-stop, then its reset while the publisher keeps commanding: still until enable, then the ramp from zero",
		At:   stoppath.Once(Fwd02, holds), Trigger: stoppath.EstopRequest, Hold: stoppath.HoldReset,
		Release: "enable after reset: ramp from zero", ReleaseRow: "e-stop reset: resumed"},
	{Name: string(RestartHold), Label: "held after driver restart", Row: "driver restart (held)",
		Help: "SIGKILL of the driver with the publisher commanding: the new driver stays still until reset and enable, then the ramp",
		At:   stoppath.Once(Fwd02, holds), KillsDriver: true, Trigger: stoppath.KillDriver, Hold: stoppath.HoldRestart,
		Release: "enable after restart: ramp from zero", ReleaseRow: "driver restart: resumed"},
	{Name: string(ServiceHold), Label: "held after service restart", Row: "service restart (held)",
		Help: "the service stopped and started again (the robot's first start) with the publisher commanding: still until enable, then the ramp",
		At:   stoppath.Once(Fwd02, holds), KillsDriver: true, StopsService: true, Trigger: stoppath.StopService, Hold: stoppath.HoldService,
		Release: "enable after service start: ramp from zero", ReleaseRow: "service restart: resumed"},
	{Name: string(USBHold), Label: "held after USB return", Row: "USB drop and return (held)",
		Help: "the board's USB gone for 1 s and back (the simulator; on a robot, by hand) with the publisher commanding: still until reset and enable",
		At:   stoppath.Once(Fwd02, holds), KillsDriver: true, Trigger: stoppath.DropUSB, Hold: stoppath.HoldUSB,
		Release: "enable after USB return: ramp from zero", ReleaseRow: "USB return: resumed"},
	{Name: string(BoardResetHold), Label: "held after board reset", Row: "board firmware reset (held)",
		Help: "the board's firmware restarts behind an open port (the simulator) with the publisher commanding: still until reset and enable",
		At:   stoppath.Once(Fwd02, holds), Trigger: stoppath.ResetBoard, Hold: stoppath.HoldBoardReset,
		Release: "enable after board reset: ramp from zero", ReleaseRow: "board reset: resumed"},
	{Name: string(ZeroAfterTimeout), Label: "zero after timeout", Row: "deadman, then zero (held)",
		Help: "the deadman, then zero commands, then a small command (0.05 m/s): no burst at the old speed",
		At:   stoppath.Once(Fwd02, holds), Trigger: stoppath.Silence, Hold: stoppath.HoldTimeout,
		Release: "small command after zeros: no burst", ReleaseRow: "then 0.05 m/s: no burst"},
	{Name: string(Contact), Label: "contact reflex",
		Help: "none of its own: with the wheels in the air the LiDAR sees no motion, and the driver's contact reflex must latch the e-stop (within 2.5 s of the wheels' start)",
		At:   stoppath.Once(Fwd02, after), Trigger: awaitContact, Rule: Rule{Contact: true}},
}

// ParsePaths reads a comma-separated list of paths ("deadman,estop,kill", or "all") into the steps to run,
// in the table's schedule whatever the order given.
func ParsePaths(list string) ([]Step, error) { return Paths.Parse(list) }

// PathList is the paths' names joined by commas, for the command's help.
func PathList() string { return Paths.List() }

// PathHelp describes every path, one per line, for the command's help.
func PathHelp() string { return Paths.Help() }
