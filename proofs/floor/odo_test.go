package floor

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// TestTimeOf: receipts in bursts (two scans in one read, the second 0.1 s late) still give evenly spaced
// times, on the least delayed receipt's timeline; a wall-clock step in the stamps restarts the estimate.
func TestTimeOf(t *testing.T) {
	o, err := newOdometer()
	if err != nil {
		t.Fatal(err)
	}
	stamp0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var ts []float64
	for k := 0; k < 20; k++ {
		at := 0.1*float64(k) + 0.1 + 0.003 // revolution end + 3 ms
		if k%2 == 0 {
			at += 0.1 // delivered with the next one
		}
		ts = append(ts, o.timeOf(at, api.Scan{Stamp: stamp0.Add(time.Duration(k) * 100 * time.Millisecond), ScanTime: 0.1}))
	}
	for k := 2; k < len(ts); k++ {
		if d := ts[k] - ts[k-1]; math.Abs(d-0.1) > 1e-9 {
			t.Fatalf("scan %d: %.4f s after the previous, want 0.1 (times %v)", k, d, ts)
		}
		if want := 0.1*float64(k) + 0.05 + 0.003; math.Abs(ts[k]-want) > 1e-9 {
			t.Fatalf("scan %d at %.4f, want mid-sweep plus the least delay %.4f", k, ts[k], want)
		}
	}
	// The wall clock steps back 10 s: the stamps jump, the receipts do not.
	got := o.timeOf(2.103, api.Scan{Stamp: stamp0.Add(20*100*time.Millisecond - 10*time.Second), ScanTime: 0.1})
	if math.Abs(got-(2.103-0.05)) > 1e-9 {
		t.Errorf("after a wall-clock step: %.4f, want its own receipt minus half a revolution %.4f", got, 2.103-0.05)
	}
}
