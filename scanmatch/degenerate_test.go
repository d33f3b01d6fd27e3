package scanmatch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// TestCorridorDegenerate: in a featureless corridor (no end wall within 8 m) the motion along it is
// unobservable. Standing or driving along it, every estimate is degenerate with the weak direction along
// the corridor, Observable says no along it and yes across it, and a strafe across it is still measured.
func TestCorridorDegenerate(t *testing.T) {
	cases := []struct {
		name   string
		dx, dy float64
		v      float64
		yaw    float64
	}{
		{"standing", 1, 0, 0, 0},
		{"driving along at 0.2", 1, 0, 0.2, 0},
		{"standing, turned 20 deg", 1, 0, 0, 20 * math.Pi / 180},
		{"strafing across at 0.2", 0, 1, 0.2, 0},
	}
	for i, c := range cases {
		w := newWorld(int64(200+i), corridorRoom(t), leg([3]float64{0, -0.2, c.yaw}, 0.3, c.dx, c.dy, c.v, 0, 1, 0.5))
		est := run(t, w, 12, false)
		for k, e := range est[1:] {
			// The corridor runs along world x; in the base frame that is bearing -yaw.
			along := [2]float64{math.Cos(-c.yaw), math.Sin(-c.yaw)}
			across := [2]float64{-along[1], along[0]}
			bearing := e.WeakBearingDeg() + c.yaw*180/math.Pi
			if !e.Degenerate || math.Abs(bearing) > 5 || e.Observable(along[0], along[1]) || !e.Observable(across[0], across[1]) {
				t.Errorf("%s, scan %d: degenerate %v, weak bearing %.1f deg from the axis, observable along %v across %v; want true, ~0, false, true",
					c.name, k+1, e.Degenerate, bearing, e.Observable(along[0], along[1]), e.Observable(across[0], across[1]))
			}
			if !e.ObservableYaw() {
				t.Errorf("%s, scan %d: the walls' direction is seen, yet yaw reported unobservable", c.name, k+1)
			}
			if math.Sqrt(e.Cov[0][0]+e.Cov[1][1]) < 0.1 {
				t.Errorf("%s, scan %d: covariance %v claims the corridor axis is known", c.name, k+1, e.Cov)
			}
		}
		last := len(est) - 1
		got, want := est[last].Pose, w.truth(last)
		t.Logf("%-24s weak bearing %+.2f deg, info %.4f, across-axis error %.2f mm (moved %.0f mm), along %.0f mm (truth %.0f)",
			c.name, est[last].WeakBearingDeg(), est[last].Info, 1e3*(got.Y-want.Y), 1e3*want.Y, 1e3*got.X, 1e3*want.X)
		if c.dy != 0 && math.Abs(got.Y-want.Y) > 0.003 {
			t.Errorf("%s: strafe across the corridor read %.2f mm, truth %.2f mm", c.name, 1e3*got.Y, 1e3*want.Y)
		}
	}
}

// TestSingleWallDegenerate: only one wall in view (the rest beyond 8 m): degenerate along the wall.
func TestSingleWallDegenerate(t *testing.T) {
	room, err := sim.ParseRoom([]byte("name: wall\nwalls:\n  - [[-30, 0.8], [30, 0.8]]\n"))
	if err != nil {
		t.Fatal(err)
	}
	est := run(t, newWorld(3, room, still([3]float64{0, 0, 0})), 5, false)
	e := est[4]
	if !e.Degenerate || e.Observable(1, 0) || !e.Observable(0, 1) {
		t.Errorf("single wall: degenerate %v weak %.1f deg info %.4f; want degenerate along x", e.Degenerate, e.WeakBearingDeg(), e.Info)
	}
}

func blankScan(k int, fill float32) coind6.Scan {
	s := coind6.Scan{Stamp: epoch.Add(time.Duration(k) * 100 * time.Millisecond), ScanTime: 100 * time.Millisecond,
		Ranges: make([]float32, 400), RangeMin: 0.12, RangeMax: 8}
	for i := range s.Ranges {
		s.Ranges[i] = fill
	}
	return s
}

// TestUnusableScans: empty, all-invalid, wrong-sized and out-of-order scans give an error, never an
// estimate; a good scan afterwards still works.
func TestUnusableScans(t *testing.T) {
	w := newWorld(9, sim.DefaultRoom(), still([3]float64{}))
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var se *ScanError
	for _, c := range []struct {
		name string
		s    coind6.Scan
	}{
		{"no returns (+Inf)", blankScan(0, float32(math.Inf(1)))},
		{"NaN", blankScan(0, float32(math.NaN()))},
		{"self-returns only (below range_min)", blankScan(0, 0.08)},
		{"zero", blankScan(0, 0)},
		{"negative", blankScan(0, -1)},
		{"beyond range_max", blankScan(0, 9)},
	} {
		if e, err := o.Add(c.s, Aux{}); !errors.As(err, &se) || e != (Estimate{}) {
			t.Errorf("first scan %s: %+v, %v; want a ScanError and no estimate", c.name, e, err)
		}
	}
	// Returns only inside the mask (the blind rear): nothing usable either.
	masked := blankScan(0, float32(math.Inf(1)))
	for i := 0; i < 400; i++ {
		if i < 60 || i > 340 {
			masked.Ranges[i] = 1
		}
	}
	if _, err := o.Add(masked, Aux{}); !errors.As(err, &se) {
		t.Errorf("returns only in the masked rear: %v, want a ScanError", err)
	}
	if _, err := o.Add(coind6.Scan{Ranges: make([]float32, 399)}, Aux{}); !errors.Is(err, ErrBins) {
		t.Errorf("399 bins: %v, want ErrBins", err)
	}
	if _, err := o.Add(w.scan(5), Aux{}); err != nil {
		t.Fatalf("good scan after the bad ones: %v", err)
	}
	if _, err := o.Add(w.scan(5), Aux{}); !errors.Is(err, ErrStamp) {
		t.Errorf("same stamp again: %v, want ErrStamp", err)
	}
	if _, err := o.Add(w.scan(4), Aux{}); !errors.Is(err, ErrStamp) {
		t.Errorf("earlier stamp: %v, want ErrStamp", err)
	}
	for k, fill := range []float32{float32(math.Inf(1)), float32(math.NaN()), 0.05} {
		if e, err := o.Add(blankScan(6+k, fill), Aux{}); !errors.As(err, &se) || e != (Estimate{}) {
			t.Errorf("later empty scan (%v): %+v, %v; want a ScanError", fill, e, err)
		}
	}
	e, err := o.Add(w.scan(10), Aux{})
	if err != nil || math.Hypot(e.Pose.X, e.Pose.Y) > 0.003 {
		t.Errorf("good scan after the bad ones: %+v, %v; want the pose near 0", e.Pose, err)
	}
}

// TestGarbageNeverConfident: after a good keyframe, scans of random ranges (a sensor gone mad) never give
// a non-degenerate estimate: an error or a degenerate flag.
func TestGarbageNeverConfident(t *testing.T) {
	w := newWorld(11, sim.DefaultRoom(), still([3]float64{}))
	rng := rand.New(rand.NewPCG(1, 2))
	confident := 0
	for trial := 0; trial < 50; trial++ {
		o, _ := New(DefaultConfig())
		if _, err := o.Add(w.scan(0), Aux{}); err != nil {
			t.Fatal(err)
		}
		g := blankScan(1, 0)
		for i := range g.Ranges {
			switch trial % 3 {
			case 0: // uniform over the range
				g.Ranges[i] = 0.12 + 7.88*rng.Float32()
			case 1: // the good scan with every range scrambled by +-30 cm
				g.Ranges[i] = w.scan(1).Ranges[i] + 0.6*(rng.Float32()-0.5)
			default: // a shuffled good scan
				g.Ranges[i] = w.scan(1).Ranges[rng.IntN(400)]
			}
		}
		e, err := o.Add(g, Aux{})
		if err == nil && !e.Degenerate {
			confident++
			t.Logf("trial %d: confident answer %+v used %d/%d rms %.1f mm", trial, e.Pose, e.Used, e.Valid, 1e3*e.RMS)
		}
	}
	if confident > 0 {
		t.Errorf("%d of 50 garbage scans gave a confident estimate", confident)
	}
}

// TestRoundRoomYawDegenerate: at the centre of a round room (a 180-sided polygon, 2 m radius) the
// rotation is unobservable: degenerate, ObservableYaw false, translation still observable.
func TestRoundRoomYawDegenerate(t *testing.T) {
	yaml := "name: round\nwalls:\n  - ["
	for i := 0; i <= 180; i++ {
		a := 2 * math.Pi * float64(i) / 180
		if i > 0 {
			yaml += ", "
		}
		yaml += fmt.Sprintf("[%.6f, %.6f]", 2*math.Cos(a), 2*math.Sin(a))
	}
	yaml += "]\n"
	room, err := sim.ParseRoom([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	est := run(t, newWorld(13, room, still([3]float64{-0.048, 0, 0})), 5, false)
	e := est[4]
	t.Logf("round room: degenerate %v, info %.4f, weak %.2f", e.Degenerate, e.Info, e.Weak)
	if !e.Degenerate || e.ObservableYaw() || !e.Observable(1, 0) || !e.Observable(0, 1) {
		t.Errorf("round room: degenerate %v, yaw observable %v, x %v, y %v; want true, false, true, true",
			e.Degenerate, e.ObservableYaw(), e.Observable(1, 0), e.Observable(0, 1))
	}
}
