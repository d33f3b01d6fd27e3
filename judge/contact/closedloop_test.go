package contact_test

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
	"github.com/rosorin/rosorin/sim"
)

// A closed loop in simulated time, faster than real time: the driver's gate (driver/motion, 50 Hz ticks,
// commands at 20 Hz), the sim's floor physics (its wheel lag, run-down and floor losses, sim.Physics) and
// LiDAR (sim.LidarModel: noise, dropout, the body; one sample every 0.25 ms of the revolution, each from
// the pose at that instant, binned as coind6.Assembler does), the driver's odometry (scanmatch, one Add per
// revolution) and this package's monitor, whose contact trips the gate. The sim's own time is the only
// clock, so a run's figures do not depend on the machine's load. The driver's process, its socket and its
// placement of scans on its clock are not in it (TestContactTripsAndStaysLatched in driver, and the stand
// proof's contact path, cover those).

var epoch = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const (
	sampleDT = 250 * time.Microsecond // 0.1 s / 400 samples
	tickN    = 80                     // 20 ms control tick
	cmdN     = 200                    // 50 ms between commands
	gyroN    = 36                     // ~110 Hz
)

type loop struct {
	phys   *sim.Physics
	lid    *sim.LidarModel
	gate   *motion.Gate
	odo    *scanmatch.Odometry
	mon    *contact.Monitor
	rng    *rand.Rand
	k      int64 // samples since start
	ranges []float32
	rev    int64 // first sample of this revolution
	req    kinematics.Twist

	tripped  bool
	tripT    time.Duration
	reason   string
	stallAt  time.Duration // first sample with the body stalled (-1: none)
	estimate int
	odoErrs  int
}

func newLoop(t testing.TB, seed int64) *loop {
	room := sim.DefaultRoom()
	odo, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	mon, err := contact.New(contact.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	lim := motion.DefaultLimits()
	lim.MaxLinear = 0.35
	l := &loop{phys: sim.NewPhysics(sim.Floor, room), lid: sim.NewLidarModel(seed, room), gate: motion.NewGate(lim), odo: odo,
		mon: mon, rng: rand.New(rand.NewPCG(uint64(seed), 7)), ranges: make([]float32, coind6.DefaultBins), stallAt: -1}
	l.gate.Enable(true)
	return l
}

func (l *loop) now() time.Time { return epoch.Add(time.Duration(l.k) * sampleDT) }

// until runs the loop to d (sim time) or until the reflex trips.
func (l *loop) until(d time.Duration) {
	for time.Duration(l.k)*sampleDT < d && !l.tripped {
		l.step()
	}
}

func (l *loop) step() {
	now := l.now()
	if l.k%cmdN == 0 {
		_ = l.gate.SetCmd(motion.InputCmdVel, l.req, now, motion.SourceSoftware)
	}
	if l.k%tickN == 0 {
		v := l.gate.Step(now, tickN*sampleDT)
		l.mon.Command(now, kinematics.Twist{VX: v.VX, VY: v.VY, WZ: v.WZ})
		l.mon.Tick(now)
		l.phys.Target = sim.WheelRPS([3]float64{v.VX, v.VY, v.WZ})
	}
	if l.k%gyroN == 0 {
		l.mon.Gyro(now, l.phys.Vel[2]+sim.GyroZStd*l.rng.NormFloat64())
	}
	l.phys.Step(sampleDT)
	if l.phys.Stalled && l.stallAt < 0 {
		l.stallAt = time.Duration(l.k) * sampleDT
	}
	n := int(l.k - l.rev)
	smp := l.lid.Measure(l.phys.Pose, float64(n)*sim.LidarStepDeg)
	r := float32(math.Inf(1))
	if smp.DistMM > 0 {
		r = float32(smp.DistMM) / 1000
	}
	l.ranges[(coind6.DefaultBins-n)%coind6.DefaultBins] = r
	l.k++
	if n == coind6.DefaultBins-1 {
		s := coind6.Scan{Stamp: epoch.Add(time.Duration(l.rev) * sampleDT), ScanTime: 100 * time.Millisecond, Ranges: l.ranges,
			RangeMin: 0.12, RangeMax: 8, Samples: coind6.DefaultBins}
		l.rev = l.k
		l.gate.Sensed(l.now())
		e, err := l.odo.Add(s, scanmatch.Aux{})
		if err != nil {
			l.odoErrs++
			l.mon.OdometryFailed(l.now())
			return
		}
		l.estimate++
		if d := l.mon.Odometry(contact.Odo{T: e.Time, E: e}); d.Contact {
			l.tripped, l.tripT, l.reason = true, time.Duration(l.k)*sampleDT, d.Event.Reason
			l.gate.Trip(d.Event.Reason)
		}
	}
}

func runs(def int) int {
	if v, err := strconv.Atoi(os.Getenv("ROSORIN_CONTACT_RUNS")); err == nil && v > 0 {
		return v
	}
	return def
}

func quantile(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)]
}

// TestStallTripTimes: driving freely, then held (the sim's stall fault: the body pinned, the wheels
// turning), at 0.1, 0.2 and 0.35 m/s forward and 0.2 m/s strafing both ways: the reflex trips every time,
// and the time from the stall to the e-stop is measured (median, p99). ROSORIN_CONTACT_RUNS sets the runs
// per case (default 4).
func TestStallTripTimes(t *testing.T) {
	n := runs(4)
	for _, c := range []struct {
		name string
		v    kinematics.Twist
	}{{"fwd 0.1", kinematics.Twist{VX: 0.1}}, {"fwd 0.2", kinematics.Twist{VX: 0.2}}, {"fwd 0.35", kinematics.Twist{VX: 0.35}},
		{"back 0.2", kinematics.Twist{VX: -0.2}}, {"strafe left 0.2", kinematics.Twist{VY: 0.2}}, {"strafe right 0.2", kinematics.Twist{VY: -0.2}},
		{"turn 1.0", kinematics.Twist{WZ: 1.0}}} {
		t.Run(c.name, func(t *testing.T) {
			var after []float64
			for i := range n {
				l := newLoop(t, int64(100+i))
				l.until(time.Second) // still: the odometry's origin
				l.req = c.v
				spin := time.Duration((1.2 + 1.3*l.rng.Float64()) * float64(time.Second)) // the stall comes at a random phase
				l.until(time.Second + spin)
				if l.tripped {
					t.Fatalf("run %d: tripped while driving freely: %s", i, l.reason)
				}
				l.phys.Pinned = true
				stall := time.Duration(l.k) * sampleDT
				l.until(stall + 3*time.Second)
				if !l.tripped {
					t.Fatalf("run %d: no contact 3 s after the stall (%s)", i, l.mon.Status().Why)
				}
				after = append(after, (l.tripT - stall).Seconds())
			}
			med, p99 := quantile(after, 0.5), quantile(after, 0.99)
			t.Logf("%s: e-stop after the stall began: median %.2f s, p99 %.2f s, max %.2f s over %d runs", c.name, med, p99, quantile(after, 1), n)
			// HOLD 0.3 s after the window (0.3 s) no longer shows the motion, plus a scan: under 1 s always.
			if p99 > 0.9 || med < 0.3 {
				t.Errorf("trip times median %.2f p99 %.2f s", med, p99)
			}
		})
	}
}

// TestWallTrips drives into the room's walls (the physics refuses the move: the robot stalls against it)
// and measures the trip after the stall began.
func TestWallTrips(t *testing.T) {
	for _, c := range []struct {
		name string
		v    kinematics.Twist
	}{{"fwd 0.2 into the far wall (3.35 m)", kinematics.Twist{VX: 0.2}}, {"fwd 0.35", kinematics.Twist{VX: 0.35}},
		{"back 0.1 into the back wall (1.35 m)", kinematics.Twist{VX: -0.1}}, {"strafe right 0.2 into the side wall", kinematics.Twist{VY: -0.2}}} {
		t.Run(c.name, func(t *testing.T) {
			l := newLoop(t, 5)
			l.until(time.Second)
			l.req = c.v
			l.until(40 * time.Second)
			if !l.tripped || l.stallAt < 0 {
				t.Fatalf("tripped %v, stalled at %v (%s)", l.tripped, l.stallAt, l.mon.Status().Why)
			}
			after := (l.tripT - l.stallAt).Seconds()
			t.Logf("%s: stalled at %.2f s (x %.2f y %.2f), e-stop %.2f s later: %s", c.name, l.stallAt.Seconds(), l.phys.Pose[0], l.phys.Pose[1], after, l.reason)
			if after < 0 || after > 0.9 {
				t.Errorf("trip %.2f s after the stall", after)
			}
		})
	}
}

// TestFreeDrivingFalseTrips drives freely for a while in sim time (legs and their reverse, forward,
// backward, strafing, turning, arcs at 0.1-0.35 m/s, with pauses) and counts contacts: every one is false.
// ROSORIN_CONTACT_MINUTES sets the sim time (default 1 minute).
func TestFreeDrivingFalseTrips(t *testing.T) {
	minutes := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("ROSORIN_CONTACT_MINUTES"), 64); err == nil && v > 0 {
		minutes = v
	}
	l := newLoop(t, 9)
	l.until(time.Second)
	speeds := []float64{0.1, 0.2, 0.35}
	var legs, judged int
	t0 := time.Now()
	falseTrips, trueTrips, homes := 0, 0, 0
	start := l.phys.Room.Start
	for time.Duration(l.k)*sampleDT < time.Duration(minutes*float64(time.Minute)) {
		v := speeds[l.rng.IntN(len(speeds))]
		var tw kinematics.Twist
		switch l.rng.IntN(5) {
		case 0:
			tw = kinematics.Twist{VX: v}
		case 1:
			tw = kinematics.Twist{VY: v}
		case 2:
			tw = kinematics.Twist{WZ: 3 * v}
		case 3:
			tw = kinematics.Twist{VX: v, WZ: 2 * v}
		default:
			tw = kinematics.Twist{VX: v / 1.4, VY: v / 1.4}
		}
		if l.rng.IntN(2) == 0 {
			tw = kinematics.Twist{VX: -tw.VX, VY: -tw.VY, WZ: -tw.WZ}
		}
		dur := time.Duration((1 + 1.5*l.rng.Float64()) * float64(time.Second))
		for _, leg := range []kinematics.Twist{tw, {VX: -tw.VX, VY: -tw.VY, WZ: -tw.WZ}} {
			l.req = leg
			end := time.Duration(l.k)*sampleDT + dur
			for time.Duration(l.k)*sampleDT < end {
				l.step()
				if l.k%4000 == 0 && l.mon.Status().Judging {
					judged++
				}
				if l.tripped {
					if l.phys.Stalled { // drifted into the furniture: a true contact
						trueTrips++
					} else {
						falseTrips++
						t.Errorf("false trip at %.1f s (pose %.2f %.2f): %s", (time.Duration(l.k) * sampleDT).Seconds(),
							l.phys.Pose[0], l.phys.Pose[1], l.reason)
					}
					l.gate.Reset()
					l.gate.Enable(true)
					l.tripped = false
				}
			}
			l.req = kinematics.Twist{}
			l.until(time.Duration(l.k)*sampleDT + time.Duration(l.rng.Float64()*0.5*float64(time.Second)))
			legs++
		}
		// The legs and their reverses do not retrace exactly (ramps, pauses): bring the robot home, standing,
		// before it drifts into the furniture; the odometry and the monitor start again there.
		if math.Hypot(l.phys.Pose[0]-start[0], l.phys.Pose[1]-start[1]) > 0.3 || math.Abs(l.phys.Pose[2]-start[2]) > 0.5 {
			l.phys.Pose, l.phys.Wheel, l.phys.Vel = start, [4]float64{}, [3]float64{}
			l.odo.Reset()
			l.mon.OdometryFailed(l.now())
			homes++
		}
	}
	simT := (time.Duration(l.k) * sampleDT).Seconds()
	t.Logf("free driving: %d false trips in %.1f min of sim time (%d legs, judging in %d of %d 1-s checks, %d odometry errors, %d true contacts, brought home %d times); %.1f x real time",
		falseTrips, simT/60, legs, judged, int(simT), l.odoErrs, trueTrips, homes, simT/time.Since(t0).Seconds())
	if judged < int(simT)/3 {
		t.Errorf("judged only %d of %d s: a false-trip count without judging proves nothing", judged, int(simT))
	}
}
