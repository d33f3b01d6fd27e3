package scanmatch

import (
	"math"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// eig puts the eigenvalues (ascending) of the symmetric 3x3 matrix with upper triangle h (00 01 02 11 12
// 22) into o.eigW and its eigenvectors into the columns of o.eigA. mat.EigenSym runs this LAPACK routine
// (dsyev) too, but allocates its matrices on every call; here the work space is allocated once by New.
func (o *Odometry) eig(h [6]float64) bool {
	for _, v := range h {
		if !finite(v) {
			return false
		}
	}
	o.eigA = [9]float64{h[0], h[1], h[2], 0, h[3], h[4], 0, 0, h[5]}
	return lapack64.Syev(lapack.EVCompute, o.sym(), o.eigW[:], o.work, len(o.work))
}

type match struct {
	ok             bool
	pose           Pose2
	used, iters    int
	rms, lever     float64
	cov            [3][3]float64
	info           [3]float64
	weak           [2][3]float64
	degenerate     bool
	degenerateDims int
}

// match runs point-to-line Gauss-Newton of the current cloud against the keyframe from guess (the
// current base in the keyframe frame). Association is projective: a point looks only at the keyframe
// points in the bearing cells around its own.
func (o *Odometry) match(guess Pose2, warm bool) match {
	cfg := &o.cfg
	k := &o.key
	nc := 2 * cfg.Bins
	wide := 2 * cfg.SearchBins
	maxD2 := cfg.MaxPointDist * cfg.MaxPointDist
	minInc2 := cfg.MinIncidence * cfg.MinIncidence
	// Lever: the RMS range, so that yaw x lever is in metres and the Hessian's eigenvalues compare.
	var sr float64
	for _, i := range o.cur.idx {
		sr += o.cur.x[i]*o.cur.x[i] + o.cur.y[i]*o.cur.y[i]
	}
	lever := math.Sqrt(sr / float64(max(len(o.cur.idx), 1)))
	if !(lever > 0.05) {
		lever = 0.05
	}
	T := guess
	var res match
	res.lever = lever
	// The residual gate shrinks by 3.4 per step from MaxPointDist (from 2 x ResidualGate when the guess is
	// already a converged match, de-skewed anew) to ResidualGate.
	gate := cfg.MaxPointDist
	if warm {
		gate = math.Min(gate, 2*cfg.ResidualGate)
	}
	finalSteps, lastStep := 0, 0.0
	for it := 0; it < cfg.MaxIterations; it++ {
		if it > 0 {
			// Shrink, but never below twice the last step: while the estimate still moves far, points
			// that are far off now are the ones that will fit (a long gap with a poor guess).
			gate = math.Max(cfg.ResidualGate, math.Min(gate, math.Max(gate/3.4, 2*lastStep)))
		}
		// Huber's kernel widens with the gate: while the gate is wide the residuals are the guess's error,
		// not noise, and down-weighing them would shorten the step.
		huber := math.Max(cfg.Huber, gate/2)
		// Once the first steps have removed the guess's error a point moves by far less than a bin per
		// step, so the later steps look only at the cells next to the point's own.
		win := wide
		if warm || it >= 2 && gate < 0.1 {
			win = min(wide, 4)
		}
		var h [6]float64 // upper triangle: 00 01 02 11 12 22
		var g [3]float64
		var cost, wsum float64
		used := 0
		sy, cy := math.Sincos(T.Yaw)
		for _, i32 := range o.cur.idx {
			px, py := o.cur.x[i32], o.cur.y[i32]
			dx, dy := cy*px-sy*py, sy*px+cy*py // R p
			qx, qy := T.X+dx, T.Y+dy
			cell := o.cellOf(qx, qy)
			best, bd := -1, maxD2
			for d := -win; d <= win; d++ {
				c := cell + d
				if c < 0 {
					c += nc
				} else if c >= nc {
					c -= nc
				}
				j := k.cell[c]
				if j < 0 {
					continue
				}
				ex, ey := qx-k.x[j], qy-k.y[j]
				if e2 := ex*ex + ey*ey; e2 < bd {
					best, bd = int(j), e2
				}
			}
			if best < 0 {
				continue
			}
			nx, ny := k.nx[best], k.ny[best]
			r := nx*(qx-k.cx[best]) + ny*(qy-k.cy[best])
			ar := math.Abs(r)
			if ar > gate {
				continue
			}
			// The range noise is along the ray, so the residual's is that times |cos| of the incidence:
			// weigh by 1/cos^2 (capped, for a grazing ray the line's own error dominates).
			ux, uy := qx-T.X-cfg.Mount.X*cy, qy-T.Y-cfg.Mount.X*sy // approximately the ray (mount on x)
			nu := nx*ux + ny*uy
			inc2 := nu * nu / (ux*ux + uy*uy + 1e-18)
			if inc2 < minInc2 {
				inc2 = minInc2
			}
			inc := math.Sqrt(inc2)
			an := ar / inc
			w := 1 / inc2
			if an > huber {
				w *= huber / an
			}
			j0, j1, j2 := nx, ny, (-nx*dy+ny*dx)/lever
			h[0] += w * j0 * j0
			h[1] += w * j0 * j1
			h[2] += w * j0 * j2
			h[3] += w * j1 * j1
			h[4] += w * j1 * j2
			h[5] += w * j2 * j2
			g[0] += w * j0 * r
			g[1] += w * j1 * r
			g[2] += w * j2 * r
			cost += w * r * r
			wsum += w * inc2
			used++
		}
		res.used, res.iters = used, it+1
		o.steps++
		if used < cfg.MinPoints {
			res.ok = false
			return res
		}
		if !o.eig(h) {
			res.ok = false
			return res
		}
		a := &o.eigA
		floor := cfg.DegenerateInfo * float64(used)
		var step [3]float64
		var cov [3][3]float64
		sigma2 := cost / math.Max(wsum-3, 1)
		dims := 0
		for e := 0; e < 3; e++ {
			v := [3]float64{a[0*3+e], a[1*3+e], a[2*3+e]} // eigenvector e is column e
			lam := o.eigW[e]
			res.info[e] = lam / float64(used)
			if lam < floor {
				if dims < 2 {
					res.weak[dims] = v
				}
				dims++
			} else {
				vg := (v[0]*g[0] + v[1]*g[1] + v[2]*g[2]) / lam
				for r := 0; r < 3; r++ {
					step[r] -= v[r] * vg
				}
			}
			inv := sigma2 / math.Max(lam, 1e-12*float64(used))
			if lam < floor {
				inv = DegenerateVariance
			}
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					cov[r][c] += v[r] * v[c] * inv
				}
			}
		}
		if dims == 0 {
			res.weak[0] = [3]float64{a[0], a[3], a[6]}
		}
		// Unscale yaw: the third parameter is yaw x lever.
		for r := 0; r < 3; r++ {
			cov[r][2] /= lever
			cov[2][r] /= lever
		}
		res.cov, res.degenerate, res.degenerateDims = cov, dims > 0, dims
		res.rms = math.Sqrt(cost / math.Max(wsum, 1))
		lastStep = math.Hypot(step[0], step[1]) + math.Abs(step[2])
		T.X += step[0]
		T.Y += step[1]
		T.Yaw = wrap(T.Yaw + step[2]/lever)
		// Converged when a step at the final gate moves by under 0.03 mm; an association flipping between
		// two neighbours can keep it from that, so at most four steps at the final gate.
		if gate <= cfg.ResidualGate {
			finalSteps++
			if finalSteps >= 4 || math.Hypot(step[0], step[1]) < 3e-5 && math.Abs(step[2]) < 3e-5*lever {
				break
			}
		}
	}
	res.pose, res.ok = T, finite(T.X) && finite(T.Y) && finite(T.Yaw)
	return res
}
