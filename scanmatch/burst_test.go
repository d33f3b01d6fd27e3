package scanmatch

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/sim"
)

// TestBurstStamps: on a loaded host the driver's reads come in bursts, and two revolutions can carry stamps
// a few milliseconds apart (each is stamped by the read that held its start). The pair between them implies
// a velocity tens of times the real one; it must not become the next scan's guess, and a failed match must
// not leave a velocity behind: before this was handled, one such pair in a 0.2 m/s leg made every later
// scan fail ("correspondences with the keyframe") for the rest of the run. Here the odometry keeps
// matching, and the leg's end reads within 5 mm of the truth.
func TestBurstStamps(t *testing.T) {
	w := newWorld(41, sim.DefaultRoom(), leg(sim.DefaultRoom().Start, 0.3, 1, 0, 0.2, 0, 1.0, 1.5))
	o, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	// The stamps a stalled reader gives: revolutions 8 and 9 started at 0.8 and 0.9 s, but the reader woke
	// only at 0.902 s and read both starts in one burst (0.902, 0.904); revolutions 15 to 17 the same way at
	// 1.701 s. Each scan's ScanTime is the next stamp minus its own, as coind6.Assembler sets it.
	stamp := make([]time.Duration, n+1)
	for k := range stamp {
		stamp[k] = time.Duration(k) * 100 * time.Millisecond
	}
	stamp[8], stamp[9] = 902*time.Millisecond, 904*time.Millisecond
	stamp[15], stamp[16], stamp[17] = 1701*time.Millisecond, 1702*time.Millisecond, 1703*time.Millisecond
	fails := 0
	var last Estimate
	for k := 0; k < n; k++ {
		s := w.scan(k)
		s.Stamp, s.ScanTime = epoch.Add(stamp[k]), stamp[k+1]-stamp[k]
		e, err := o.Add(s, Aux{})
		if err != nil {
			fails++
			t.Logf("scan %d: %v", k, err)
			continue
		}
		last = e
	}
	// Poses refer to the stamps' mid-sweep; the last scan's stamp is its true one.
	want := w.truth(n - 1)
	d := math.Hypot(last.Pose.X-want.X, last.Pose.Y-want.Y)
	t.Logf("%d of %d scans failed; end (%.1f, %.1f) mm, truth (%.1f, %.1f) mm: %.2f mm off", fails, n, 1e3*last.Pose.X,
		1e3*last.Pose.Y, 1e3*want.X, 1e3*want.Y, 1e3*d)
	if fails > 5 || d > 0.005 {
		t.Errorf("%d scans failed (want at most the 5 around the bursts), end %.2f mm from the truth (want <= 5 mm)", fails, 1e3*d)
	}
}
