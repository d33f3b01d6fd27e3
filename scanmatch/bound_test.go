package scanmatch

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rosorin/rosorin/sim"
)

// scanCRB returns the Cramer-Rao bound of one scan's pose (x, y, yaw) at pose in the default room: the
// inverse of the Fisher information of its bins (see crlbPairP95).
func scanCRB(t testing.TB, pose [3]float64) *mat.Dense {
	room := sim.DefaultRoom()
	lid := sim.NewLidarModel(1, room)
	sigma := sim.LidarNoiseMM / 1000
	fim := mat.NewSymDense(3, nil)
	const h = 1e-5
	for n := 0; n < 400; n++ {
		nat := float64(n) * sim.LidarStepDeg
		r0, ok := lid.Expected(pose, nat)
		if !ok || r0 < 0.12 {
			continue
		}
		base := sim.NativeToBase(nat)
		o := [2]float64{pose[0] + sim.LidarMountX*math.Cos(pose[2]), pose[1] + sim.LidarMountX*math.Sin(pose[2])}
		_, cosInc, _ := room.Ray(o, pose[2]+base)
		p := 1 - sim.LidarDropout
		if cosInc < 0.12 {
			p *= 0.2
		}
		var j [3]float64
		for k := 0; k < 3; k++ {
			a, b := pose, pose
			a[k] += h
			b[k] -= h
			ra, oka := lid.Expected(a, nat)
			rb, okb := lid.Expected(b, nat)
			if !oka || !okb || math.Abs(ra-rb) > 0.01 { // an edge: no derivative
				j = [3]float64{}
				break
			}
			j[k] = (ra - rb) / (2 * h)
		}
		for r := 0; r < 3; r++ {
			for c := r; c < 3; c++ {
				fim.SetSym(r, c, fim.At(r, c)+p*j[r]*j[c]/(sigma*sigma))
			}
		}
	}
	var cov mat.Dense
	if err := cov.Inverse(fim); err != nil {
		t.Fatal(err)
	}
	return &cov
}

// crlbPairP95 returns the Cramer-Rao bound of the planar error's p95 for the motion between two scans of a
// still robot at pose: the Fisher information of one scan is the sum over its bins of J J' / sigma^2,
// J the derivative of the bin's noise-free range (sim.LidarModel.Expected) with respect to the base pose,
// each bin counted with its chance of returning (2 % dropout; a grazing ray returns one time in five);
// two independent scans double the covariance. It knows the room exactly: no estimator does better.
func crlbPairP95(t *testing.T, pose [3]float64) float64 {
	cov := scanCRB(t, pose)
	// The pair's (x, y) covariance in the base frame is twice one scan's (the pose's x, y are world
	// axes here; the planar error's distribution does not depend on the frame).
	c := mat.NewSymDense(2, []float64{2 * cov.At(0, 0), 2 * cov.At(0, 1), 2 * cov.At(1, 0), 2 * cov.At(1, 1)})
	var chol mat.Cholesky
	if !chol.Factorize(c) {
		t.Fatal("pair covariance not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	rng := rand.New(rand.NewPCG(9, 9))
	d := make([]float64, 100000)
	for i := range d {
		z0, z1 := rng.NormFloat64(), rng.NormFloat64()
		x := l.At(0, 0) * z0
		y := l.At(1, 0)*z0 + l.At(1, 1)*z1
		d[i] = math.Hypot(x, y)
	}
	return quantile(d, 0.95)
}

// TestInformationBound: for a still robot at four places the planar pair error's p95 is on average within
// 25 % of the Cramer-Rao bound that the room and the 6 mm noise set (each within 50 %). The bound itself
// is 1.6-1.95 mm: the "2 mm p95 per pair" target leaves a matcher that works from scans, not from the
// exact map the bound assumes, almost no room.
func TestInformationBound(t *testing.T) {
	var sum float64
	places := [][3]float64{{0, 0, 0}, {1, 0.5, 1}, {2, -0.5, 2.5}, {0.5, 1, -1}}
	for i, pos := range places {
		w := newWorld(int64(7+i), sim.DefaultRoom(), still(pos))
		est := run(t, w, 300, false)
		var pl []float64
		for k := 1; k < len(est); k++ {
			tr := w.truth(k - 1).Between(w.truth(k))
			pl = append(pl, math.Hypot(est[k].Delta.X-tr.X, est[k].Delta.Y-tr.Y))
		}
		got, bound := quantile(pl, 0.95), crlbPairP95(t, pos)
		sum += got / bound
		t.Logf("still at %v: planar pair p95 %.2f mm, Cramer-Rao bound %.2f mm (ratio %.2f)", pos, 1e3*got, 1e3*bound, got/bound)
		if got > 1.5*bound {
			t.Errorf("at %v: p95 %.2f mm, more than 1.5 x the bound %.2f mm", pos, 1e3*got, 1e3*bound)
		}
	}
	if mean := sum / float64(len(places)); mean > 1.25 {
		t.Errorf("mean ratio to the Cramer-Rao bound %.2f, want <= 1.25", mean)
	}
}
