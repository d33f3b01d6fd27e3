package stoppath

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/target"
)

// Motion is a drive command a path spins the wheels with, named as the result lines name it. Every proof
// spells a motion the one way, direction then speed: "fwd 0.2", "back 0.1", "left 0.2", "rot 1.0",
// "turn -0.5" (the floor proof spelled "0.2 fwd" before; no recorded file or plan needs that spelling read).
type Motion struct {
	Name  string
	Twist kinematics.Twist
}

// At is one run of a path: the motion, and the round of the schedule it runs in. A proof runs round by
// round; within a round, in table order.
type At struct {
	Motion Motion
	Round  int
}

// Sweep runs a path at each motion in turn, motion i in round i: the paths swept together alternate
// (deadman, estop, disable at the first motion, then all three at the second, ...).
func Sweep(ms ...Motion) []At {
	out := make([]At, len(ms))
	for i, m := range ms {
		out[i] = At{m, i}
	}
	return out
}

// Once runs a path at one motion, in round r.
func Once(m Motion, r int) []At { return []At{{m, r}} }

// Firing is what a trigger may do: the proof that runs it implements it (the stand proof's path run; a floor
// proof's). It keeps the drive commands coming while a trigger waits, and takes the trigger time on the
// proof's clock.
type Firing interface {
	// Target is the robot.
	Target() target.Target
	// Clock is the proof's clock, for a trigger that waits on its own (its own state poll).
	Clock() clock.Clock
	// Act takes the trigger time now, logs "TRIGGER what" and does the action.
	Act(what string, do func() error) error
	// Silence makes the last command sent the trigger (the deadman's timeout runs from there) and keeps
	// silent through the hold.
	Silence()
	// Beside takes the trigger time now and runs do beside the commands: for an action that blocks until it
	// is done (a service stop). The proof waits for it after the hold.
	Beside(what string, do func(ctx context.Context) error)
	// Await keeps commanding until event returns the trigger time and how it was taken: for a trigger only
	// the target can time (a button press).
	Await(what string, event func(ctx context.Context, prompt func(string)) (time.Time, string, error)) error
	// TakeOver opens a second publisher on input, takes the trigger time now and sends zero velocity on it
	// every command period beside the drive commands (which go on, on the path's own input), until the proof
	// lets go after the judge: an operator taking over from a lower-priority source.
	TakeOver(what, input string) error
}

// Trigger fires a path's stop through f.
type Trigger func(ctx context.Context, f Firing) error

// The triggers of chapter 19's paths, for every proof that runs them.
var (
	// Silence: stop sending commands (the deadman).
	Silence Trigger = func(ctx context.Context, f Firing) error { f.Silence(); return nil }
	// EstopRequest latches the e-stop through the control API (the seed's estop topic). A target whose
	// operators e-stop with a one-shot message (ROS 2) is triggered that way, timed at the write.
	EstopRequest Trigger = func(ctx context.Context, f Firing) error {
		if o, ok := f.Target().(target.OneShotEstopper); ok {
			return f.Await("e-stop request (one-shot publisher)", func(ctx context.Context, _ func(string)) (time.Time, string, error) {
				return o.EstopOnce(ctx)
			})
		}
		return f.Act("e-stop request", func() error { return f.Target().Estop(ctx) })
	}
	// EnableFalse disables the wheels.
	EnableFalse Trigger = func(ctx context.Context, f Firing) error {
		return f.Act("enable false", func() error { return f.Target().Enable(ctx, false) })
	}
	// KillLidarReader sends SIGKILL to the LiDAR reader (the scan gate).
	KillLidarReader Trigger = func(ctx context.Context, f Firing) error {
		return f.Act("SIGKILL of the LiDAR reader", func() error { _, err := f.Target().KillLidarReader(ctx); return err })
	}
	// KillDriver sends SIGKILL to the driver.
	KillDriver Trigger = func(ctx context.Context, f Firing) error {
		return f.Act("SIGKILL of the driver", func() error { _, err := f.Target().KillDriver(ctx); return err })
	}
	// StopService stops the whole service (stop frames, stop-motors): it blocks, so it runs beside the commands.
	StopService Trigger = func(ctx context.Context, f Firing) error {
		f.Beside("service stop", f.Target().StopService)
		return nil
	}
	// PressButton gets a gamepad button other than MODE pressed; the wheels keep spinning until it is.
	PressButton Trigger = func(ctx context.Context, f Firing) error {
		return f.Await("gamepad button", f.Target().PressButton)
	}
	// DropUSB makes the board's USB device disappear for USBDropFor (target.Interrupter: the simulator).
	DropUSB Trigger = func(ctx context.Context, f Firing) error {
		in, ok := f.Target().(target.Interrupter)
		if !ok {
			return fmt.Errorf("%w: this target cannot drop the board's USB on demand (the simulator can); on a robot, pull the cable by hand", ErrNotRun)
		}
		return f.Act(fmt.Sprintf("board USB gone for %v", USBDropFor), func() error { return in.DropUSB(ctx, USBDropFor) })
	}
	// ResetBoard restarts the board's firmware behind an open port (target.Interrupter: the simulator).
	ResetBoard Trigger = func(ctx context.Context, f Firing) error {
		in, ok := f.Target().(target.Interrupter)
		if !ok {
			return fmt.Errorf("%w: this target cannot reset the board on demand (the simulator can); on a robot, press the board's reset button", ErrNotRun)
		}
		return f.Act(fmt.Sprintf("board firmware reset (boot %v)", BoardBoot), func() error { return in.ResetBoard(ctx, BoardBoot) })
	}
	// ManualTakeOver: the operator's manual input sends zero velocity while the path's drive input
	// (autonomous) keeps commanding its motion; arbitration must give the wheels to manual.
	ManualTakeOver Trigger = func(ctx context.Context, f Firing) error {
		return f.TakeOver("manual take-over with zero velocity", "manual")
	}
)

// Spec is one stop path: everything a proof needs to parse, schedule, run, judge and report it. R is the
// proof's own judging rule for the path (the stand proof's scan-gate rule); its zero value is the default.
type Spec[R any] struct {
	// Name is the path's name on the command line and in the record ("estop").
	Name string
	// Label names it in the result lines ("estop request" in "estop request, fwd 0.2").
	Label string
	// Row names its row in the table of stop times; "" means Label.
	Row string
	// Help says what the trigger is, for the command's help ("the e-stop request").
	Help string
	// At places its runs in the schedule.
	At []At
	// Input is the driver's velocity input the path's drive commands go to ("" is cmd_vel; the take-over
	// drives on autonomous).
	Input string
	// KillsDriver: after the trigger no driver publishes the IMU; the judge reads the board from below the
	// driver, and the clean-up waits for a new driver.
	KillsDriver bool
	// StopsService: the trigger leaves the service stopped; the clean-up starts it again.
	StopsService bool
	// Trigger fires the stop.
	Trigger Trigger
	// Release, when set, names a second result line: the stop lets go by itself once its cause is gone (the
	// scan gate once scans are back; the take-over once the operator lets go, after the stop's judge).
	Release string
	// ReleaseRow names the release's row in the table; ReleaseFrom what the release's time counts from ("the
	// kill": the trigger; "letting go": the last manual command).
	ReleaseRow, ReleaseFrom string
	// Hold, when set, makes the path a hold path (docs/safety-case.md, "No motion without a deliberate act"):
	// its trigger is an event after which the wheels must stay still while the publisher keeps commanding,
	// until a deliberate act (reset and enable; for HoldTimeout a new command), and then move only through
	// the ramp from zero. Its two lines are the still judge's and the ramp judge's; "all" leaves hold paths
	// out ("holds" names them all).
	Hold HoldKind
	// Rule is the proof's judging rule for the path.
	Rule R
}

// HoldKind is a hold path's event: what the proof does after the trigger to complete it, while the
// publisher keeps commanding the old motion.
type HoldKind string

// The events after which no motion may follow without a deliberate act.
const (
	// HoldReset: the e-stop, then its reset (the reset alone is no enable).
	HoldReset HoldKind = "reset"
	// HoldRestart: SIGKILL of the driver; the supervisor starts a new one (latched).
	HoldRestart HoldKind = "restart"
	// HoldService: the whole service stopped, then started again (the robot's first start).
	HoldService HoldKind = "service"
	// HoldUSB: the board's USB device gone for a second and back; a new driver (latched).
	HoldUSB HoldKind = "usb"
	// HoldBoardReset: the board's firmware restarts behind an open port.
	HoldBoardReset HoldKind = "board-reset"
	// HoldTimeout: the deadman, then zero commands, then a small command: no burst at the old speed.
	HoldTimeout HoldKind = "timeout"
)

// ErrNotRun is wrapped by a path's error when it cannot run here (a target without the role a trigger needs,
// a hold path on a robot that is moving at its start): its lines say NOT RUN and why, never PASS or FAIL.
var ErrNotRun = errors.New("NOT RUN")

// USBDropFor and BoardBoot are the interruptions the hold paths make on a target that can (the simulator).
const (
	USBDropFor = time.Second
	BoardBoot  = 800 * time.Millisecond
)

// Lines is the number of result lines one run of the path gives.
func (s *Spec[R]) Lines() int {
	if s.Release != "" || s.Hold != "" {
		return 2
	}
	return 1
}

// RowLabel is the path's row in the table of stop times.
func (s *Spec[R]) RowLabel() string {
	if s.Row != "" {
		return s.Row
	}
	return s.Label
}

// RunsAt reports whether the path runs at motion m.
func (s *Spec[R]) RunsAt(m Motion) bool {
	return slices.ContainsFunc(s.At, func(a At) bool { return a.Motion.Name == m.Name })
}

// Step is one run of a path at one motion.
type Step[R any] struct {
	Spec   *Spec[R]
	Motion Motion
}

// Title is the progress line's name: "estop fwd 0.35".
func (s Step[R]) Title() string { return s.Spec.Name + " " + s.Motion.Name }

// Name is the result line's name, after the seed's ("estop request, fwd 0.2").
func (s Step[R]) Name() string { return s.Spec.Label + ", " + s.Motion.Name }

// Table is a proof's stop paths, in the order it lists them.
type Table[R any] []Spec[R]

// Lookup finds a path by name.
func (t Table[R]) Lookup(name string) (*Spec[R], bool) {
	for i := range t {
		if t[i].Name == name {
			return &t[i], true
		}
	}
	return nil, false
}

// Names lists the paths' names in table order.
func (t Table[R]) Names() []string {
	out := make([]string, len(t))
	for i := range t {
		out[i] = t[i].Name
	}
	return out
}

// List is the names joined by commas: "deadman,estop,...".
func (t Table[R]) List() string { return strings.Join(t.Names(), ",") }

// Motions are the table's columns: every motion a path runs at, in the order of the first round that uses
// it.
func (t Table[R]) Motions() []Motion {
	type first struct {
		m     Motion
		round int
		order int
	}
	var fs []first
	for _, s := range t {
		for _, a := range s.At {
			i := slices.IndexFunc(fs, func(f first) bool { return f.m.Name == a.Motion.Name })
			switch {
			case i < 0:
				fs = append(fs, first{a.Motion, a.Round, len(fs)})
			case a.Round < fs[i].round:
				fs[i].round = a.Round
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b first) int { return a.round - b.round })
	out := make([]Motion, len(fs))
	for i, f := range fs {
		out[i] = f.m
	}
	return out
}

// Parse reads a comma-separated list of path names ("deadman,estop,kill", or "all") into the steps to run,
// in the schedule's order whatever the order given: round by round, and within a round in table order.
func (t Table[R]) Parse(list string) ([]Step[R], error) {
	want := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		switch {
		case f == "":
			continue
		case f == "all":
			for i := range t {
				if t[i].Hold == "" {
					want[t[i].Name] = true
				}
			}
		case f == "holds":
			for i := range t {
				if t[i].Hold != "" {
					want[t[i].Name] = true
				}
			}
		default:
			if _, ok := t.Lookup(f); !ok {
				return nil, fmt.Errorf("unknown stop path %q: use a comma-separated list of %s (or all, holds)", f, t.List())
			}
			want[f] = true
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no stop path given: use a comma-separated list of %s (or all, holds)", t.List())
	}
	type run struct {
		round, order int
		step         Step[R]
	}
	var runs []run
	for i := range t {
		if !want[t[i].Name] {
			continue
		}
		for _, a := range t[i].At {
			runs = append(runs, run{a.Round, i, Step[R]{&t[i], a.Motion}})
		}
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		if a.round != b.round {
			return a.round - b.round
		}
		return a.order - b.order
	})
	steps := make([]Step[R], len(runs))
	for i, r := range runs {
		steps[i] = r.step
	}
	return steps, nil
}

// Lines is the number of result lines steps give.
func Lines[R any](steps []Step[R]) int {
	n := 0
	for _, s := range steps {
		n += s.Spec.Lines()
	}
	return n
}

// PathNames are the names of the paths steps run, each once, in their first step's order (nil for no step).
func PathNames[R any](steps []Step[R]) []string {
	var names []string
	for _, s := range steps {
		if !slices.Contains(names, s.Spec.Name) {
			names = append(names, s.Spec.Name)
		}
	}
	return names
}

// Help describes every path for a command's help, one per line: "estop  at fwd 0.2, fwd 0.35, rot 1.0: the
// e-stop request".
func (t Table[R]) Help() string {
	var b strings.Builder
	for _, s := range t {
		ms := make([]string, len(s.At))
		for i, a := range s.At {
			ms[i] = a.Motion.Name
		}
		fmt.Fprintf(&b, "  %-9s at %s: %s\n", s.Name, strings.Join(ms, ", "), s.Help)
	}
	return b.String()
}
