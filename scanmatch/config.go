package scanmatch

import (
	"fmt"
	"math"
)

// Sector is a range of base-frame bearings in degrees (0 = forward, counter-clockwise), From to To going
// counter-clockwise; it may wrap through 180.
type Sector struct{ FromDeg, ToDeg float64 }

func (s Sector) contains(deg float64) bool {
	a := math.Mod(deg-s.FromDeg, 360)
	if a < 0 {
		a += 360
	}
	w := math.Mod(s.ToDeg-s.FromDeg, 360)
	if w < 0 {
		w += 360
	}
	return a <= w
}

// Config describes the scanner and tunes the matcher. DefaultConfig is the robot's COIN-D6; the zero value
// is not usable.
type Config struct {
	// The scanner: bin i is a ray at AngleMin + i*AngleIncrement (radians, counter-clockwise) in the LiDAR
	// frame, and the LiDAR frame sits at Mount in the base frame.
	Bins           int
	AngleMin       float64
	AngleIncrement float64
	Mount          Pose2
	// SweepReversed: the rays of a revolution are taken in decreasing bin order, bin 0 first (the COIN-D6
	// turns clockwise and the driver flips its angles); false means increasing order from bin 0. A ray's
	// time is Stamp + its share of ScanTime; it is what de-skewing needs.
	SweepReversed bool
	// Mask lists base-frame bearings never used (the blind rear and the body's self-returns).
	Mask []Sector
	// RangeMin/RangeMax tighten the scan's own limits (the larger minimum and the smaller maximum win).
	RangeMin, RangeMax float64

	// Matching.
	MaxIterations  int     // Gauss-Newton steps per de-skew pass
	SearchBins     int     // projective association looks this many bins either side (at the fine step)
	MaxPointDist   float64 // m: a correspondence farther than this from its reference point is dropped
	ResidualGate   float64 // m: final point-to-line gate; it starts at MaxPointDist and halves each step
	Huber          float64 // m: Huber kernel width (about 2 x the range noise)
	MinIncidence   float64 // |cos| of the incidence below which a residual is weighed as at this value
	NormalBins     int     // a reference line is fitted to up to this many bins either side ...
	NormalRadius   float64 // m: ... that lie within this distance of the point
	LineThickness  float64 // m: RMS off-line spread above which a neighbourhood is a corner or clutter, not a line
	MinPoints      int     // correspondences below this: no match (an error)
	MinOverlap     float64 // 0..1: fewer of the valid points finding a correspondence: no match (an error)
	DegenerateInfo float64 // information per correspondence below this in some direction: degenerate

	// Keyframes: a new one after this much motion from the current one, or when fewer than KeyframeOverlap
	// of the scan's valid points find a correspondence.
	KeyframeDistance float64 // m
	KeyframeYaw      float64 // rad
	KeyframeOverlap  float64 // 0..1
	// DeskewDeadband: de-skew with each velocity component shrunk toward zero by this much (see deadband).
	DeskewDeadband Twist
	// MaxGap: after a gap longer than this (s) between scans the previous velocity is not trusted as a guess.
	MaxGap float64
}

// DefaultConfig returns the robot's COIN-D6 as the driver delivers it (coind6.DefaultScanConfig: 400 bins,
// clockwise native angles flipped, no offset) mounted as chapter 14 measured it: x +0.048 m, yaw pi (native
// 180 degrees = forward). The mask covers the 136 degree blind rear and the self-returns (base bearings 112
// to 248 degrees).
func DefaultConfig() Config {
	return Config{
		Bins:           400,
		AngleIncrement: 2 * math.Pi / 400,
		Mount:          Pose2{X: 0.048, Yaw: math.Pi},
		SweepReversed:  true,
		Mask:           []Sector{{112, 248}},

		MaxIterations:  15,
		SearchBins:     4,
		MaxPointDist:   0.3,
		ResidualGate:   0.03,
		Huber:          0.018,
		MinIncidence:   0.3,
		NormalBins:     5,
		NormalRadius:   0.15,
		LineThickness:  0.012,
		MinPoints:      40,
		MinOverlap:     0.3,
		DegenerateInfo: 0.03,

		KeyframeDistance: 0.2,
		KeyframeYaw:      0.6,
		KeyframeOverlap:  0.7,
		DeskewDeadband:   Twist{0.02, 0.02, 0.02},
		MaxGap:           0.5,
	}
}

// ConfigError says which field of a Config is unusable.
type ConfigError struct {
	Field string
	Value any
	Want  string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("scanmatch: config %s = %v: want %s", e.Field, e.Value, e.Want)
}

func (c Config) validate() error {
	pos := func(name string, v float64) error {
		if !finite(v) || v <= 0 {
			return &ConfigError{name, v, "a finite value > 0"}
		}
		return nil
	}
	if c.Bins < 8 || c.Bins > 1<<16 {
		return &ConfigError{"Bins", c.Bins, "8..65536"}
	}
	if !finite(c.AngleMin) || !finite(c.AngleIncrement) || c.AngleIncrement == 0 ||
		math.Abs(c.AngleIncrement)*float64(c.Bins) > 2*math.Pi+1e-9 {
		return &ConfigError{"AngleIncrement", c.AngleIncrement, "non-zero, Bins x |AngleIncrement| <= 2 pi"}
	}
	if !finite(c.Mount.X) || !finite(c.Mount.Y) || !finite(c.Mount.Yaw) {
		return &ConfigError{"Mount", c.Mount, "finite"}
	}
	for _, s := range c.Mask {
		if !finite(s.FromDeg) || !finite(s.ToDeg) {
			return &ConfigError{"Mask", s, "finite degrees"}
		}
	}
	if !finite(c.RangeMin) || !finite(c.RangeMax) || c.RangeMin < 0 || c.RangeMax < 0 {
		return &ConfigError{"RangeMin/RangeMax", [2]float64{c.RangeMin, c.RangeMax}, "finite, >= 0 (0 = the scan's)"}
	}
	if c.MaxIterations < 1 || c.MaxIterations > 1000 {
		return &ConfigError{"MaxIterations", c.MaxIterations, "1..1000"}
	}
	if c.SearchBins < 1 || c.SearchBins > c.Bins/4 {
		return &ConfigError{"SearchBins", c.SearchBins, "1..Bins/4"}
	}
	if c.NormalBins < 1 || c.NormalBins > c.Bins/4 {
		return &ConfigError{"NormalBins", c.NormalBins, "1..Bins/4"}
	}
	if c.MinPoints < 3 {
		return &ConfigError{"MinPoints", c.MinPoints, ">= 3"}
	}
	for _, f := range []struct {
		n string
		v float64
	}{{"MaxPointDist", c.MaxPointDist}, {"ResidualGate", c.ResidualGate}, {"Huber", c.Huber}, {"MinIncidence", c.MinIncidence},
		{"NormalRadius", c.NormalRadius}, {"LineThickness", c.LineThickness}, {"DegenerateInfo", c.DegenerateInfo},
		{"KeyframeDistance", c.KeyframeDistance}, {"KeyframeYaw", c.KeyframeYaw}, {"MaxGap", c.MaxGap}} {
		if err := pos(f.n, f.v); err != nil {
			return err
		}
	}
	if d := c.DeskewDeadband; !(d.Vx >= 0 && d.Vy >= 0 && d.W >= 0) || !finite(d.Vx) || !finite(d.Vy) || !finite(d.W) {
		return &ConfigError{"DeskewDeadband", d, "finite, >= 0"}
	}
	if !(c.MinOverlap >= 0 && c.MinOverlap <= 1) {
		return &ConfigError{"MinOverlap", c.MinOverlap, "0..1"}
	}
	if !(c.KeyframeOverlap >= 0 && c.KeyframeOverlap <= 1) {
		return &ConfigError{"KeyframeOverlap", c.KeyframeOverlap, "0..1"}
	}
	return nil
}
