package sim

import (
	"errors"
	"fmt"
	"time"
)

// FaultHome is the home event: the world puts the robot back on its mark (the pose it had when the sim
// started) between the runs of a floor campaign. On a robot nobody can do that but a person: the campaign
// asks the operator.
const FaultHome FaultKind = "home"

// ErrHomeMoving is home's refusal while the wheels turn or are commanded: picking up a driving robot would
// hide its stop from every judge (the body would jump with the wheels still turning). The caller stops
// the wheels (and waits for them to run down) and asks again.
var ErrHomeMoving = errors.New("home refused: the wheels are commanded/turning: stop them first")

// ErrHomeBlocked is home's refusal when the start pose is no longer free (the obstacle fault's box, placed
// relative to where the robot was, covers it): the caller removes the obstacle (obstacle=0) and asks again.
var ErrHomeBlocked = errors.New("home refused: the start pose is blocked")

// Home puts the robot back on its mark: when the wheels are at rest (every actual wheel speed zero and
// every target zero) the body is moved to the pose it had when the sim started, with zero velocity. It is
// a teleport: the LiDAR sees the room from the start pose from its next packet on, the IMU shows nothing
// (no motion is simulated). While the wheels turn or are commanded it is refused with ErrHomeMoving (and
// nothing changes); the refusal is also an event in the truth. The same event is the control socket's and
// rosorin-sim's "home".
func (s *Sim) Home() error {
	return s.applyF(Fault{Kind: FaultHome, Text: string(FaultHome)})
}

// StartPose is the pose the robot had when the sim started (x m, y m, yaw rad in the room): where Home
// puts it back.
func (s *Sim) StartPose() [3]float64 { return s.room.Start } // the core keeps its copy (core.start)

// homeRefusal says why the robot cannot be put back now (nil: it can).
func (c *core) homeRefusal() error {
	if c.phys.Target != ([4]float64{}) || c.phys.Wheel != ([4]float64{}) {
		return fmt.Errorf("%w (targets %.3g rps, wheels %.3g rps)", ErrHomeMoving, c.phys.Target, c.phys.Wheel)
	}
	if c.phys.Kind == Floor && c.phys.Room != nil && c.phys.Room.Collides(c.start[0], c.start[1]) {
		return fmt.Errorf("%w at (%.2f, %.2f) (by the obstacle fault's box?): remove it first (obstacle=0)",
			ErrHomeBlocked, c.start[0], c.start[1])
	}
	return nil
}

// home moves the body to the start pose at rest. Only the body: the faults in effect (stall, weak-brake,
// an obstacle box where it was put) and the wheels (at rest, as homeRefusal checked) are left as they are.
func (c *core) home(time.Time) {
	c.phys.Pose = c.start
	c.phys.Vel = [3]float64{}
	c.phys.Accel = [2]float64{}
	c.phys.Stalled = false
}

// parseNoValue is the value parser of an event that takes none (home).
func parseNoValue(_ *Fault, val string, hasVal bool) error {
	if hasVal {
		return fmt.Errorf("takes no value, got %q", val)
	}
	return nil
}
