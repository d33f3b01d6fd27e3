package scanmatch

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/sim"
)

// gyroSample is one board gyro z reading on the scans' clock (s since epoch), rad/s.
type gyroSample struct{ t, wz float64 }

// gyroOf makes the board's gyro z for w's trajectory from t0 to t1: a sample every 1/110 s from t0 +
// phase, the body rate from the trajectory, through sim.IMUModel (its white noise with the wheels'
// vibration share, its z bias, 0.05 deg/s nominal, and its wander), plus extraBiasDeg (deg/s), in rad/s.
// The bias is not removed: the driver's calibration would take most of it away.
func gyroOf(w *world, seed int64, t0, t1, phase, extraBiasDeg float64) []gyroSample {
	imu := sim.NewIMUModel(seed)
	const period = 1.0 / 110
	var out []gyroSample
	for t := t0 + phase; t <= t1; t += period {
		const h = 1e-4
		a, b := w.traj(t-h), w.traj(t+h)
		c, s := math.Cos(w.traj(t)[2]), math.Sin(w.traj(t)[2])
		vx, vy := (b[0]-a[0])/(2*h), (b[1]-a[1])/(2*h)
		body := [3]float64{c*vx + s*vy, -s*vx + c*vy, wrap(b[2]-a[2]) / (2 * h)}
		p := sim.Physics{Vel: body, Wheel: sim.WheelRPS(body)}
		r := imu.Sample(time.Second/110, &p)
		out = append(out, gyroSample{t, (r.Gyro[2] + extraBiasDeg) * math.Pi / 180})
	}
	return out
}

// gyroLag: a gyro sample reaches the odometry this long after it was taken, the scan at its sweep's end
// (both through the driver); Add sees the samples up to its sweep's end plus this.
const gyroLag = 0.005

// runGyro is run with a gyro stream: before scan k it feeds the samples taken up to the sweep's end plus
// gyroLag. It returns the estimates and the odometry.
func runGyro(t testing.TB, w *world, n int, g []gyroSample) ([]Estimate, *Odometry) {
	t.Helper()
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Estimate, n)
	j := 0
	for k := 0; k < n; k++ {
		for ; j < len(g) && g[j].t <= float64(k+1)*scanPeriod+gyroLag; j++ {
			if err := o.AddGyro(epoch.Add(time.Duration(g[j].t*1e9)), g[j].wz); err != nil {
				t.Fatal(err)
			}
		}
		e, err := o.Add(w.scan(k), Aux{})
		if err != nil {
			t.Fatalf("scan %d: %v", k, err)
		}
		out[k] = e
	}
	return out, o
}

// pairTable runs every move of motions with world seeds seedBase + i and returns the per-axis, planar
// and yaw errors of all pairs and their Cramer-Rao planar draws (when bound). gyro: -1 none (the moves'
// own Aux), else the sim IMU's stream with this extra bias (deg/s).
func pairTable(t *testing.T, seedBase int64, gyro float64, bound bool) (axis, planar, yaw, crb []float64) {
	for i, m := range motions {
		w := newWorld(seedBase+int64(i), sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.3, m.dx, m.dy, m.v, m.w, 1.0, m.hold))
		var est []Estimate
		if gyro < 0 {
			est = run(t, w, 45, m.gyro)
		} else {
			est, _ = runGyro(t, w, 45, gyroOf(w, seedBase+int64(i), 0, 4.6, 0.003, gyro))
		}
		var ax, pl, yw []float64
		for k := 1; k < len(est); k++ {
			if gyro >= 0 && !est[k].Gyro {
				t.Fatalf("%s scan %d: the gyro did not cover the sweep", m.name, k)
			}
			tr := w.truth(k - 1).Between(w.truth(k))
			d := est[k].Delta
			ex, ey := d.X-tr.X, d.Y-tr.Y
			ax = append(ax, math.Abs(ex), math.Abs(ey))
			pl = append(pl, math.Hypot(ex, ey))
			yw = append(yw, math.Abs(wrap(d.Yaw-tr.Yaw))*180/math.Pi)
		}
		axis, planar, yaw = append(axis, ax...), append(planar, pl...), append(yaw, yw...)
		t.Logf("%-20s p95 per axis %.2f mm, planar %.2f mm (max %.2f), yaw %.3f deg (max %.3f)", m.name,
			1e3*quantile(ax, .95), 1e3*quantile(pl, .95), 1e3*quantile(pl, 1), quantile(yw, .95), quantile(yw, 1))
	}
	return
}

// TestPairAccuracyGyro: the moves of TestPairAccuracy (same world seeds) with the board's gyro as the
// sim's IMU model makes it (noise, vibration, its z bias not removed): per-pair p95 per axis and planar at
// most 2 mm, yaw 0.1 degree. ROSORIN_PAIR_SEEDS=a,b,... runs further seed bases and logs them (not judged).
func TestPairAccuracyGyro(t *testing.T) {
	bases := []int64{100}
	if v := os.Getenv("ROSORIN_PAIR_SEEDS"); v != "" {
		for _, f := range strings.Split(v, ",") {
			b, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("ROSORIN_PAIR_SEEDS=%q: want numbers", v)
			}
			bases = append(bases, b)
		}
	}
	for bi, base := range bases {
		for _, mode := range []float64{-1, 0} {
			if mode < 0 && bi == 0 {
				continue // TestPairAccuracy's own
			}
			axis, planar, yaw, _ := pairTable(t, base, mode, false)
			pa, pp, py := 1e3*quantile(axis, .95), 1e3*quantile(planar, .95), quantile(yaw, .95)
			t.Logf("seeds %d, gyro %v: all %d pairs p95 per axis %.2f mm, planar %.2f mm, yaw %.3f deg", base, mode >= 0,
				len(planar), pa, pp, py)
			if bi == 0 && (pa > 2 || pp > 2 || py > 0.1) {
				t.Errorf("with the gyro: pair error p95 %.2f mm per axis, %.2f mm planar (want <= 2 both), %.3f deg (<= 0.1)", pa, pp, py)
			}
		}
	}
}
