package scanmatch

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
	"gonum.org/v1/gonum/mat"

	"github.com/rosorin/rosorin/sim"
)

type motionCase struct {
	name         string
	dx, dy, v, w float64 // body direction, speed (m/s), yaw rate (rad/s)
	hold         float64 // s at full speed
	gyro         bool
}

// The floor proof's moves (chapter 19 plus the strafes and 0.35 m/s it never covered) and turns at 0.5
// and 1 rad/s, each from standing, accelerating at 1 m/s^2 (the sim's wheels, tau 0.22 s, reach 1.6 m/s^2
// for a 0.35 m/s step) and stopping again.
var motions = []motionCase{
	{"fwd 0.1", 1, 0, 0.1, 0, 1.5, false},
	{"fwd 0.2", 1, 0, 0.2, 0, 1.5, false},
	{"fwd 0.35", 1, 0, 0.35, 0, 1.5, false},
	{"back 0.2", 1, 0, -0.2, 0, 1.5, false},
	{"strafe left 0.2", 0, 1, 0.2, 0, 1.5, false},
	{"strafe right 0.2", 0, 1, -0.2, 0, 1.5, false},
	{"turn +0.5", 0, 0, 0, 0.5, 2, false},
	{"turn -1.0", 0, 0, 0, -1, 2, false},
	{"turn +1.0 gyro", 0, 0, 0, 1, 2, true},
	{"fwd 0.2 turning 0.5", 1, 0, 0.2, 0.5, 1.5, false},
}

// TestPairAccuracy checks the motion between successive scans against the truth over every pair of every
// move. Targets: p95 at most 2 mm along each axis and 0.1 degree. The error of the planar distance
// (hypot of both axes) is reported and bounded at 2.5 mm, with the Cramer-Rao bound of that p95 for the
// same pairs (pairBoundP95): about 1.85 mm, so the 2 mm planar p95 asks for a matcher within 8 %
// of the exact-map bound (docs/scanmatch.md has what was tried).
func TestPairAccuracy(t *testing.T) {
	var axis, planar, yaw, bound []float64
	rng := rand.New(rand.NewPCG(5, 5))
	for i, m := range motions {
		w := newWorld(int64(100+i), sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.3, m.dx, m.dy, m.v, m.w, 1.0, m.hold))
		est := run(t, w, 45, m.gyro)
		var ax, pl, yw, bd []float64
		prev := scanCRB(t, w.traj(0.5*scanPeriod))
		for k := 1; k < len(est); k++ {
			cur := scanCRB(t, w.traj((float64(k)+0.5)*scanPeriod))
			bd, prev = append(bd, pairBound(rng, prev, cur)...), cur
			tr := w.truth(k - 1).Between(w.truth(k))
			d := est[k].Delta
			ex, ey := d.X-tr.X, d.Y-tr.Y
			ax = append(ax, math.Abs(ex), math.Abs(ey))
			pl = append(pl, math.Hypot(ex, ey))
			yw = append(yw, math.Abs(wrap(d.Yaw-tr.Yaw))*180/math.Pi)
		}
		axis, planar, yaw, bound = append(axis, ax...), append(planar, pl...), append(yaw, yw...), append(bound, bd...)
		t.Logf("%-20s p95 per axis %.2f mm, planar %.2f mm (max %.2f; bound %.2f), yaw %.3f deg (max %.3f)", m.name,
			1e3*quantile(ax, .95), 1e3*quantile(pl, .95), 1e3*quantile(pl, 1), 1e3*quantile(bd, .95), quantile(yw, .95), quantile(yw, 1))
	}
	pa, pp, py := 1e3*quantile(axis, .95), 1e3*quantile(planar, .95), quantile(yaw, .95)
	t.Logf("all %d pairs: p95 per axis %.2f mm, planar %.2f mm (Cramer-Rao bound %.2f mm), yaw %.3f deg", len(planar), pa, pp,
		1e3*quantile(bound, .95), py)
	if pa > 2 || py > 0.1 || pp > 2.5 {
		t.Errorf("pair error p95 %.2f mm per axis (want <= 2), %.2f mm planar (<= 2.5), %.3f deg (<= 0.1)", pa, pp, py)
	}
}

// pairBound draws 500 planar errors from the Cramer-Rao bound of a pair of scans: the sum of the two scans'
// bounds a and b (scanCRB at their true poses, mid-sweep; the skew left out), whose (x, y) parts are in world
// axes (the planar error's size does not depend on the frame).
func pairBound(rng *rand.Rand, a, b *mat.Dense) []float64 {
	c00, c01, c11 := a.At(0, 0)+b.At(0, 0), a.At(0, 1)+b.At(0, 1), a.At(1, 1)+b.At(1, 1)
	l00 := math.Sqrt(c00)
	l10 := c01 / l00
	l11 := math.Sqrt(c11 - l10*l10)
	out := make([]float64, 500)
	for i := range out {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		out[i] = math.Hypot(l00*z0, l10*z0+l11*z1)
	}
	return out
}

// mahalanobis2 returns e' (C1 + C2)^-1 e over x, y (the two matches' noise is independent; the first
// scan has no covariance of its own).
func mahalanobis2(ex, ey float64, c1, c2 [3][3]float64, both bool) float64 {
	a, b, d := c2[0][0], c2[0][1], c2[1][1]
	if both {
		a, b, d = a+c1[0][0], b+c1[0][1], d+c1[1][1]
	}
	det := a*d - b*b
	return (d*ex*ex - 2*b*ex*ey + a*ey*ey) / det
}

// TestCovarianceHonest: standing still at four places in the room, where nothing but the range noise
// acts, the pair errors are as large as the covariance says (their squared Mahalanobis distance has the
// chi-square 2 median, 1.39, within 30 %), so the covariance is neither optimistic nor padded, and the
// planar p95 is what the information allows.
func TestCovarianceHonest(t *testing.T) {
	var maha []float64
	for i, pos := range [][3]float64{{0, 0, 0}, {1, 0.5, 1}, {2, -0.5, 2.5}, {0.5, 1, -1}} {
		w := newWorld(int64(7+i), sim.DefaultRoom(), still(pos))
		est := run(t, w, 150, false)
		var pl []float64
		var cx, cy float64
		for k := 1; k < len(est); k++ {
			tr := w.truth(k - 1).Between(w.truth(k))
			ex, ey := est[k].Delta.X-tr.X, est[k].Delta.Y-tr.Y
			pl = append(pl, math.Hypot(ex, ey))
			maha = append(maha, mahalanobis2(ex, ey, est[k-1].Cov, est[k].Cov, k > 1))
			cx, cy = cx+est[k].Cov[0][0], cy+est[k].Cov[1][1]
		}
		n := float64(len(est) - 1)
		t.Logf("still at %v: planar pair p95 %.2f mm; predicted pair sd x %.2f y %.2f mm; info %.3f", pos,
			1e3*quantile(pl, .95), 1e3*math.Sqrt(2*cx/n), 1e3*math.Sqrt(2*cy/n), est[3].Info)
	}
	med := quantile(maha, 0.5)
	t.Logf("median squared Mahalanobis distance %.2f (chi-square 2: 1.39)", med)
	if med < 1.39/1.3 || med > 1.39*1.3 {
		t.Errorf("median squared Mahalanobis distance %.2f, want 1.39 +- 30 %%: the covariance is off", med)
	}
}

// TestStrafe15cm is the move rf2o read as 1.1 cm: a 15 cm sideways strafe at 0.2 m/s must read
// 15 cm +- 3 mm, left and right, with no gyro and a still robot's zero velocity as the first guess.
func TestStrafe15cm(t *testing.T) {
	for i, v := range []float64{0.2, -0.2} {
		hold := (0.15 - v*v/1.0) / math.Abs(v) // 15 cm with 1 m/s^2 ramps
		w := newWorld(int64(30+i), sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.5, 0, 1, v, 0, 1.0, hold))
		est := run(t, w, 25, false)
		last := len(est) - 1
		got, want := est[last].Pose, w.truth(last)
		t.Logf("strafe %+.1f m/s: read y %.2f mm x %.2f mm, truth y %.2f mm: error %.2f mm", v, 1e3*got.Y, 1e3*got.X,
			1e3*want.Y, 1e3*(got.Y-want.Y))
		if math.Abs(math.Abs(want.Y)-0.15) > 1e-9 {
			t.Fatalf("test trajectory moves %.4f m, not 0.15", want.Y)
		}
		if math.Abs(got.Y-want.Y) > 0.003 || math.Abs(got.X) > 0.003 {
			t.Errorf("strafe read (%.2f, %.2f) mm, want (0, %.0f) +- 3 mm", 1e3*got.X, 1e3*got.Y, 1e3*want.Y)
		}
	}
}

// TestStill60s: 600 scans of a robot standing still, at four places. Drift, what the 60 s add (the mean
// pose of the last second against that of the first), at most 2 mm and 0.02 degree, and no new keyframe,
// so nothing accumulates. The offset of those means from the truth is the first scan's own range noise
// (the origin is where that scan says the walls are; no later scan can correct it): at most 2.5 mm. The
// scan to scan scatter (each scan's own noise, about 0.7 mm per axis): at most 4 mm worst.
func TestStill60s(t *testing.T) {
	for i, pos := range [][3]float64{{0, 0, 0}, {1.2, 0.4, 0.7}, {2.4, -0.3, 3}, {-0.5, -1, -1.5}} {
		w := newWorld(int64(50+i), sim.DefaultRoom(), still(pos))
		est := run(t, w, 600, false)
		var first, last Pose2
		var worst float64
		keyframes := 0
		for k, e := range est[1:] {
			worst = math.Max(worst, math.Hypot(e.Pose.X, e.Pose.Y))
			if e.Keyframe {
				keyframes++
			}
			if k < 10 {
				first = Pose2{first.X + e.Pose.X/10, first.Y + e.Pose.Y/10, first.Yaw + e.Pose.Yaw/10}
			}
			if k >= len(est)-11 {
				last = Pose2{last.X + e.Pose.X/10, last.Y + e.Pose.Y/10, last.Yaw + e.Pose.Yaw/10}
			}
		}
		drift := math.Hypot(last.X-first.X, last.Y-first.Y)
		driftYaw := math.Abs(last.Yaw-first.Yaw) * 180 / math.Pi
		offset := math.Hypot(last.X, last.Y)
		t.Logf("still at %v for 60 s: drift %.2f mm %.4f deg, offset %.2f mm, worst scan %.2f mm, %d new keyframes",
			pos, 1e3*drift, driftYaw, 1e3*offset, 1e3*worst, keyframes)
		if drift > 0.002 || driftYaw > 0.02 || offset > 0.0025 || worst > 0.004 || keyframes > 0 {
			t.Errorf("still robot: drift %.2f mm %.4f deg, offset %.2f mm, worst %.2f mm, %d new keyframes; want <= 2 mm, 0.02 deg, 2.5 mm, 4 mm, none",
				1e3*drift, driftYaw, 1e3*offset, 1e3*worst, keyframes)
		}
	}
}

// legSeeds is how many seeds TestLegDistance runs per leg: 20, or ROSORIN_LEG_SEEDS; 5 under the race
// detector unless that is set.
func legSeeds(t *testing.T) int {
	if v := os.Getenv("ROSORIN_LEG_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("ROSORIN_LEG_SEEDS=%q: want a positive number", v)
		}
		return n
	}
	if testkit.RaceEnabled {
		return 5
	}
	return 20
}

// legRun drives leg m (1.5 s at full speed from standing, 1 m/s^2 ramps, 0.3 s standing before) with the
// sim's LiDAR seeded seed, every range multiplied by scale, and returns the relative distance error two
// ways: standing to standing (the mean pose of the three scans before the leg against that of the last
// three, all standing: the judge's 0.3 s window, as the floor proof measures travel) and from the first
// scan to the last one alone.
func legRun(t *testing.T, m motionCase, seed int64, scale float32) (standing, single float64) {
	t.Helper()
	const n = 30 // 3 s: the 0.35 m/s leg ends at 2.5 s, the last three sweeps start at 2.7 s
	w := newWorld(seed, sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.3, m.dx, m.dy, m.v, 0, 1.0, 1.5))
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var got, want [2][2]float64 // before, after: x, y means
	var last Pose2
	for k := 0; k < n; k++ {
		s := w.scan(k)
		for i := range s.Ranges {
			s.Ranges[i] *= scale
		}
		e, err := o.Add(s, Aux{})
		if err != nil {
			t.Fatalf("seed %d scan %d: %v", seed, k, err)
		}
		tr := w.truth(k)
		for side, in := range [2]bool{k < 3, k >= n-3} {
			if in {
				got[side][0], got[side][1] = got[side][0]+e.Pose.X/3, got[side][1]+e.Pose.Y/3
				want[side][0], want[side][1] = want[side][0]+tr.X/3, want[side][1]+tr.Y/3
			}
		}
		last = e.Pose
	}
	dg := math.Hypot(got[1][0]-got[0][0], got[1][1]-got[0][1])
	dw := math.Hypot(want[1][0]-want[0][0], want[1][1]-want[0][1])
	tl := w.truth(n - 1)
	return (dg - dw) / dw, (math.Hypot(last.X, last.Y) - math.Hypot(tl.X, tl.Y)) / math.Hypot(tl.X, tl.Y)
}

// TestLegDistance: a 1.5 s leg (the floor proof's) at each speed and direction, from standing to standing,
// reads its distance within 1 % on every one of legSeeds fixed seeds per leg (seeds 2000 + 100 x leg + i,
// never tuned on). The distance is between the mean standing poses before and after (legRun), as the
// floor proof measures. The distance from the first scan to the last alone is logged, not judged: at
// 0.1 m/s (160 mm, 1 % = 1.6 mm) it cannot meet 1 % reliably whatever the matcher, since the two scans'
// range noise alone moves it by sqrt(2) x the Cramer-Rao bound of one scan's x at the start (scanCRB,
// 0.61 mm): 0.86 mm, so 1.6 mm is 1.9 sigma and about 6 % of such legs miss.
func TestLegDistance(t *testing.T) {
	seeds := legSeeds(t)
	crb := scanCRB(t, sim.DefaultRoom().Start)
	t.Logf("ideal single-scan ends at the start: sd x %.2f mm, y %.2f mm (sqrt(2) x the Cramer-Rao bound)",
		1e3*math.Sqrt(2*crb.At(0, 0)), 1e3*math.Sqrt(2*crb.At(1, 1)))
	for mi, m := range motions[:6] {
		var st, sg []float64
		misses := 0
		for i := 0; i < seeds; i++ {
			seed := int64(2000 + 100*mi + i)
			r, r1 := legRun(t, m, seed, 1)
			st, sg = append(st, math.Abs(r)), append(sg, math.Abs(r1))
			if math.Abs(r1) > 0.01 {
				misses++
			}
			if math.Abs(r) > 0.01 {
				t.Errorf("%s seed %d: standing to standing %+.2f %%, want within 1 %%", m.name, seed, 100*r)
			}
		}
		t.Logf("%-18s %d seeds: standing to standing p95 %.2f %% max %.2f %%; first to last scan p95 %.2f %% max %.2f %% (%d beyond 1 %%)",
			m.name, seeds, 100*quantile(st, .95), 100*quantile(st, 1), 100*quantile(sg, .95), 100*quantile(sg, 1), misses)
	}
}

// TestLegDistanceControl: the same check on a LiDAR whose ranges read 2 % long (a miscalibrated scanner:
// every distance the odometry measures is 2 % long) fails on every seed.
func TestLegDistanceControl(t *testing.T) {
	for mi, m := range []motionCase{motions[0], motions[4]} {
		for i := 0; i < 3; i++ {
			r, _ := legRun(t, m, int64(2000+100*mi+i), 1.02)
			t.Logf("%s, ranges 2 %% long, seed %d: %+.2f %%", m.name, i, 100*r)
			if math.Abs(r) <= 0.01 {
				t.Errorf("%s with ranges 2 %% long read %+.2f %%: the 1 %% check cannot fail", m.name, 100*r)
			}
		}
	}
}

// checkLeg runs n scans of w and checks the distance from the first to the last pose within rel of the
// truth and the final heading within maxYaw (rad).
func checkLeg(t *testing.T, name string, w *world, n int, rel, maxYaw float64) {
	t.Helper()
	est := run(t, w, n, false)
	last := len(est) - 1
	got, want := est[last].Pose, w.truth(last)
	dg, dw := math.Hypot(got.X, got.Y), math.Hypot(want.X, want.Y)
	r := (dg - dw) / dw
	t.Logf("%-34s distance %.1f mm, truth %.1f mm (%+.2f %%), heading %.3f deg", name, 1e3*dg, 1e3*dw, 100*r, got.Yaw*180/math.Pi)
	if math.Abs(r) > rel || math.Abs(got.Yaw) > maxYaw {
		t.Errorf("%s: distance %.1f mm, truth %.1f mm (%+.2f %%), heading %.3f deg; want within %.0f %%, %.2f deg",
			name, 1e3*dg, 1e3*dw, 100*r, got.Yaw*180/math.Pi, 100*rel, maxYaw*180/math.Pi)
	}
}

// TestTurns: a full turn at 0.5 and 1 rad/s (with and without the gyro's guess) ends within 0.5 degree
// and 5 mm of the truth.
func TestTurns(t *testing.T) {
	for i, c := range []struct {
		rate float64
		gyro bool
	}{{0.5, false}, {-0.5, false}, {1, false}, {-1, true}} {
		hold := 2*math.Pi/math.Abs(c.rate) - math.Abs(c.rate)/(1.0*math.Abs(c.rate)/0.2)
		w := newWorld(int64(90+i), sim.DefaultRoom(), leg([3]float64{0.6, 0.2, 0.3}, 0.3, 0, 0, 0, c.rate, 1.0, hold))
		n := int((hold+1.5)/scanPeriod) + 1
		est := run(t, w, n, c.gyro)
		got, want := est[n-1].Pose, w.truth(n-1)
		ey := wrap(got.Yaw-want.Yaw) * 180 / math.Pi
		et := math.Hypot(got.X-want.X, got.Y-want.Y)
		t.Logf("turn %+.1f rad/s gyro %v through %.1f deg: yaw error %.3f deg, position error %.2f mm", c.rate, c.gyro,
			(hold+0.2)*c.rate*180/math.Pi, ey, 1e3*et)
		if math.Abs(ey) > 0.5 || et > 0.005 {
			t.Errorf("turn %+.1f: yaw error %.3f deg, position %.2f mm, want <= 0.5 deg, 5 mm", c.rate, ey, 1e3*et)
		}
	}
}
