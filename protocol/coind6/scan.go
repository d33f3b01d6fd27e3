package coind6

import (
	"math"
	"time"
)

// DefaultBins is the number of angle bins of a scan: 0.9 degrees each, matching the measured ~401 samples per
// revolution (16 packets of 25 plus the revolution-start packet's one).
const DefaultBins = 400

// ScanConfig says how a revolution becomes a scan.
type ScanConfig struct {
	Bins      int     // angle bins over 360 degrees
	Clockwise bool    // native angles run clockwise: negate them (ROS angles grow counter-clockwise)
	OffsetDeg float64 // added after the flip
	RangeMin  float64 // metres; 0.12 hides the self-returns (at most 106 mm)
	RangeMax  float64 // metres; the longest return seen on the robot was 7.94 m
}

// DefaultScanConfig returns the robot's configuration: 400 bins, clockwise, no offset, 0.12 to 8.0 m.
func DefaultScanConfig() ScanConfig {
	return ScanConfig{Bins: DefaultBins, Clockwise: true, RangeMin: 0.12, RangeMax: 8.0}
}

// Scan is one revolution. Bin i covers the angle i*360/Bins degrees (after flip and offset). Ranges hold the
// nearest return of each bin in metres, +Inf where nothing came back. Like a ROS LaserScan, returns outside
// [RangeMin, RangeMax] stay in the data and consumers ignore them.
type Scan struct {
	Stamp       time.Time     // time of the first ray: the arrival of the revolution-start packet
	ScanTime    time.Duration // from this revolution's start to the next one's
	Ranges      []float32
	Intensities []float32
	RangeMin    float32
	RangeMax    float32
	Samples     int // samples in the revolution, including those without a return
}

// IsValid reports whether bin i holds a return within the range limits.
func (s Scan) IsValid(i int) bool {
	r := s.Ranges[i]
	return r >= s.RangeMin && r <= s.RangeMax
}

// ValidCount returns the number of bins with a return within the range limits.
func (s Scan) ValidCount() int {
	n := 0
	for i := range s.Ranges {
		if s.IsValid(i) {
			n++
		}
	}
	return n
}

// ValidFraction returns ValidCount / bins (about 0.61 on the robot in its room).
func (s Scan) ValidFraction() float64 {
	if len(s.Ranges) == 0 {
		return 0
	}
	return float64(s.ValidCount()) / float64(len(s.Ranges))
}

// AngleRad returns the angle of bin i in radians.
func (s Scan) AngleRad(i int) float64 { return 2 * math.Pi * float64(i) / float64(len(s.Ranges)) }

// Assembler bins the packets of one revolution as they arrive and hands out the scan when the next revolution
// starts (a revolution is complete only then). Packets before the first revolution start are dropped.
type Assembler struct {
	cfg     ScanConfig
	cur     *Scan
	scratch []Point
}

// NewAssembler returns an assembler; a zero Bins means DefaultBins.
func NewAssembler(cfg ScanConfig) *Assembler {
	if cfg.Bins <= 0 {
		cfg.Bins = DefaultBins
	}
	return &Assembler{cfg: cfg}
}

// Config returns the assembler's configuration.
func (a *Assembler) Config() ScanConfig { return a.cfg }

// Reset drops the revolution in progress (after a reopen or a gap).
func (a *Assembler) Reset() { a.cur = nil }

// Add adds one packet that arrived at now. When p starts a revolution and one was in progress, that finished
// revolution is returned with ok true; its ScanTime is now minus its start.
func (a *Assembler) Add(p Packet, now time.Time) (done Scan, ok bool) {
	if p.RingStart() {
		if a.cur != nil {
			done, ok = *a.cur, true
			done.ScanTime = now.Sub(done.Stamp)
		}
		a.cur = a.newScan(now)
	}
	if a.cur == nil {
		return done, ok
	}
	a.scratch = p.AppendPoints(a.scratch[:0])
	for _, pt := range a.scratch {
		a.bin(pt)
	}
	return done, ok
}

func (a *Assembler) newScan(now time.Time) *Scan {
	s := &Scan{Stamp: now, Ranges: make([]float32, a.cfg.Bins), Intensities: make([]float32, a.cfg.Bins),
		RangeMin: float32(a.cfg.RangeMin), RangeMax: float32(a.cfg.RangeMax)}
	inf := float32(math.Inf(1))
	for i := range s.Ranges {
		s.Ranges[i] = inf
	}
	return s
}

// bin puts one point into its bin: distance 0 is no return, and the nearer return wins a bin.
func (a *Assembler) bin(pt Point) {
	a.cur.Samples++
	if pt.DistMM == 0 {
		return
	}
	ang := pt.AngleDeg
	if a.cfg.Clockwise {
		ang = -ang
	}
	ang = math.Mod(ang+a.cfg.OffsetDeg, 360)
	if math.IsNaN(ang) { // non-finite OffsetDeg: no bin, rather than int(NaN) as an index (a panic on amd64)
		return
	}
	if ang < 0 {
		ang += 360
	}
	n := a.cfg.Bins
	b := int(math.Round(ang/360*float64(n))) % n
	r := float32(pt.DistMM) / 1000
	if r < a.cur.Ranges[b] {
		a.cur.Ranges[b] = r
		a.cur.Intensities[b] = float32(pt.Intensity)
	}
}
