package coind6

import (
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 9, 26, 23, 54, 0, 0, time.UTC)

// at returns a packet with one sample at native angle deg.
func at(deg float64, mm uint16, intensity uint8) Packet {
	return Packet{FSA: DegToRaw(deg), LSA: DegToRaw(deg), Samples: []Sample{{Intensity: intensity, DistMM: mm}}}
}

// ringAt is a revolution-start packet with one sample of no return at native angle deg.
func ringAt(deg float64) Packet {
	p := at(deg, 0, 0x4c)
	p.CT = ringStartCT
	return p
}

// oneScan feeds a ring start, the packets, and the next ring start 100 ms later, and returns the finished scan.
func oneScan(t *testing.T, cfg ScanConfig, pkts ...Packet) Scan {
	t.Helper()
	a := NewAssembler(cfg)
	if _, ok := a.Add(ringAt(358.953125), t0); ok {
		t.Fatal("a scan before any revolution")
	}
	for i, p := range pkts {
		if _, ok := a.Add(p, t0.Add(time.Duration(i+1)*time.Millisecond)); ok {
			t.Fatal("a scan finished by a packet that does not start a revolution")
		}
	}
	s, ok := a.Add(ringAt(358.953125), t0.Add(100*time.Millisecond))
	if !ok {
		t.Fatal("no scan when the next revolution started")
	}
	return s
}

// finite returns the bins that hold a return.
func finite(s Scan) map[int]float32 {
	m := map[int]float32{}
	for i, r := range s.Ranges {
		if !math.IsInf(float64(r), 1) {
			m[i] = r
		}
	}
	return m
}

func noFlip() ScanConfig { c := DefaultScanConfig(); c.Clockwise = false; return c }

func TestDefaultScanConfig(t *testing.T) {
	c := DefaultScanConfig()
	if c.Bins != 400 || !c.Clockwise || c.OffsetDeg != 0 || c.RangeMin != 0.12 || c.RangeMax != 8.0 {
		t.Fatalf("%+v", c)
	}
	if NewAssembler(ScanConfig{}).Config().Bins != DefaultBins {
		t.Fatal("zero Bins does not default to 400")
	}
}

func TestAssemblerBinsAndNearestWins(t *testing.T) {
	// Native 9.0 and 9.3 degrees are both bin 10 (0.9 degrees per bin, rounded); the nearer return wins
	// whatever the order, and brings its intensity.
	for _, order := range [][]Packet{
		{at(9.0, 2000, 10), at(9.3, 1500, 20)},
		{at(9.3, 1500, 20), at(9.0, 2000, 10)},
	} {
		s := oneScan(t, noFlip(), order...)
		if len(s.Ranges) != 400 || len(s.Intensities) != 400 {
			t.Fatalf("%d bins", len(s.Ranges))
		}
		if f := finite(s); len(f) != 1 || f[10] != 1.5 || s.Intensities[10] != 20 {
			t.Fatalf("bins %v, intensity %v; want bin 10 = 1.5 m with intensity 20", f, s.Intensities[10])
		}
	}
}

func TestAssemblerZeroIsNoReturn(t *testing.T) {
	s := oneScan(t, noFlip(), at(90, 0, 99), at(45, 1000, 5), at(45.1, 0, 200))
	f := finite(s)
	if len(f) != 1 || f[50] != 1.0 || s.Intensities[50] != 5 {
		t.Fatalf("bins %v; want only bin 50 = 1 m (a later 0 in the same bin must not erase it)", f)
	}
	if !math.IsInf(float64(s.Ranges[100]), 1) || s.Intensities[100] != 0 {
		t.Fatalf("distance 0 at 90 degrees gave range %v intensity %v, want +Inf and 0", s.Ranges[100], s.Intensities[100])
	}
	if s.Samples != 4 { // the ring start's sample and three more
		t.Fatalf("Samples = %d, want 4 (counted with or without a return)", s.Samples)
	}
}

func TestAssemblerClockwiseAndOffset(t *testing.T) {
	cases := []struct {
		cw     bool
		offset float64
		native float64
		bin    int
	}{
		{false, 0, 90, 100},
		{true, 0, 90, 300},  // native clockwise 90 is ROS -90 = 270
		{true, 0, 0, 0},     // 0 stays 0
		{true, 0, 359.5, 1}, // -359.5 = 0.5 degrees: bin 1 (0.56 rounds up)
		{true, 10, 90, 311}, // -90 + 10 = 280 degrees: 311.1
		{false, -100, 90, 389},
		{true, 180, 180, 0}, // the robot's forward is the LiDAR's 180: offset pi puts it at 0
		{false, 720 + 45, 0, 50},
	}
	for _, c := range cases {
		cfg := DefaultScanConfig()
		cfg.Clockwise, cfg.OffsetDeg = c.cw, c.offset
		f := finite(oneScan(t, cfg, at(c.native, 1000, 1)))
		if len(f) != 1 || f[c.bin] != 1 {
			t.Errorf("native %v, clockwise %v, offset %v: bins %v, want bin %d", c.native, c.cw, c.offset, f, c.bin)
		}
	}
}

func TestAssemblerRangeLimits(t *testing.T) {
	s := oneScan(t, DefaultScanConfig(), at(10, 119, 1), at(20, 120, 1), at(30, 8000, 1), at(40, 8001, 1), at(50, 51, 1))
	if len(finite(s)) != 5 {
		t.Fatalf("%d finite bins, want all 5 returns kept in the data (LaserScan convention)", len(finite(s)))
	}
	if s.ValidCount() != 2 || s.ValidFraction() != 2.0/400 {
		t.Fatalf("ValidCount %d, ValidFraction %v; want 2 (120 mm and 8000 mm) of 400", s.ValidCount(), s.ValidFraction())
	}
	if s.RangeMin != 0.12 || s.RangeMax != 8 {
		t.Fatalf("range limits %v..%v", s.RangeMin, s.RangeMax)
	}
	cfg := DefaultScanConfig()
	cfg.RangeMin, cfg.RangeMax = 0.05, 10
	if n := oneScan(t, cfg, at(10, 119, 1), at(20, 120, 1), at(30, 8000, 1), at(40, 8001, 1), at(50, 51, 1)).ValidCount(); n != 5 {
		t.Fatalf("with 0.05..10 m: ValidCount %d, want 5", n)
	}
	if (Scan{}).ValidFraction() != 0 {
		t.Fatal("empty scan")
	}
}

// TestAssemblerRevolutionTiming: nothing before the first revolution start; a revolution is handed out only
// when the next one starts; its stamp is the arrival of its own start packet (the first ray) and its
// ScanTime runs to the next start.
func TestAssemblerRevolutionTiming(t *testing.T) {
	a := NewAssembler(noFlip())
	// Packets before the first ring start: dropped, never in a scan.
	for i := range 5 {
		if _, ok := a.Add(at(100, 1234, 1), t0.Add(time.Duration(i)*time.Millisecond)); ok {
			t.Fatal("scan before the first revolution start")
		}
	}
	starts := []time.Duration{10 * time.Millisecond, 111 * time.Millisecond, 209 * time.Millisecond}
	var scans []Scan
	for i, st := range starts {
		s, ok := a.Add(ringAt(358.953125), t0.Add(st))
		if ok != (i > 0) {
			t.Fatalf("ring start %d: ok = %v", i, ok)
		}
		if ok {
			scans = append(scans, s)
		}
		for k := range 16 {
			if _, ok := a.Add(at(float64(k)*20, uint16(1000+i), 1), t0.Add(st+time.Duration(k+1)*5*time.Millisecond)); ok {
				t.Fatal("scan handed out before the next revolution started")
			}
		}
	}
	if len(scans) != 2 {
		t.Fatalf("%d scans from 3 starts, want 2 (the last revolution is not complete)", len(scans))
	}
	for i, s := range scans {
		if !s.Stamp.Equal(t0.Add(starts[i])) || s.ScanTime != starts[i+1]-starts[i] {
			t.Errorf("scan %d: stamp %v scan time %v; want %v and %v", i, s.Stamp.Sub(t0), s.ScanTime, starts[i], starts[i+1]-starts[i])
		}
		if s.Samples != 17 {
			t.Errorf("scan %d: %d samples, want 17", i, s.Samples)
		}
		for b, r := range finite(s) {
			if r != float32(1000+i)/1000 {
				t.Errorf("scan %d bin %d holds %v m: a packet from another revolution", i, b, r)
			}
		}
	}
	// A handed-out scan is its own: later packets do not write into it.
	before := append([]float32(nil), scans[1].Ranges...)
	a.Add(at(0, 200, 1), t0.Add(time.Second))
	for i := range before {
		if scans[1].Ranges[i] != before[i] {
			t.Fatal("a later packet changed a finished scan")
		}
	}
	// Reset drops the revolution in progress: the next start finishes nothing.
	a.Reset()
	if _, ok := a.Add(ringAt(0), t0.Add(2*time.Second)); ok {
		t.Fatal("scan after Reset")
	}
}

// TestAssemblerRealisticRevolutions bins ten synthetic revolutions of the room and checks each scan against
// the room's geometry: the clockwise flip is right if bin i (ROS angle i*0.9 degrees, counter-clockwise)
// holds the room's distance at native angle -i*0.9.
func TestAssemblerRealisticRevolutions(t *testing.T) {
	a := NewAssembler(DefaultScanConfig())
	var scans []Scan
	for _, tp := range synthRevolutions(t, 11, 10) {
		if s, ok := a.Add(tp.pkt, t0.Add(tp.at)); ok {
			scans = append(scans, s)
		}
	}
	if len(scans) != 9 {
		t.Fatalf("%d scans from 10 revolutions, want 9", len(scans))
	}
	for n, s := range scans {
		if !s.Stamp.Equal(t0.Add(time.Duration(n)*synthPeriod)) || s.ScanTime != synthPeriod || s.Samples != synthSamples {
			t.Fatalf("scan %d: stamp %v scan time %v samples %d", n, s.Stamp.Sub(t0), s.ScanTime, s.Samples)
		}
		wantValid, edges := 0, 0
		for i, r := range s.Ranges {
			native := math.Mod(360-float64(i)*0.9, 360)
			// Samples within 0.7 degrees of the bin centre can land in it (bin half-width 0.45, sample
			// spacing 0.9, angle quantisation 1/64): sectors are judged by that whole neighbourhood.
			nBlind, nSelf, nAll := 0, 0, 0
			lo, hi := math.Inf(1), 0.0
			for d := -0.7; d <= 0.7; d += 0.05 {
				a := math.Mod(native+d+360, 360)
				nAll++
				if inBlindSector(a) {
					nBlind++
				}
				if inSelfReturn(a) {
					nSelf++
				}
				lo, hi = min(lo, roomMM(a)/1000), max(hi, roomMM(a)/1000)
			}
			switch {
			case nBlind == nAll:
				if !math.IsInf(float64(r), 1) {
					t.Fatalf("scan %d bin %d (native %.1f, blind sector): range %v, want +Inf", n, i, native, r)
				}
			case nSelf == nAll:
				if r < 0.051 || r > 0.088 {
					t.Fatalf("scan %d bin %d (native %.1f, self-return): range %v", n, i, native, r)
				}
			case nBlind > 0 || nSelf > 0: // a sector edge: either is right
				edges++
			default:
				if math.IsInf(float64(r), 1) || float64(r) < lo-0.03 || float64(r) > hi+0.03 {
					t.Fatalf("scan %d bin %d (native %.1f): range %v m, room says %.3f..%.3f", n, i, native, r, lo, hi)
				}
				wantValid++
			}
		}
		if got := s.ValidCount(); got < wantValid || got > wantValid+edges {
			t.Fatalf("scan %d: ValidCount %d, geometry says %d..%d", n, got, wantValid, wantValid+edges)
		}
	}
	t.Logf("valid fraction %.3f", scans[0].ValidFraction())
}

// TestAssemblerNonFiniteOffset: a NaN or infinite OffsetDeg (a bad parameter file) must not panic. Before
// the fix the bin index came from int(NaN), which on amd64 is the most negative int64: an index out of range.
// Such angles now fall in no bin, so the scan has no valid return and every health check sees it.
func TestAssemblerNonFiniteOffset(t *testing.T) {
	for _, off := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		cfg := DefaultScanConfig()
		cfg.OffsetDeg = off
		s := oneScan(t, cfg, at(10, 1000, 1), at(200, 2000, 1))
		if s.ValidCount() != 0 {
			t.Errorf("offset %v: %d valid bins", off, s.ValidCount())
		}
	}
}

// PacketClock: packets of one read are stamped back from the read's time by the line time of the bytes after
// them, strictly increasing across reads even when a read's first packets would be backdated past the read
// before it.
func TestPacketClock(t *testing.T) {
	var c PacketClock
	if got := c.At(t0, 0); !got.Equal(t0) {
		t.Fatalf("last packet of a read: %v, want the read's time", got)
	}
	r2 := t0.Add(10 * time.Millisecond)
	a, b := c.At(r2, 100), c.At(r2, 0)
	if want := r2.Add(-100 * ByteTime); !a.Equal(want) || !b.Equal(r2) {
		t.Errorf("read 2: %v %v, want %v %v", a, b, want, r2)
	}
	// A third read 1 ms later with 1000 bytes after its first packet would put it 43 ms back, before read 2.
	r3 := r2.Add(time.Millisecond)
	if got := c.At(r3, 1000); !got.Equal(r2.Add(time.Nanosecond)) {
		t.Errorf("backdated past the read before: %v, want %v", got, r2.Add(time.Nanosecond))
	}
	if got := c.At(r3, 999); !got.Equal(r2.Add(2 * time.Nanosecond)) {
		t.Errorf("the next: %v", got)
	}
	c.Reset()
	if got := c.At(t0, 0); !got.Equal(t0) {
		t.Errorf("after Reset: %v", got)
	}
	if ByteTime != 43402*time.Nanosecond {
		t.Errorf("ByteTime %v", ByteTime)
	}
}

// FeedTail tells each packet how many bytes of its chunk follow it, however the stream is cut.
func TestParserFeedTail(t *testing.T) {
	var stream []byte
	var ends []int
	for i := range 5 {
		b, err := Encode(at(float64(10*i), 1000, 1))
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, b...)
		ends = append(ends, len(stream))
	}
	for _, cut := range []int{len(stream), ends[1] + 3, ends[2]} {
		var p Parser
		var tails []int
		p.FeedTail(stream[:cut], func(_ []byte, tail int) { tails = append(tails, tail) })
		p.FeedTail(stream[cut:], func(_ []byte, tail int) { tails = append(tails, tail) })
		if len(tails) != 5 {
			t.Fatalf("cut %d: %d packets", cut, len(tails))
		}
		for i, e := range ends {
			want := cut - e
			if e > cut {
				want = len(stream) - e
			}
			if tails[i] != want {
				t.Errorf("cut %d, packet %d: tail %d, want %d", cut, i, tails[i], want)
			}
		}
	}
}
