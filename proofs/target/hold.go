package target

import (
	"context"
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// The optional roles of the hold paths ("no motion without a deliberate act", docs/safety-case.md): what the
// board was told, from its own side, and the interruptions only a simulator can make on demand.

// BoardFrame is the wheels' targets after one motor frame the board received, at its arrival (wire rps,
// motors 1..4).
type BoardFrame struct {
	At  time.Time
	RPS [4]float64
}

// BoardFramer is implemented by targets that see the motor frames at the board itself (the simulator's record
// of every frame it received). The hold paths' judges read what the board was told from it; a target without
// it is judged from the driver's state record (its report of the last frame written, every state period).
type BoardFramer interface {
	// BoardFrames returns the targets after every motor frame received at or after from, in order.
	BoardFrames(from time.Time) []BoardFrame
}

// Interrupter is implemented by targets that can interrupt the board on demand (the simulator): the USB
// device gone and back, the firmware restarted behind an open port. On a robot these are a hand on the cable
// and on the board's reset button; the proofs that need them say NOT RUN without this role.
type Interrupter interface {
	// DropUSB makes the board's USB device disappear for d; a new one appears at the same path.
	DropUSB(ctx context.Context, d time.Duration) error
	// ResetBoard restarts the board's firmware: the wheels' targets go to zero and the board neither reads
	// nor sends for boot.
	ResetBoard(ctx context.Context, boot time.Duration) error
}

// BoardFrames folds every motor frame the simulated board received into the wheels' targets, from the
// start of the sim's log, and returns those at or after from.
func (s *SimTarget) BoardFrames(from time.Time) []BoardFrame {
	return FoldMotorFrames(s.sim.Received(), from)
}

// FoldMotorFrames turns received frames into the wheels' targets after each motor frame (as the firmware
// obeys them: set one or many, stop one, stop by mask; ids >= 4 and non-finite speeds change nothing) and
// keeps those at or after from.
func FoldMotorFrames(rx []sim.Received, from time.Time) []BoardFrame {
	var cur [4]float64
	var out []BoardFrame
	for _, r := range rx {
		if r.Func != board.FuncMotor {
			continue
		}
		mc, err := board.DecodeMotor(r.Payload)
		if err != nil {
			continue
		}
		switch mc.Kind {
		case board.MotorSetMany, board.MotorSetOne:
			for _, sp := range mc.Speeds {
				if v := float64(sp.RPS); sp.ID < 4 && !math.IsNaN(v) && !math.IsInf(v, 0) {
					cur[sp.ID] = v
				}
			}
		case board.MotorStopOne, board.MotorStopMask:
			for i := range 4 {
				if mc.Mask&(1<<i) != 0 {
					cur[i] = 0
				}
			}
		}
		if !r.T.Before(from) {
			out = append(out, BoardFrame{At: r.T, RPS: cur})
		}
	}
	return out
}

// DropUSB is the sim's usb-drop fault.
func (s *SimTarget) DropUSB(ctx context.Context, d time.Duration) error { return s.sim.USBDrop(d) }

// ResetBoard is the sim's board-reset fault.
func (s *SimTarget) ResetBoard(ctx context.Context, boot time.Duration) error {
	return s.sim.Apply("board-reset=" + boot.String())
}

var (
	_ BoardFramer = (*SimTarget)(nil)
	_ Interrupter = (*SimTarget)(nil)
)
