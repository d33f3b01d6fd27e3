package targettest

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/sim"
)

// floorModel is the fake on the floor: the sim's floor physics (its wheel lag, run-down and losses) moving
// the body in a room, and the sim's LiDAR model measuring that room from the body's pose. Guarded by the
// Fake's mutex.
type floorModel struct {
	seed  int64
	room  *sim.Room
	phys  *sim.Physics
	lid   *sim.LidarModel
	board [4]float64 // wheel targets the board was last told
}

func newFloorModel(seed uint64, room *sim.Room) *floorModel {
	return &floorModel{seed: int64(seed), room: room, phys: sim.NewPhysics(sim.Floor, room), lid: sim.NewLidarModel(int64(seed), room)}
}

// step applies the gate's command (unless the board ignores it) and advances the physics; it returns the
// mean |rps| (for the vibration) and the body's yaw rate (the gyro's z).
func (m *floorModel) step(cmd [3]float64, ignoring bool, dt time.Duration) (float64, float64) {
	if !ignoring {
		m.board = sim.WheelRPS(cmd)
	}
	m.phys.Target = m.board
	m.phys.Step(dt)
	return sim.MeanAbsRPS(m.phys.Wheel), m.phys.Vel[2]
}

// obstacle puts a 0.3 m box d ahead of the robot.
func (m *floorModel) obstacle(d float64) {
	p := m.phys.Pose
	c, s := math.Cos(p[2]), math.Sin(p[2])
	corner := func(a, l float64) [2]float64 { return [2]float64{p[0] + a*c - l*s, p[1] + a*s + l*c} }
	q := [4][2]float64{corner(d, -0.15), corner(d+0.3, -0.15), corner(d+0.3, 0.15), corner(d, 0.15)}
	r := *m.room
	r.Segments = append(append([]sim.Segment(nil), m.room.Segments...),
		sim.Segment{A: q[0], B: q[1]}, sim.Segment{A: q[1], B: q[2]}, sim.Segment{A: q[2], B: q[3]}, sim.Segment{A: q[3], B: q[0]})
	m.room = &r
	m.phys.Room = &r
	m.lid = sim.NewLidarModel(m.seed+1, &r)
}

// scan is the LiDAR's revolution from the current pose as the driver publishes it (400 bins, angles flipped,
// 0.12-8 m), taken at once: ScanTime 0 tells the odometry there is no sweep to de-skew.
func (m *floorModel) scan(at time.Time) api.Scan {
	ranges := make(api.Ranges, 400)
	for n := 0; n < 400; n++ {
		smp := m.lid.Measure(m.phys.Pose, float64(n)*sim.LidarStepDeg)
		r := float32(math.Inf(1))
		if smp.DistMM > 0 {
			r = float32(smp.DistMM) / 1000
		}
		ranges[(400-n)%400] = r
	}
	return api.Scan{Stamp: at, FrameID: "laser", AngleIncrement: 2 * math.Pi / 400, AngleMax: 2 * math.Pi * 399 / 400,
		RangeMin: 0.12, RangeMax: 8, Ranges: ranges}
}

// Pose is the fake's true pose on the floor (tests only).
func (f *Fake) Pose() [3]float64 {
	return read(f, func() [3]float64 {
		if f.floor == nil {
			return [3]float64{}
		}
		return f.floor.phys.Pose
	})
}

var errNoScans = errors.New("scan stream ended: driver gone")

// FollowScans streams a scan every 100 ms from the fake's pose while the driver and its reader run; the
// stream ends with the driver (it never reconnects, like the live one).
func (f *Fake) FollowScans(ctx context.Context, fn func(target.ScanSample) error) error {
	if f.floor == nil {
		return errors.New("fake: scans only on the floor (Options.Floor)")
	}
	if err := f.enter(ctx, "follow-scans"); err != nil {
		return err
	}
	pid, up := f.driverPid, f.driverUp
	f.mu.Unlock()
	if !up {
		return errGone
	}
	for {
		if err := f.clock.Sleep(ctx, scanPeriod); err != nil {
			return err
		}
		f.mu.Lock()
		now := f.advance()
		if !f.driverUp || f.driverPid != pid {
			f.mu.Unlock()
			return errNoScans
		}
		var s api.Scan
		ok := f.readerUp && f.serviceUp
		if ok {
			s = f.floor.scan(now)
		}
		f.mu.Unlock()
		if ok {
			if err := fn(target.ScanSample{At: now, Scan: s}); err != nil {
				return err
			}
		}
	}
}

var _ target.ScanFollower = (*Fake)(nil)
