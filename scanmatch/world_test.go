package scanmatch

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// The tests make scans the way the COIN-D6 takes them: 400 samples per revolution at native angles
// n x 0.9 degrees (clockwise), sample n at n/400 of the revolution, each from the robot's pose at that
// instant (so a moving robot skews the scan), with the sim's noise, dropout and body model
// (sim.LidarModel.Measure), then binned as coind6.Assembler does (flip: bin = (400-n) mod 400).

var epoch = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

const scanPeriod = 0.1 // s

// trajectory is the base pose in the world at time t (s).
type trajectory func(t float64) [3]float64

type world struct {
	lid  *sim.LidarModel
	traj trajectory
	// scene, when set, picks the LiDAR model (and so the room) for a sample's time: a room that changes.
	scene func(t float64) *sim.LidarModel
}

func newWorld(seed int64, room *sim.Room, traj trajectory) *world {
	return &world{lid: sim.NewLidarModel(seed, room), traj: traj}
}

// scan returns revolution k (starting at t = k x 0.1 s).
func (w *world) scan(k int) coind6.Scan {
	s := coind6.Scan{Stamp: epoch.Add(time.Duration(k) * 100 * time.Millisecond), ScanTime: 100 * time.Millisecond,
		Ranges: make([]float32, coind6.DefaultBins), RangeMin: 0.12, RangeMax: 8}
	t0 := float64(k) * scanPeriod
	for n := 0; n < coind6.DefaultBins; n++ {
		ts := t0 + float64(n)/coind6.DefaultBins*scanPeriod
		lid := w.lid
		if w.scene != nil {
			lid = w.scene(ts)
		}
		smp := lid.Measure(w.traj(ts), float64(n)*sim.LidarStepDeg)
		r := float32(math.Inf(1))
		if smp.DistMM > 0 {
			r = float32(smp.DistMM) / 1000
		}
		s.Ranges[(coind6.DefaultBins-n)%coind6.DefaultBins] = r
	}
	return s
}

// truth returns the base pose at revolution k's mid-sweep (Estimate.Time) relative to revolution 0's.
func (w *world) truth(k int) Pose2 {
	a, b := w.traj(scanPeriod/2), w.traj((float64(k)+0.5)*scanPeriod)
	return Pose2{a[0], a[1], a[2]}.Between(Pose2{b[0], b[1], b[2]})
}

// ramp is the distance covered by a move at speed v for hold seconds at full speed with acceleration
// acc up and down, started at t = 0 (negative v moves backwards).
func ramp(v, acc, hold, t float64) float64 {
	if t <= 0 {
		return 0
	}
	av := math.Abs(v)
	ta := av / acc
	sgn := math.Copysign(1, v)
	switch {
	case t < ta:
		return sgn * 0.5 * acc * t * t
	case t < ta+hold:
		return sgn * (0.5*acc*ta*ta + av*(t-ta))
	case t < 2*ta+hold:
		u := 2*ta + hold - t
		return sgn * (acc*ta*ta + av*hold - 0.5*acc*u*u)
	default:
		return sgn * (acc*ta*ta + av*hold)
	}
}

// leg moves from start along the body direction (dx, dy) (a unit vector) and/or turns, starting at t0:
// speed v (m/s) or rate (rad/s) with the given acceleration, full speed for hold seconds.
func leg(start [3]float64, t0, dx, dy, v, rate, acc, hold float64) trajectory {
	return func(t float64) [3]float64 {
		s := ramp(v, acc, hold, t-t0)
		c, sn := math.Cos(start[2]), math.Sin(start[2])
		yaw := start[2]
		if rate != 0 {
			// Angular acceleration scaled so that the ramp takes as long as the linear one would.
			yaw += ramp(rate, acc*math.Abs(rate)/math.Max(math.Abs(v), 0.2), hold, t-t0)
		}
		return [3]float64{start[0] + s*(c*dx-sn*dy), start[1] + s*(sn*dx+c*dy), yaw}
	}
}

func still(p [3]float64) trajectory { return func(float64) [3]float64 { return p } }

// run feeds scans 0..n-1 to a default odometry and returns the estimates (index = revolution); a failed
// scan fails the test.
func run(t testing.TB, w *world, n int, gyro bool) []Estimate {
	t.Helper()
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Estimate, n)
	for k := 0; k < n; k++ {
		aux := Aux{}
		if gyro {
			dt := 1e-3
			t0 := (float64(k) + 0.5) * scanPeriod
			aux = Aux{YawRate: wrap(w.traj(t0 + dt)[2]-w.traj(t0 - dt)[2]) / (2 * dt), HasYawRate: true}
		}
		e, err := o.Add(w.scan(k), aux)
		if err != nil {
			t.Fatalf("scan %d: %v", k, err)
		}
		out[k] = e
	}
	return out
}

// pairErrors returns the per-pair translation (m) and yaw (rad) errors of Delta against the truth.
func pairErrors(w *world, est []Estimate) (dxy, dyaw []float64) {
	for k := 1; k < len(est); k++ {
		tr := w.truth(k - 1).Between(w.truth(k))
		d := est[k].Delta
		dxy = append(dxy, math.Hypot(d.X-tr.X, d.Y-tr.Y))
		dyaw = append(dyaw, math.Abs(wrap(d.Yaw-tr.Yaw)))
	}
	return dxy, dyaw
}

func quantile(v []float64, p float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[int(math.Ceil(p*float64(len(s))))-1]
}

// corridorRoom is two parallel walls 1.4 m apart and 60 m long, the robot in the middle facing along it:
// no end wall within the LiDAR's 8 m.
func corridorRoom(t testing.TB) *sim.Room {
	r, err := sim.ParseRoom([]byte(`name: corridor
start: [0, 0, 0]
walls:
  - [[-30, -0.7], [30, -0.7]]
  - [[-30, 0.7], [30, 0.7]]
`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
