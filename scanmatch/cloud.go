package scanmatch

import (
	"math"

	"github.com/rosorin/rosorin/protocol/coind6"
)

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
	yaw      []float64 // its rays' yaw from the gyro, when gyro
	gyro     bool
	scanTime float64
	vel      Twist // the velocity it was de-skewed with
	prevVel  Twist // the mean velocity over the interval before it
	havePrev bool
	refine   bool // not yet de-skewed again with the motion after it
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
// its time after Stamp (KISS-ICP's motion compensation, on SE(2)). With yaw (per bin, the base's yaw at
// the ray's time relative to mid-sweep, from the gyro) the ray's rotation is the gyro's and its
// translation the arc of v's linear part that turns by that yaw.
func (o *Odometry) deskew(c *cloud, rng []float64, v Twist, scanTime float64, yaw []float64) {
	c.idx = c.idx[:0]
	for i, r := range rng {
		if r == 0 {
			c.ok[i] = false
			continue
		}
		bx, by := o.cfg.Mount.X+r*o.cosB[i], o.cfg.Mount.Y+r*o.sinB[i]
		if scanTime > 0 {
			tau := (o.frac[i] - 0.5) * scanTime
			if yaw != nil {
				w := 0.0
				if tau != 0 {
					w = yaw[i] / tau
				}
				bx, by = Twist{v.Vx, v.Vy, w}.Exp(tau).Apply(bx, by)
			} else {
				bx, by = v.Exp(tau).Apply(bx, by)
			}
		}
		c.x[i], c.y[i], c.ok[i] = bx, by, true
		c.idx = append(c.idx, int32(i))
	}
}

// setKeyframe makes c the keyframe: a line through each point's bin neighbours and the bearing lookup.
// It keeps the ranges, sweep time and de-skew velocity so that the next scan can de-skew it again. It
// returns the number of points with a line.
func (o *Odometry) setKeyframe(c *cloud, rng []float64, scanTime float64, v Twist, yaw []float64) int {
	k := &o.key
	if &k.rng[0] != &rng[0] {
		copy(k.rng, rng)
	}
	k.gyro = yaw != nil
	if k.gyro && &k.yaw[0] != &yaw[0] {
		copy(k.yaw, yaw)
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
