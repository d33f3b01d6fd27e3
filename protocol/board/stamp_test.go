package board

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Three IMU frames in one read get three stamps a period apart, the last the read's time.
func TestIMUStamperSpreadsOneRead(t *testing.T) {
	var s IMUStamper
	t0 := time.Unix(1_700_000_000, 0)
	got := s.Stamps(nil, t0, 3)
	want := []time.Time{t0.Add(-2 * IMUPeriod), t0.Add(-IMUPeriod), t0}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("stamps %v, want %v", got, want)
		}
	}
	// The next read 1 ms later with two frames: the ideal first stamp (t-P) is before the previous stamp, so
	// they are spread over the 1 ms gap.
	t1 := t0.Add(time.Millisecond)
	got = s.Stamps(nil, t1, 2)
	if !got[0].Equal(t0.Add(500*time.Microsecond)) || !got[1].Equal(t1) {
		t.Fatalf("squeezed stamps %v, want %v and %v", got, t0.Add(500*time.Microsecond), t1)
	}
	// A read at the same time as the last stamp (a clock that stood still): 1 ns apart after it.
	got = s.Stamps(nil, t1, 2)
	if !got[0].Equal(t1.Add(1)) || !got[1].Equal(t1.Add(2)) {
		t.Fatalf("stamps at a standing clock %v", got)
	}
	if n := len(s.Stamps(nil, t1, 0)); n != 0 {
		t.Fatalf("no frames gave %d stamps", n)
	}
}

// Over random reads (0-6 frames, reads 0-30 ms apart, the clock sometimes standing or stepping back) every
// stamp is after the one before it, and never after the read's time while the clock goes forward.
func TestIMUStamperStrictlyIncreasing(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 661))
	s := IMUStamper{Period: 9 * time.Millisecond}
	now := time.Unix(1_700_000_000, 0)
	var prev time.Time
	var stamps []time.Time
	for i := range 100000 {
		switch d := r.IntN(100); {
		case d < 3: // the clock stands
		case d < 4:
			now = now.Add(-time.Duration(r.IntN(5000)) * time.Microsecond) // steps back
		default:
			now = now.Add(time.Duration(r.IntN(30000)) * time.Microsecond)
		}
		n := r.IntN(7)
		stamps = s.Stamps(stamps[:0], now, n)
		if len(stamps) != n {
			t.Fatalf("read %d: %d stamps for %d frames", i, len(stamps), n)
		}
		roomy := prev.IsZero() || now.Sub(prev) >= time.Duration(n) // room for n distinct stamps up to now
		for _, st := range stamps {
			if !prev.IsZero() && !st.After(prev) {
				t.Fatalf("read %d: stamp %v not after %v (%v)", i, st, prev, stamps)
			}
			if roomy && st.After(now) {
				t.Fatalf("read %d: stamp %v after the read's time %v", i, st, now)
			}
			prev = st
		}
	}
}
