package odometry

import (
	"encoding/json"
	"fmt"
	"math"
)

// Beam is one LiDAR bin in the robot's base frame (x forward, y left).
type Beam struct {
	Bearing float64 // rad, counter-clockwise from forward, in (-pi, pi]
	Range   float64 // m from the base origin; NaN without a valid return
	X, Y    float64 // the return's position (m); NaN without one
	Valid   bool    // a return inside the scan's range limits, outside the blind sector
}

// Mount is where the LiDAR sits in the base frame: chapter 14's x +0.048 m, yaw pi (native 180 degrees =
// forward), with the driver's flip of the clockwise native angles already applied to the bins.
type Mount struct{ X, Y, Yaw float64 }

// DefaultMount is the robot's.
var DefaultMount = Mount{X: 0.048, Yaw: math.Pi}

// BlindFromDeg and BlindToDeg bound the base bearings the LiDAR cannot see (the 136 degree blind rear with
// the self-returns at its edges, scanmatch's DefaultConfig mask): beams there are never valid.
const (
	BlindFromDeg = 112.0
	BlindToDeg   = 248.0
)

// BaseBeams converts a scan's bins (bin i at angleMin + i*inc in the LiDAR frame, ranges in m, +Inf or NaN
// for no return) to beams in the base frame.
func BaseBeams(ranges []float32, angleMin, inc, rangeMin, rangeMax float64, m Mount) []Beam {
	out := make([]Beam, len(ranges))
	for i, r := range ranges {
		a := angleMin + float64(i)*inc + m.Yaw
		b := Beam{Range: math.NaN(), X: math.NaN(), Y: math.NaN()}
		rr := float64(r)
		lx, ly := m.X+rr*math.Cos(a), m.Y+rr*math.Sin(a)
		// The bearing of the ray as seen from the base origin; for a ray without a return, its direction.
		if rr >= rangeMin && rr <= rangeMax {
			b.Bearing = math.Atan2(ly, lx)
		} else {
			b.Bearing = math.Atan2(math.Sin(a), math.Cos(a))
		}
		deg := b.Bearing * 180 / math.Pi
		if deg < 0 {
			deg += 360
		}
		blind := deg >= BlindFromDeg && deg <= BlindToDeg
		if !blind && rr >= rangeMin && rr <= rangeMax {
			b.Valid, b.X, b.Y, b.Range = true, lx, ly, math.Hypot(lx, ly)
		}
		out[i] = b
	}
	return out
}

// Corridor is the clearance check before a leg: the strip of half width HalfWidth along the direction of
// travel, how far it is free, and how much of the LiDAR's view down it returned.
type Corridor struct {
	DirDeg  float64 `json:"dir_deg"`   // direction of travel, base frame
	Nearest float64 `json:"nearest_m"` // distance along the strip to the nearest return in it (+Inf: none)
	Valid   int     `json:"valid"`     // beams within ViewDeg of the direction with a return
	Total   int     `json:"total"`     // beams within ViewDeg of the direction
	Share   float64 `json:"share"`
	OK      bool    `json:"ok"`
	Reason  string  `json:"reason,omitempty"`
}

// inStrip reports the distance along direction dir of a return inside the strip of half width hw, and
// whether it is inside (ahead of the base origin, within hw to either side).
func inStrip(b Beam, dir, hw float64) (float64, bool) {
	if !b.Valid {
		return 0, false
	}
	c, s := math.Cos(dir), math.Sin(dir)
	along, lat := b.X*c+b.Y*s, -b.X*s+b.Y*c
	return along, along > 0 && math.Abs(lat) <= hw
}

// CheckCorridor is the seed's check before a leg in direction dir (rad, base frame): no return inside the
// strip closer than Clear, and at least MinValid of the beams within ViewDeg of dir valid. A blind beam
// counts as not valid: the rear is never "clear".
func CheckCorridor(beams []Beam, dir float64, p Params) Corridor {
	c := Corridor{DirDeg: dir * 180 / math.Pi, Nearest: math.Inf(1)}
	view := p.ViewDeg * math.Pi / 180
	for _, b := range beams {
		if d := math.Abs(math.Remainder(b.Bearing-dir, 2*math.Pi)); d <= view {
			c.Total++
			if b.Valid {
				c.Valid++
			}
		}
		if along, in := inStrip(b, dir, p.HalfWidth); in && along < c.Nearest {
			c.Nearest = along
		}
	}
	if c.Total > 0 {
		c.Share = float64(c.Valid) / float64(c.Total)
	}
	c.OK = c.Nearest >= p.Clear && c.Total > 0 && c.Share >= p.MinValid
	if !c.OK {
		c.Reason = fmt.Sprintf("corridor ahead: nearest %s, valid beams %.0f %% (need %.1f m clear within %.2f m either side and %.0f %% valid)",
			metres(c.Nearest), 100*c.Share, p.Clear, p.HalfWidth, 100*p.MinValid)
	}
	return c
}

// Guard is the check on every scan while the robot moves: the nearest return within Guard in the direction
// of travel (inside the corridor's strip), or for a turn within HalfWidth of the base origin all round.
func Guard(beams []Beam, dir float64, turn bool, p Params) (nearest float64, hit bool) {
	nearest = math.Inf(1)
	for _, b := range beams {
		if !b.Valid {
			continue
		}
		if turn {
			nearest = math.Min(nearest, b.Range)
			continue
		}
		if along, in := inStrip(b, dir, p.HalfWidth); in {
			nearest = math.Min(nearest, along)
		}
	}
	if turn {
		return nearest, nearest <= p.HalfWidth
	}
	return nearest, nearest <= p.Guard
}

func metres(d float64) string {
	if math.IsInf(d, 1) {
		return "none"
	}
	return fmt.Sprintf("%.2f m", d)
}

// Bucket is one bearing bucket of `floor look`: the beams whose bearing is within half a bucket of Deg.
type Bucket struct {
	Deg     float64 `json:"deg"`
	Valid   int     `json:"valid"`
	Total   int     `json:"total"`
	Nearest float64 `json:"nearest_m"` // NaN: no valid return
}

// Coverage counts valid beams and the nearest return per bucket of width deg (30 in the seed), from -180.
func Coverage(beams []Beam, deg float64) []Bucket {
	n := int(math.Round(360 / deg))
	out := make([]Bucket, n)
	for i := range out {
		out[i] = Bucket{Deg: -180 + float64(i)*deg, Nearest: math.NaN()}
	}
	for _, b := range beams {
		d := b.Bearing * 180 / math.Pi
		i := int(math.Floor((d+180)/deg+0.5)) % n
		if i < 0 {
			i += n
		}
		if !b.Valid {
			// A blind beam is not part of the view at all: the seed's "valid 0/ 0" at -180.
			dd := d
			if dd < 0 {
				dd += 360
			}
			if dd >= BlindFromDeg && dd <= BlindToDeg {
				continue
			}
		}
		out[i].Total++
		if b.Valid {
			out[i].Valid++
			if math.IsNaN(out[i].Nearest) || b.Range < out[i].Nearest {
				out[i].Nearest = b.Range
			}
		}
	}
	return out
}

// MarshalJSON writes an unbounded Nearest as null.
func (c Corridor) MarshalJSON() ([]byte, error) {
	type alias Corridor
	return json.Marshal(struct {
		alias
		Nearest *float64 `json:"nearest_m"`
	}{alias(c), Num(c.Nearest)})
}

// MarshalJSON writes a bucket without returns' Nearest as null.
func (b Bucket) MarshalJSON() ([]byte, error) {
	type alias Bucket
	return json.Marshal(struct {
		alias
		Nearest *float64 `json:"nearest_m"`
	}{alias(b), Num(b.Nearest)})
}
