package scanmatch

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/rosorin/rosorin/protocol/coind6"
)

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

	// The gyro (AddGyro): its samples, the bias estimate, and this scan's per-bin yaw from it.
	gyro           gyroRing
	gyroBias       float64
	gyroStill      float64 // s of still pairs behind gyroBias (up to gyroBiasTau)
	gyroRejected   int     // scans matched again without the gyro (it disagreed with the match)
	beamYaw        []float64
	slot           []int32   // bin -> its ray's index in time order (frac x Bins)
	slotT, slotYaw []float64 // scratch: the sweep's ray times and their integrated yaw

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
		masked: make([]bool, n), rng: make([]float64, n), beamYaw: make([]float64, n), slot: make([]int32, n),
		slotT: make([]float64, n), slotYaw: make([]float64, n)}
	for i := 0; i < n; i++ {
		a := cfg.Mount.Yaw + cfg.AngleMin + float64(i)*cfg.AngleIncrement
		o.sinB[i], o.cosB[i] = math.Sincos(a)
		if cfg.SweepReversed {
			o.frac[i] = float64((n-i)%n) / float64(n)
			o.slot[i] = int32((n - i) % n)
		} else {
			o.frac[i] = float64(i) / float64(n)
			o.slot[i] = int32(i)
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
		ny: make([]float64, n), line: make([]bool, n), cell: make([]int32, 2*n), rng: make([]float64, n), yaw: make([]float64, n)}
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
	// The gyro, where its samples cover this sweep: the yaw of every ray's de-skew (nil: none).
	var gyaw []float64
	if o.gyroSweep(s.Stamp, scanTime) {
		gyaw = o.beamYaw
	}
	if !o.started {
		v := Twist{}
		if !math.IsNaN(yawRate) {
			v.W = yawRate
		}
		v = o.deadband(v)
		o.deskew(&o.cur, o.rng, v, scanTime, gyaw)
		if lines := o.setKeyframe(&o.cur, o.rng, scanTime, v, gyaw); lines < o.cfg.MinPoints {
			return Estimate{}, &ScanError{"line points in the first scan", lines, o.cfg.MinPoints}
		}
		o.started, o.last, o.lastRef, o.keyPose, o.rel, o.vel, o.haveVel = true, s.Stamp, ref, Pose2{}, Pose2{}, v, false
		return Estimate{Stamp: s.Stamp, Time: ref, Valid: valid, Keyframe: true, Gyro: gyaw != nil, Info: [3]float64{math.NaN(), math.NaN(), math.NaN()}}, nil
	}

	v := Twist{}
	if o.haveVel && dt <= o.cfg.MaxGap {
		v = o.vel
	}
	if !math.IsNaN(yawRate) {
		v.W = yawRate
	}
	v0 := v // the guess without the gyro
	gyroYaw, haveGyroYaw := o.gyroPair(o.lastRef, ref)
	if haveGyroYaw {
		v.W = gyroYaw / dt // the mean rate over the pair: the guess's yaw is the gyro's integral
	}
	guess := o.rel.Compose(v.Exp(dt))
	m, v := o.solve(guess, v, dt, scanTime, gyaw)
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
		vk = o.deadband(vk)
		kv := o.key.vel
		var kyaw []float64
		dw := math.Abs(vk.W - kv.W)
		if o.key.gyro {
			kyaw, dw = o.key.yaw, 0 // its rays' yaw is the gyro's
		}
		if (math.Hypot(vk.Vx-kv.Vx, vk.Vy-kv.Vy)+dw*m.lever)*o.key.scanTime > 3e-4 {
			o.deskew(&o.next, o.key.rng, vk, o.key.scanTime, kyaw)
			o.setKeyframe(&o.next, o.key.rng, o.key.scanTime, vk, kyaw)
			if m2, v2 := o.solve(m.pose, v, dt, scanTime, gyaw); m2.ok { // (its first pass is cold: the keyframe changed)
				m, v = m2, v2
			}
		}
	}
	if m.ok && gyaw != nil && haveGyroYaw && math.Abs(wrap(o.rel.Between(m.pose).Yaw-gyroYaw)) > math.Max(gyroMaxDisagree*dt, gyroMinDisagree) {
		// The gyro and the match disagree (a scale error, a stuck or foreign gyro): match again as without
		// it, the keyframe de-skewed without it too.
		if o.key.gyro {
			o.deskew(&o.next, o.key.rng, o.key.vel, o.key.scanTime, nil)
			o.setKeyframe(&o.next, o.key.rng, o.key.scanTime, o.key.vel, nil)
		}
		gyaw, haveGyroYaw = nil, false
		m, v = o.solve(o.rel.Compose(v0.Exp(dt)), v0, dt, scanTime, nil)
		o.gyroRejected++
	}
	o.last, o.lastRef = s.Stamp, ref
	if m.ok && float64(m.used) < o.cfg.MinOverlap*float64(valid) {
		m.ok = false
	}
	if !m.ok {
		// The keyframe no longer overlaps: start again from this scan at the predicted pose. The velocity
		// behind that prediction is not trusted any more: kept, a wrong one (from a burst of stamps) would
		// send every later guess as far off and fail them all.
		o.keyPose = o.keyPose.Compose(guess)
		o.rel = Pose2{}
		o.haveVel = false
		o.setKeyframe(&o.cur, o.rng, scanTime, v, gyaw)
		need := max(o.cfg.MinPoints, int(math.Ceil(o.cfg.MinOverlap*float64(valid))))
		return Estimate{}, &ScanError{"correspondences with the keyframe", m.used, need}
	}
	delta := o.rel.Between(m.pose)
	e := Estimate{Stamp: s.Stamp, Time: ref, Delta: delta, Velocity: Log(delta, dt), Valid: valid, Used: m.used, RMS: m.rms,
		Iterations: m.iters, Cov: m.cov, Degenerate: m.degenerate, Info: m.info, Lever: m.lever, Gyro: gyaw != nil}
	// Weak directions: from the keyframe frame into the current base frame.
	c, sn := math.Cos(m.pose.Yaw), math.Sin(m.pose.Yaw)
	rot := func(v [3]float64) [3]float64 { return [3]float64{c*v[0] + sn*v[1], -sn*v[0] + c*v[1], v[2]} }
	e.Weak = rot(m.weak[0])
	e.weakDims = m.degenerateDims
	if m.degenerateDims > 1 {
		e.weak2 = rot(m.weak[1])
	}
	e.Cov = rotCov(m.cov, -m.pose.Yaw)
	if haveGyroYaw && e.ObservableYaw() {
		o.gyroLearnBias(gyroYaw, delta.Yaw, e.Velocity, dt)
	}
	if dt >= minVelocityDt {
		o.vel, o.haveVel = e.Velocity, true
	}
	o.rel = m.pose
	e.Pose = o.keyPose.Compose(o.rel)
	overlap := float64(m.used) / float64(valid)
	if math.Hypot(o.rel.X, o.rel.Y) > o.cfg.KeyframeDistance || math.Abs(o.rel.Yaw) > o.cfg.KeyframeYaw ||
		overlap < o.cfg.KeyframeOverlap {
		if o.setKeyframe(&o.cur, o.rng, scanTime, v, gyaw) >= o.cfg.MinPoints {
			o.key.prevVel, o.key.havePrev = e.Velocity, true
			o.keyPose, o.rel = e.Pose, Pose2{}
			e.Keyframe = true
		}
	}
	return e, nil
}

// minVelocityDt: a pair of scans closer than this (s) in time gives no velocity guess for the next scan
// (the previous one stays). Their stamps come from the reads that held their starts; on a loaded host two
// starts can land in one read burst a few milliseconds apart, and a pose difference over 2 ms is the pose
// noise times 50 (a 1 mm error reads as 0.5 m/s).
const minVelocityDt = 0.03

// solve de-skews the current scan with v, matches it from guess, and repeats with the velocity the match
// implies until that no longer changes the de-skew (at most three times). It returns the match and the
// de-skew velocity of the last pass.
func (o *Odometry) solve(guess Pose2, v Twist, dt, scanTime float64, gyaw []float64) (match, Twist) {
	var m match
	v = o.deadband(v)
	for pass := 0; pass < 3; pass++ {
		o.deskew(&o.cur, o.rng, v, scanTime, gyaw)
		m = o.match(guess, pass > 0)
		if !m.ok {
			break
		}
		// The mean velocity since the previous scan's Time. It lags the sweep by half a step;
		// extrapolating it with the previous mean (1.5 v - 0.5 v_prev) amplified its noise by 1.6 and left
		// the pair p95 worse (2.16 against 2.11 mm), accelerating phases included.
		vNew := o.deadband(Log(o.rel.Between(m.pose), dt))
		// De-skew again while the velocity moves a ray at the end of the sweep by more than ~0.3 mm.
		dv := math.Hypot(vNew.Vx-v.Vx, vNew.Vy-v.Vy)
		if gyaw == nil { // (with the gyro the rays' yaw is its own)
			dv += math.Abs(vNew.W-v.W) * m.lever
		}
		if dv*scanTime < 6e-4 {
			break
		}
		v, guess = vNew, m.pose
	}
	return m, v
}

// deadband shrinks each component of a de-skew velocity toward zero by Config.DeskewDeadband. A velocity
// measured from two noisy scans is about 1 cm/s and 0.01 rad/s off; de-skewing a still robot's scan with
// that noise bent it enough to raise the pair error's p95 from 1.75 to 2.27 mm at one place in the room. A
// real motion is far above the band, and the shrink it suffers (at most the band) moves the rays at the
// sweep's ends by under 1 mm, both ways, which leaves the mid-sweep pose alone.
func (o *Odometry) deadband(v Twist) Twist {
	shrink := func(x, b float64) float64 {
		switch {
		case x > b:
			return x - b
		case x < -b:
			return x + b
		}
		return 0
	}
	d := o.cfg.DeskewDeadband
	return Twist{shrink(v.Vx, d.Vx), shrink(v.Vy, d.Vy), shrink(v.W, d.W)}
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
