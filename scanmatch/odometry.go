package scanmatch

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rosorin/rosorin/protocol/coind6"
)

// Aux carries what the caller knows besides the scan. It only seeds the first Gauss-Newton step: the cost
// has no prior term, so a well observed direction is decided by the scan alone.
type Aux struct {
	YawRate    float64 // rad/s, counter-clockwise (the gyro's z), used when HasYawRate
	HasYawRate bool
}

// Estimate is the odometry's answer for one scan.
type Estimate struct {
	Stamp time.Time // the scan's stamp (its first ray)
	// Time is the instant Pose refers to: Stamp + ScanTime/2, when the LiDAR looks forward (mid-sweep).
	// Referring the pose to mid-sweep makes an error in the de-skew velocity (a robot accelerating during
	// the sweep) shift points both ways instead of one way, so it hardly moves the pose; referred to the
	// first ray the same error moved it by the error x half the sweep (1.5 mm per pair at 1 m/s^2).
	Time     time.Time
	Pose     Pose2 // the base at Time relative to the base at the first scan's Time
	Delta    Pose2 // motion since the previous accepted scan's Time, in that scan's base frame
	Velocity Twist // Delta over the time between the two scans
	// Cov is the covariance of this scan's match against its keyframe, in this scan's base frame (x
	// forward, y left in m, yaw in rad), from the residuals' spread and the Hessian: sigma^2 H^-1, with
	// DegenerateVariance along a degenerate direction. Zero for the first scan (the origin, by definition).
	// TestCovarianceHonest checks it against the truth.
	Cov [3][3]float64
	// Degenerate: the scan does not constrain some direction (a corridor: the motion along it). Pose is then
	// the constant-velocity prediction along Weak, and a zero motion along it is no evidence of stillness;
	// ask Observable before judging a direction.
	Degenerate bool
	Weak       [3]float64 // unit eigenvector of least information (x m, y m, yaw x Lever m), current base frame
	Info       [3]float64 // information per correspondence along the Hessian's eigenvectors, ascending
	Lever      float64    // m: the RMS range that scales yaw into metres for Weak and Info
	weak2      [3]float64 // the second eigenvector, for Observable when two directions are degenerate
	weakDims   int
	Valid      int     // bins with a return inside the limits and outside the mask
	Used       int     // correspondences in the final step
	RMS        float64 // m: RMS point-to-line residual of the used correspondences
	Iterations int
	Keyframe   bool // this scan became the new keyframe (the first scan always does)
}

// Observable reports whether a motion along the base-frame direction (dx, dy) is measured by this estimate:
// false when the match is degenerate along (or close to) that direction.
func (e Estimate) Observable(dx, dy float64) bool {
	if !e.Degenerate {
		return true
	}
	n := math.Hypot(dx, dy)
	if !(n > 0) {
		return false
	}
	dx, dy = dx/n, dy/n
	thr := 0.3 // cos 72 degrees: a weak direction within ~70 degrees of the asked one spoils it
	if e.weakDims > 2 || math.Abs(dx*e.Weak[0]+dy*e.Weak[1]) > thr {
		return false
	}
	return e.weakDims < 2 || math.Abs(dx*e.weak2[0]+dy*e.weak2[1]) <= thr
}

// ObservableYaw reports whether the rotation is measured (false in a round room, or with garbage).
func (e Estimate) ObservableYaw() bool {
	if !e.Degenerate {
		return true
	}
	const thr = 0.3
	return e.weakDims <= 2 && math.Abs(e.Weak[2]) <= thr && (e.weakDims < 2 || math.Abs(e.weak2[2]) <= thr)
}

// WeakBearingDeg returns the base-frame bearing (degrees, 0 = forward, CCW) of the translational part of the
// weakest direction, in [-90, 90) (a direction, not a sense).
func (e Estimate) WeakBearingDeg() float64 {
	a := math.Atan2(e.Weak[1], e.Weak[0]) * 180 / math.Pi
	for a >= 90 {
		a -= 180
	}
	for a < -90 {
		a += 180
	}
	return a
}

// DegenerateVariance is the variance (m^2, or (m of yaw x Lever)^2) Cov gives a degenerate direction:
// unknown, yet finite so that a filter downstream stays numerically sane. The Hessian's own small
// eigenvalue would claim centimetres where nothing is measured (the corridor: 8 mm).
const DegenerateVariance = 1e4

// ErrBins: the scan does not have Config.Bins bins. ErrStamp: a scan's stamp is not after the previous one's.
var (
	ErrBins  = errors.New("scanmatch: scan has the wrong number of bins")
	ErrStamp = errors.New("scanmatch: scan stamp not after the previous scan's")
)

// ScanError says a scan was not usable (too few valid bins or lines, or too few correspondences with the
// keyframe). The caller skips the scan; the odometry keeps its state, and after a failed match it starts a
// new keyframe from this scan at the predicted pose.
type ScanError struct {
	Reason string
	Have   int
	Need   int
}

func (e *ScanError) Error() string {
	return fmt.Sprintf("scanmatch: %s: %d, need %d", e.Reason, e.Have, e.Need)
}

// cloud is one scan's points in its base frame at its Stamp (de-skewed), indexed by bin.
type cloud struct {
	x, y []float64
	ok   []bool
	idx  []int32 // the valid bins
}

// keyframe is a cloud with a fitted line per point and a bearing lookup for projective association.
type keyframe struct {
	cloud
	cx, cy, nx, ny []float64
	line           []bool
	cell           []int32 // bearing cell -> bin, -1 empty; 2 cells per bin
	lines          int

	rng      []float64 // its ranges, for a second de-skew
	scanTime float64
	vel      Twist // the velocity it was de-skewed with
	prevVel  Twist // the mean velocity over the interval before it
	havePrev bool
	refine   bool // not yet de-skewed again with the motion after it
}

// Odometry turns successive scans into base poses. It is a pure value: no I/O, goroutines or clocks; not
// safe for concurrent use. After New, Add makes no allocations.
type Odometry struct {
	cfg        Config
	cosB, sinB []float64 // base-frame ray direction per bin
	frac       []float64 // the bin's share of ScanTime after Stamp
	masked     []bool
	rng        []float64 // this scan's ranges, 0 = unused

	cur, next cloud
	key       keyframe
	keyPose   Pose2 // keyframe in the odometry frame
	rel       Pose2 // last accepted scan relative to the keyframe
	vel       Twist
	last      time.Time // the previous scan's Stamp
	lastRef   time.Time // and its mid-sweep time
	started   bool
	haveVel   bool

	steps int // Gauss-Newton steps taken, for the benchmarks

	eigA [9]float64
	eigW [3]float64
	work []float64
}

// New returns an odometry for cfg.
func New(cfg Config) (*Odometry, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n := cfg.Bins
	o := &Odometry{cfg: cfg, cosB: make([]float64, n), sinB: make([]float64, n), frac: make([]float64, n),
		masked: make([]bool, n), rng: make([]float64, n)}
	for i := 0; i < n; i++ {
		a := cfg.Mount.Yaw + cfg.AngleMin + float64(i)*cfg.AngleIncrement
		o.sinB[i], o.cosB[i] = math.Sincos(a)
		if cfg.SweepReversed {
			o.frac[i] = float64((n-i)%n) / float64(n)
		} else {
			o.frac[i] = float64(i) / float64(n)
		}
		deg := wrap(a) * 180 / math.Pi
		for _, s := range cfg.Mask {
			if s.contains(deg) {
				o.masked[i] = true
			}
		}
	}
	o.cur = newCloud(n)
	o.next = newCloud(n)
	o.key = keyframe{cloud: newCloud(n), cx: make([]float64, n), cy: make([]float64, n), nx: make([]float64, n),
		ny: make([]float64, n), line: make([]bool, n), cell: make([]int32, 2*n), rng: make([]float64, n)}
	var q [1]float64
	lapack64.Syev(lapack.EVCompute, o.sym(), o.eigW[:], q[:], -1)
	o.work = make([]float64, max(int(q[0]), 8))
	return o, nil
}

func newCloud(n int) cloud {
	return cloud{x: make([]float64, n), y: make([]float64, n), ok: make([]bool, n), idx: make([]int32, 0, n)}
}

func (o *Odometry) sym() blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Upper, N: 3, Stride: 3, Data: o.eigA[:]}
}

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

// Config returns the configuration.
func (o *Odometry) Config() Config { return o.cfg }

// Reset forgets everything: the next scan is the new origin.
func (o *Odometry) Reset() {
	o.started, o.haveVel = false, false
	o.rel, o.keyPose, o.vel = Pose2{}, Pose2{}, Twist{}
}

// Add matches one scan. An error means the scan gave no estimate (see ScanError); Estimate is then zero.
func (o *Odometry) Add(s coind6.Scan, aux Aux) (Estimate, error) {
	if len(s.Ranges) != o.cfg.Bins {
		return Estimate{}, fmt.Errorf("%w: %d, want %d", ErrBins, len(s.Ranges), o.cfg.Bins)
	}
	if o.started && !s.Stamp.After(o.last) {
		return Estimate{}, fmt.Errorf("%w: %v after %v", ErrStamp, s.Stamp, o.last)
	}
	valid := o.load(s)
	if valid < o.cfg.MinPoints {
		return Estimate{}, &ScanError{"valid bins", valid, o.cfg.MinPoints}
	}
	scanTime := s.ScanTime.Seconds()
	if !(scanTime > 0 && scanTime <= 1) {
		scanTime = 0 // unknown sweep time: no de-skew
	}
	ref := s.Stamp.Add(time.Duration(scanTime / 2 * 1e9))
	dt := ref.Sub(o.lastRef).Seconds()
	if o.started && !(dt > 0) {
		return Estimate{}, fmt.Errorf("%w: mid-sweep %v after %v", ErrStamp, ref, o.lastRef)
	}
	yawRate := aux.YawRate
	if !aux.HasYawRate || !finite(yawRate) || math.Abs(yawRate) > 20 {
		yawRate = math.NaN()
	}
	if !o.started {
		v := Twist{}
		if !math.IsNaN(yawRate) {
			v.W = yawRate
		}
		o.deskew(&o.cur, o.rng, v, scanTime)
		if lines := o.setKeyframe(&o.cur, o.rng, scanTime, v); lines < o.cfg.MinPoints {
			return Estimate{}, &ScanError{"line points in the first scan", lines, o.cfg.MinPoints}
		}
		o.started, o.last, o.lastRef, o.keyPose, o.rel, o.vel, o.haveVel = true, s.Stamp, ref, Pose2{}, Pose2{}, v, false
		return Estimate{Stamp: s.Stamp, Time: ref, Valid: valid, Keyframe: true, Info: [3]float64{math.NaN(), math.NaN(), math.NaN()}}, nil
	}

	v := Twist{}
	if o.haveVel && dt <= o.cfg.MaxGap {
		v = o.vel
	}
	if !math.IsNaN(yawRate) {
		v.W = yawRate
	}
	guess := o.rel.Compose(v.Exp(dt))
	trusted := o.haveVel && dt <= o.cfg.MaxGap
	m, v := o.solve(guess, v, dt, scanTime, trusted)
	if m.ok && o.key.refine && o.rel == (Pose2{}) {
		// The keyframe is the previous scan, de-skewed with a velocity extrapolated from before it (or,
		// for the first scan, with the gyro or nothing). Now the motion on both sides of it is known:
		// de-skew it again with their mean and match once more.
		o.key.refine = false
		vk := Log(m.pose, dt)
		if o.key.havePrev {
			p := o.key.prevVel
			vk = Twist{(vk.Vx + p.Vx) / 2, (vk.Vy + p.Vy) / 2, (vk.W + p.W) / 2}
		}
		kv := o.key.vel
		if (math.Hypot(vk.Vx-kv.Vx, vk.Vy-kv.Vy)+math.Abs(vk.W-kv.W)*m.lever)*o.key.scanTime > 3e-4 {
			o.deskew(&o.next, o.key.rng, vk, o.key.scanTime)
			o.setKeyframe(&o.next, o.key.rng, o.key.scanTime, vk)
			if m2, v2 := o.solve(m.pose, v, dt, scanTime, trusted); m2.ok { // (its first pass is cold: the keyframe changed)
				m, v = m2, v2
			}
		}
	}
	o.last, o.lastRef = s.Stamp, ref
	if m.ok && float64(m.used) < o.cfg.MinOverlap*float64(valid) {
		m.ok = false
	}
	if !m.ok {
		// The keyframe no longer overlaps: start again from this scan at the predicted pose.
		o.keyPose = o.keyPose.Compose(guess)
		o.rel = Pose2{}
		o.setKeyframe(&o.cur, o.rng, scanTime, v)
		need := max(o.cfg.MinPoints, int(math.Ceil(o.cfg.MinOverlap*float64(valid))))
		return Estimate{}, &ScanError{"correspondences with the keyframe", m.used, need}
	}
	delta := o.rel.Between(m.pose)
	e := Estimate{Stamp: s.Stamp, Time: ref, Delta: delta, Velocity: Log(delta, dt), Valid: valid, Used: m.used, RMS: m.rms,
		Iterations: m.iters, Cov: m.cov, Degenerate: m.degenerate, Info: m.info, Lever: m.lever}
	// Weak directions: from the keyframe frame into the current base frame.
	c, sn := math.Cos(m.pose.Yaw), math.Sin(m.pose.Yaw)
	rot := func(v [3]float64) [3]float64 { return [3]float64{c*v[0] + sn*v[1], -sn*v[0] + c*v[1], v[2]} }
	e.Weak = rot(m.weak[0])
	e.weakDims = m.degenerateDims
	if m.degenerateDims > 1 {
		e.weak2 = rot(m.weak[1])
	}
	e.Cov = rotCov(m.cov, -m.pose.Yaw)
	o.vel, o.haveVel = e.Velocity, true
	o.rel = m.pose
	e.Pose = o.keyPose.Compose(o.rel)
	overlap := float64(m.used) / float64(valid)
	if math.Hypot(o.rel.X, o.rel.Y) > o.cfg.KeyframeDistance || math.Abs(o.rel.Yaw) > o.cfg.KeyframeYaw ||
		overlap < o.cfg.KeyframeOverlap {
		if o.setKeyframe(&o.cur, o.rng, scanTime, v) >= o.cfg.MinPoints {
			o.key.prevVel, o.key.havePrev = e.Velocity, true
			o.keyPose, o.rel = e.Pose, Pose2{}
			e.Keyframe = true
		}
	}
	return e, nil
}

// solve de-skews the current scan with v, matches it from guess, and repeats with the velocity the match
// implies until that no longer changes the de-skew (at most three times). It returns the match and the
// de-skew velocity of the last pass.
func (o *Odometry) solve(guess Pose2, v Twist, dt, scanTime float64, trusted bool) (match, Twist) {
	var m match
	for pass := 0; pass < 3; pass++ {
		o.deskew(&o.cur, o.rng, v, scanTime)
		m = o.match(guess, pass > 0)
		if !m.ok {
			break
		}
		// The sweep is centred on this scan's Time, but the measured velocity is the mean since the
		// previous scan's, 0.5 x dt earlier: extrapolate it by half a step with the previous mean.
		vNew := Log(o.rel.Between(m.pose), dt)
		if trusted {
			vNew = Twist{1.5*vNew.Vx - 0.5*o.vel.Vx, 1.5*vNew.Vy - 0.5*o.vel.Vy, 1.5*vNew.W - 0.5*o.vel.W}
		}
		// De-skew again while the velocity moves a ray at the end of the sweep by more than ~0.3 mm.
		dv := math.Hypot(vNew.Vx-v.Vx, vNew.Vy-v.Vy) + math.Abs(vNew.W-v.W)*m.lever
		if dv*scanTime < 6e-4 {
			break
		}
		v, guess = vNew, m.pose
	}
	return m, v
}

// rotCov expresses a covariance of (x, y, yaw) in a frame rotated by a.
func rotCov(cv [3][3]float64, a float64) [3][3]float64 {
	c, s := math.Cos(a), math.Sin(a)
	r := [3][3]float64{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
	var t, out [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				t[i][j] += r[i][k] * cv[k][j]
			}
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				out[i][j] += t[i][k] * r[j][k]
			}
		}
	}
	return out
}

// load copies the usable ranges and returns how many bins are valid.
func (o *Odometry) load(s coind6.Scan) int {
	lo, hi := float64(s.RangeMin), float64(s.RangeMax)
	if o.cfg.RangeMin > lo {
		lo = o.cfg.RangeMin
	}
	if o.cfg.RangeMax > 0 && (o.cfg.RangeMax < hi || !finite(hi)) {
		hi = o.cfg.RangeMax
	}
	if !(lo >= 0) || !finite(hi) || !(hi > lo) {
		lo, hi = 1, 0 // unusable limits: nothing is valid
	}
	n := 0
	for i, r32 := range s.Ranges {
		r := float64(r32)
		if o.masked[i] || !(r >= lo && r <= hi) || r <= 0 {
			o.rng[i] = 0
			continue
		}
		o.rng[i] = r
		n++
	}
	return n
}

// deskew places this scan's rays in the base frame at mid-sweep, moving each by the constant twist v over
// its time after Stamp (KISS-ICP's motion compensation, on SE(2)).
func (o *Odometry) deskew(c *cloud, rng []float64, v Twist, scanTime float64) {
	c.idx = c.idx[:0]
	for i, r := range rng {
		if r == 0 {
			c.ok[i] = false
			continue
		}
		bx, by := o.cfg.Mount.X+r*o.cosB[i], o.cfg.Mount.Y+r*o.sinB[i]
		if scanTime > 0 {
			bx, by = v.Exp((o.frac[i]-0.5)*scanTime).Apply(bx, by)
		}
		c.x[i], c.y[i], c.ok[i] = bx, by, true
		c.idx = append(c.idx, int32(i))
	}
}

// setKeyframe makes c the keyframe: a line through each point's bin neighbours and the bearing lookup.
// It keeps the ranges, sweep time and de-skew velocity so that the next scan can de-skew it again. It
// returns the number of points with a line.
func (o *Odometry) setKeyframe(c *cloud, rng []float64, scanTime float64, v Twist) int {
	k := &o.key
	if &k.rng[0] != &rng[0] {
		copy(k.rng, rng)
	}
	k.scanTime, k.vel, k.refine, k.havePrev = scanTime, v, true, false
	copy(k.x, c.x)
	copy(k.y, c.y)
	copy(k.ok, c.ok)
	k.idx = append(k.idx[:0], c.idx...)
	for i := range k.cell {
		k.cell[i] = -1
	}
	n, kb := o.cfg.Bins, o.cfg.NormalBins
	r2 := o.cfg.NormalRadius * o.cfg.NormalRadius
	thick2 := o.cfg.LineThickness * o.cfg.LineThickness
	k.lines = 0
	for _, i32 := range k.idx {
		i := int(i32)
		k.line[i] = false
		var sx, sy, sxx, sxy, syy, m float64
		for d := -kb; d <= kb; d++ {
			j := (i + d + n) % n
			if !k.ok[j] {
				continue
			}
			dx, dy := k.x[j]-k.x[i], k.y[j]-k.y[i]
			if dx*dx+dy*dy > r2 {
				continue
			}
			sx, sy, sxx, sxy, syy, m = sx+dx, sy+dy, sxx+dx*dx, sxy+dx*dy, syy+dy*dy, m+1
		}
		if m < 3 {
			continue
		}
		mx, my := sx/m, sy/m
		a, b, cc := sxx/m-mx*mx, sxy/m-mx*my, syy/m-my*my
		half := (a - cc) / 2
		lmin := (a+cc)/2 - math.Sqrt(half*half+b*b)
		if lmin > thick2 {
			continue
		}
		th := 0.5 * math.Atan2(2*b, a-cc) // the line's direction
		k.nx[i], k.ny[i] = -math.Sin(th), math.Cos(th)
		k.cx[i], k.cy[i] = k.x[i]+mx, k.y[i]+my
		k.line[i] = true
		k.lines++
		cell := o.cellOf(k.x[i], k.y[i])
		for _, cnd := range [3]int{cell, (cell + 1) % (2 * n), (cell + 2*n - 1) % (2 * n)} {
			if k.cell[cnd] < 0 {
				k.cell[cnd] = int32(i)
				break
			}
		}
	}
	return k.lines
}

// cellOf returns the bearing cell of a keyframe-frame point seen from the LiDAR.
func (o *Odometry) cellOf(x, y float64) int {
	nc := 2 * o.cfg.Bins
	a := math.Atan2(y-o.cfg.Mount.Y, x-o.cfg.Mount.X)
	c := int(math.Floor((a + math.Pi) / (2 * math.Pi) * float64(nc)))
	if c < 0 || c >= nc {
		c = ((c % nc) + nc) % nc
	}
	return c
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
	finalSteps := 0
	for it := 0; it < cfg.MaxIterations; it++ {
		if it > 0 {
			gate = math.Max(cfg.ResidualGate, gate/3.4)
		}
		// Once the first steps have removed the guess's error a point moves by far less than a bin per
		// step, so the later steps look only at the cells next to the point's own.
		win := wide
		if warm || it >= 2 {
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
			if an > cfg.Huber {
				w *= cfg.Huber / an
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
