package scanmatch

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// The gyro stream (AddGyro): a ring of the newest samples, rates linear between them.
const (
	gyroCap = 512 // samples kept: 4.6 s at the board's 110 Hz, more than MaxGap plus a sweep
	// gyroMaxGap: a sweep or pair is integrated from the gyro only if no two samples around it are farther
	// apart than this (s), nor its ends farther than this from a sample; otherwise the scan falls back to
	// the constant-velocity de-skew (and Aux). The board sends every 9 ms.
	gyroMaxGap = 0.03
	// gyroBiasTau: the still-robot bias estimate averages over this much still time (s), then forgets.
	gyroBiasTau = 20.0
	// A pair is "still" for the bias estimate when the match reads under these (rad/s, m/s).
	gyroStillRate, gyroStillSpeed = 0.02, 0.01
	// gyroMaxDisagree: a pair whose gyro yaw differs from the match's by more than this rate (rad/s, after
	// the bias so far; at least gyroMinDisagree rad, 10 x the match's yaw noise) is matched again without
	// the gyro and not used for the bias (a scale error, a stuck gyro, a gyro that is not this robot's).
	gyroMaxDisagree = 0.1
	gyroMinDisagree = 0.005
)

// ErrGyro: a gyro sample was refused (not finite, beyond 20 rad/s, or not after the previous sample).
var ErrGyro = errors.New("scanmatch: gyro sample refused")

type gyroRing struct {
	epoch time.Time
	t, w  [gyroCap]float64 // s since epoch, rad/s
	head  int              // index of the oldest
	n     int
}

func (g *gyroRing) at(i int) (float64, float64) {
	j := (g.head + i) % gyroCap
	return g.t[j], g.w[j]
}

// AddGyro feeds one gyro sample: the yaw rate wz (rad/s, counter-clockwise, the IMU's z) at t, on the
// scans' clock (the Stamp's). Samples come in time order; Add uses those around each scan for two things
// only: the yaw of the first guess (the rate integrated from the previous scan's Time to this one's) and
// the yaw of every ray's de-skew (integrated across the sweep to the ray's time), while the translation
// is still de-skewed with the constant velocity. The cost has no gyro term: the match decides the pose.
// A scan whose sweep or pair the samples do not cover (a gap over 30 ms) is handled as without a gyro.
// A constant bias is estimated while the match and the gyro both say the robot is still (GyroBias). It
// makes no allocations.
func (o *Odometry) AddGyro(t time.Time, wz float64) error {
	g := &o.gyro
	if !finite(wz) || math.Abs(wz) > 20 {
		return fmt.Errorf("%w: rate %v", ErrGyro, wz)
	}
	if g.n == 0 {
		g.epoch = t
	}
	ts := t.Sub(g.epoch).Seconds()
	if g.n > 0 {
		if last, _ := g.at(g.n - 1); !(ts > last) {
			return fmt.Errorf("%w: time %v not after the previous sample", ErrGyro, t)
		}
	}
	j := (g.head + g.n) % gyroCap
	if g.n == gyroCap {
		g.head = (g.head + 1) % gyroCap
	} else {
		g.n++
	}
	g.t[j], g.w[j] = ts, wz
	return nil
}

// GyroRejected returns how many scans were matched again without the gyro because it disagreed with the
// match by more than 0.1 rad/s over the pair.
func (o *Odometry) GyroRejected() int { return o.gyroRejected }

// GyroBias returns the gyro bias (rad/s) the odometry subtracts, estimated while still; 0 before.
func (o *Odometry) GyroBias() float64 { return o.gyroBias }

// gyroCovers reports whether the samples cover [a, b] (s since the ring's epoch) without a gap over
// gyroMaxGap.
func (o *Odometry) gyroCovers(a, b float64) bool {
	g := &o.gyro
	if g.n == 0 {
		return false
	}
	first, _ := g.at(0)
	last, _ := g.at(g.n - 1)
	if first > a+gyroMaxGap || last < b-gyroMaxGap {
		return false
	}
	prev := math.Inf(-1)
	for i := 0; i < g.n; i++ {
		ti, _ := g.at(i)
		if ti <= a {
			prev = ti
			continue
		}
		if ti-math.Max(prev, a) > gyroMaxGap { // (a itself when no sample is before it)
			return false
		}
		if ti >= b {
			return true
		}
		prev = ti
	}
	return b-prev <= gyroMaxGap
}

// gyroCum sets out[j] to the integral of (rate - bias) from ts[0] to ts[j] (ts ascending, s since the
// ring's epoch): the rate linear between samples, held before the first and after the last.
func (o *Odometry) gyroCum(ts, out []float64) {
	g := &o.gyro
	i := 0
	for i < g.n {
		if ti, _ := g.at(i); ti > ts[0] {
			break
		}
		i++
	}
	// rate at time t, with samples i-1 <= t < i.
	rate := func(i int, t float64) float64 {
		switch {
		case i == 0:
			_, w := g.at(0)
			return w
		case i >= g.n:
			_, w := g.at(g.n - 1)
			return w
		}
		t0, w0 := g.at(i - 1)
		t1, w1 := g.at(i)
		return w0 + (w1-w0)*(t-t0)/(t1-t0)
	}
	cur, wcur, acc := ts[0], rate(i, ts[0]), 0.0
	for j, tj := range ts {
		for i < g.n {
			ti, wi := g.at(i)
			if ti > tj {
				break
			}
			acc += (wcur + wi) / 2 * (ti - cur)
			cur, wcur = ti, wi
			i++
		}
		out[j] = acc + (wcur+rate(i, tj))/2*(tj-cur) - o.gyroBias*(tj-ts[0])
	}
}

// gyroSweep fills o.beamYaw (per bin: the base's yaw at the ray's time relative to mid-sweep) for a sweep
// starting at stamp, if the gyro covers it.
func (o *Odometry) gyroSweep(stamp time.Time, scanTime float64) bool {
	if o.gyro.n == 0 || !(scanTime > 0) {
		return false
	}
	n := o.cfg.Bins
	t0 := stamp.Sub(o.gyro.epoch).Seconds()
	if !o.gyroCovers(t0, t0+scanTime) {
		return false
	}
	for j := 0; j < n; j++ {
		o.slotT[j] = t0 + float64(j)/float64(n)*scanTime
	}
	o.gyroCum(o.slotT, o.slotYaw)
	tt, yy := [2]float64{t0, t0 + scanTime/2}, [2]float64{}
	o.gyroCum(tt[:], yy[:])
	mid := yy[1]
	for i := 0; i < n; i++ {
		o.beamYaw[i] = o.slotYaw[o.slot[i]] - mid
	}
	return true
}

// gyroPair returns the yaw the gyro integrates from a to b (scans' clock), if it covers them.
func (o *Odometry) gyroPair(a, b time.Time) (float64, bool) {
	if o.gyro.n == 0 {
		return 0, false
	}
	ta, tb := a.Sub(o.gyro.epoch).Seconds(), b.Sub(o.gyro.epoch).Seconds()
	if !(tb > ta) || !o.gyroCovers(ta, tb) {
		return 0, false
	}
	tt, yy := [2]float64{ta, tb}, [2]float64{}
	o.gyroCum(tt[:], yy[:])
	return yy[1], true
}

// gyroLearnBias updates the bias estimate from a pair the match and the gyro both call still: the
// gyro's integral minus the matched yaw, over the still time so far (up to gyroBiasTau, then a moving
// average). The matched yaw's errors are pose errors against the keyframe, so over a still stretch they
// telescope and the estimate's error falls as one over the time.
func (o *Odometry) gyroLearnBias(gyroYaw, matchYaw float64, v Twist, dt float64) {
	if math.Abs(v.W) > gyroStillRate || math.Hypot(v.Vx, v.Vy) > gyroStillSpeed || math.Abs(gyroYaw/dt) > gyroMaxDisagree {
		return
	}
	o.gyroStill = math.Min(o.gyroStill+dt, gyroBiasTau)
	o.gyroBias += (gyroYaw - matchYaw) / o.gyroStill
}
