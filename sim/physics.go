package sim

import (
	"math"
	"time"
)

// WorldKind selects the physics: wheels in the air or on the floor.
type WorldKind int

const (
	Stand WorldKind = iota // wheels in the air: the body never moves, spinning wheels shake it
	Floor                  // the robot drives in a Room
)

func (k WorldKind) String() string {
	if k == Floor {
		return "floor"
	}
	return "stand"
}

// WheelTau is the first-order time constant of every wheel, spin-up and run-down alike. Fitted so the
// stand judge (judge/vibration, threshold 0.0035 rad/s on 0.2 s windows) reads "still" as chapter 19's
// e-stop column does (0.40 / 0.50 / 0.25 s at 0.2 m/s, 0.35 m/s, 1.0 rad/s): 0.30 / 0.43 / 0.265 s with
// the stop frame at the trigger (TestLagFitEstopColumn pins +-0.15 s). Not fitted to the deadman column,
// whose figures are shorter than its own 0.3 s wait allows: see docs/sim.md.
const WheelTau = 0.22

// FloorRunDownTau is the time constant of a wheel slowing down on the floor (a stop, or a lower target),
// where the rollers' drag on the rug brakes the robot beside the motor controller. Fitted to chapter 19's
// floor table with the floor judge (judge/odometry: the speed over 0.3 s windows, the window included in
// "still after"): e-stop 0.38 s and travel 3.1 cm at 0.2 m/s, deadman 0.69-0.70 s at 0.1 m/s; the stand's
// WheelTau read 0.60 s and 4.9 cm for that e-stop and put the deadman at 0.2 m/s past the 0.8 s rule
// (docs/floor.md). Spin-up keeps WheelTau: the floor table says nothing about it.
const FloorRunDownTau = 0.13

// Physics is the pure mechanical state: wheel speeds, body velocity and pose. No clock: Step takes dt.
type Physics struct {
	Kind WorldKind
	Room *Room // floor only

	Target  [4]float64 // commanded rps, wire ids 0..3
	Wheel   [4]float64 // actual rps
	Vel     [3]float64 // body velocity (vx, vy, wz), what really moves (0 on the stand)
	Accel   [2]float64 // body-frame linear acceleration (m/s^2), for the accelerometer
	Pose    [3]float64 // world pose (x, y, yaw)
	Pinned  bool       // stall fault: the body is held, the wheels keep turning (slip)
	Stalled bool       // wheels commanded/turning but the body cannot move (pinned or against a wall)
	// Brake is the weak-brake fault: a wheel slowing down (toward a lower target, a stop in particular)
	// decelerates at this fraction (0, 1] of the model's: its run-down time constant is divided by it.
	// 0 (the zero value) and 1 are the normal model; spin-up is never affected.
	Brake float64
}

// NewPhysics starts at rest at the room's start pose.
func NewPhysics(kind WorldKind, room *Room) *Physics {
	p := &Physics{Kind: kind, Room: room}
	if kind == Floor && room != nil {
		p.Pose = room.Start
	}
	return p
}

// Step advances by dt. Wheels follow their targets with the first-order lag (a wheel slowing down on the
// floor with FloorRunDownTau, and under weak-brake with the world's run-down constant over Brake); on the
// floor the body follows the wheels' forward kinematics with the floor losses; a move that would put the
// footprint into a wall is refused (the robot stalls, wheels turning without motion).
func (p *Physics) Step(dt time.Duration) {
	h := dt.Seconds()
	if h <= 0 {
		return
	}
	a := 1 - math.Exp(-h/WheelTau)
	down := 1 - math.Exp(-h/FloorRunDownTau)
	weak, weakDown := p.Brake > 0 && p.Brake < 1, 0.0
	if weak {
		tau := WheelTau
		if p.Kind == Floor {
			tau = FloorRunDownTau
		}
		weakDown = 1 - math.Exp(-h*p.Brake/tau)
	}
	for i := range p.Wheel {
		k := a
		switch {
		case !slowing(p.Target[i], p.Wheel[i]):
		case weak && p.Wheel[i] != 0:
			k = weakDown // weak-brake: the world's run-down constant over the factor
		case p.Kind == Floor:
			// slowing counts a wheel at rest as slowing, so on the floor the first step of a spin-up from
			// rest takes FloorRunDownTau; kept (the floor fit was made with it), and kept under weak-brake
			// too, so the fault never changes a spin-up.
			k = down
		}
		p.Wheel[i] += (p.Target[i] - p.Wheel[i]) * k
		if math.Abs(p.Wheel[i]) < 1e-6 && p.Target[i] == 0 {
			p.Wheel[i] = 0
		}
	}
	turning := MeanAbsRPS(p.Wheel) > 0.01
	prev := p.Vel
	if p.Kind != Floor {
		p.Vel = [3]float64{}
		p.Accel = [2]float64{}
		p.Stalled = p.Pinned && turning
		return
	}
	v := FloorVelocity(BodyVelocity(p.Wheel))
	stalled := false
	if p.Pinned {
		v, stalled = [3]float64{}, turning
	} else if p.Room != nil {
		next := Integrate(p.Pose, v, h)
		if p.Room.Collides(next[0], next[1]) && moveCloser(p.Room, p.Pose, next) {
			// Against a wall: no translation; a circular footprint can still turn in place.
			v = [3]float64{0, 0, v[2]}
			stalled = turning
		}
	}
	p.Vel = v
	p.Pose = Integrate(p.Pose, v, h)
	p.Stalled = stalled
	// Body-frame acceleration for the accelerometer: dv/dt plus the rotating-frame term.
	p.Accel = [2]float64{(v[0]-prev[0])/h - v[2]*v[1], (v[1]-prev[1])/h + v[2]*v[0]}
}

// slowing reports whether a wheel at speed w heading for target slows down (toward zero or reversing).
func slowing(target, w float64) bool { return target*w <= 0 || math.Abs(target) < math.Abs(w) }

// moveCloser reports whether going from pose a to b reduces the clearance to the nearest segment, so
// a robot already touching a wall can still drive away from it.
func moveCloser(r *Room, a, b [3]float64) bool {
	return clearance(r, b[0], b[1]) < clearance(r, a[0], a[1])
}

func clearance(r *Room, x, y float64) float64 {
	d := math.Inf(1)
	for _, s := range r.Segments {
		d = math.Min(d, pointSegmentDist(x, y, s))
	}
	return d
}
