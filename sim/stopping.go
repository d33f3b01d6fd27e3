package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// TruthStillSpeed is the body speed (m/s) under which StoppingTruth calls the robot still: 1 mm/s, far
// below any judge's threshold (the floor judge's 0.04 m/s over 0.3 s), so a judged "still after" should
// never come later than the truth's time plus the judge's window.
const TruthStillSpeed = 0.001

// StopTruth is the sim's own answer to "how far and how long does a stop take": what the floor world's
// physics does from a steady speed when the board's wheel targets go to zero. For tests and the campaigns'
// checks against the truth only: judges must decide from the bytes.
type StopTruth struct {
	// Speed is the steady planar body speed before the stop (m/s): the command after the floor losses
	// (a strafe at 0.2 m/s moves the body at 0.153 m/s, FloorScaleY).
	Speed float64
	// Distance is the planar body travel from the stop to rest (m); Travel the displacement in the body
	// frame at the stop (x forward m, y left m, yaw rad).
	Distance float64
	Travel   [3]float64
	// Time is how long after the stop the body speed (translation; the rotation rate times K for a turn)
	// first falls below Still (s), on the physics' step (Step, 1/IMURateHz = 9.1 ms).
	Time  float64
	Still float64
	// Rest is when every wheel has run down to exactly zero (the physics' own cut-off at 1e-6 rps).
	Rest float64
}

// StoppingTruth is the true stop of the floor world: the robot driving steadily at the body command cmd
// (vx m/s, vy m/s, wz rad/s, turned into wheel targets by WheelRPS as the driver does), the wheels' targets
// set to zero at the board at t = 0 on a physics step, with the weak-brake fault's factor brake (1 = off,
// 0 < brake <= 1). It runs the sim's own Physics.Step in a pure loop at the core's step (1/IMURateHz) with
// no walls, so it agrees with the simulation by construction, discretisation included (pinned against
// the core by TestStoppingTruthMatchesCore). Still is the speed counted as still (TruthStillSpeed when 0).
//
// Under the model (a first-order run-down with FloorRunDownTau, the body following the wheels' forward
// kinematics with the floor losses) the distance is Speed x FloorRunDownTau / brake in continuous time;
// on the sim's step h it is Speed x h x q/(1-q) with q = exp(-h brake/FloorRunDownTau), 3.4 % less at
// brake 1 and 1.7 % less at 0.5, so halving the braking multiplies the distance by 2.04.
func StoppingTruth(cmd [3]float64, brake, still float64) (StopTruth, error) {
	for i, v := range cmd {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return StopTruth{}, fmt.Errorf("stopping truth: command %v: component %d is not a number", cmd, i)
		}
	}
	if !(brake > 0 && brake <= 1) {
		return StopTruth{}, fmt.Errorf("stopping truth: brake factor %v: needs 0 < factor <= 1 (1 = normal braking)", brake)
	}
	if still == 0 {
		still = TruthStillSpeed
	}
	if !(still > 0) {
		return StopTruth{}, fmt.Errorf("stopping truth: still speed %v: needs a positive speed in m/s", still)
	}
	target := WheelRPS(cmd)
	for i, w := range target {
		if math.Abs(w) > MaxWheelRPS {
			return StopTruth{}, fmt.Errorf("stopping truth: command %v needs wheel %d at %.2f rps, beyond the board's %.0f rps", cmd, i, w, MaxWheelRPS)
		}
	}
	if target == ([4]float64{}) {
		return StopTruth{}, errors.New("stopping truth: a zero command is already still")
	}
	p := NewPhysics(Floor, nil) // no room: no walls, the pose starts at the origin facing +x
	p.Brake = brake
	p.Target, p.Wheel = target, target
	p.Vel = FloorVelocity(BodyVelocity(target))
	t := StopTruth{Speed: speedOf(p.Vel), Still: still, Time: math.NaN()}
	p.Target = [4]float64{}
	const step = time.Second / IMURateHz
	h := step.Seconds()
	// 60 s bounds the loop: from 6 rps to the 1e-6 cut-off is 15.6 time constants, 20 s at brake 0.1.
	for n := 1; n <= int(60*IMURateHz); n++ {
		prev := p.Pose
		p.Step(step)
		t.Distance += math.Hypot(p.Pose[0]-prev[0], p.Pose[1]-prev[1])
		if math.IsNaN(t.Time) && speedOf(p.Vel) < still {
			t.Time = float64(n) * h
		}
		if p.Wheel == ([4]float64{}) {
			t.Rest = float64(n) * h
			break
		}
	}
	t.Travel = p.Pose
	return t, nil
}

// speedOf is a body velocity's speed for "still": the planar speed, or for a turn the rim speed of the
// turning lever K, whichever is larger.
func speedOf(v [3]float64) float64 { return math.Max(math.Hypot(v[0], v[1]), math.Abs(v[2])*K) }
