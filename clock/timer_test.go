package clock_test

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/testkit"
)

// TestPreciseTimer: Real's timer (the driver's deadline timer) never fires before its instant; a Reset replaces
// the pending firing and a Stop cancels it. The lateness is logged (the deadman's figure is driver/simtest's
// TestTimingDeadman, end to end).
func TestPreciseTimer(t *testing.T) {
	p := clock.Real{}.NewTimer()
	var late []time.Duration
	for i := range testkit.Reps(100, 20) {
		d := time.Duration(3+i%7) * time.Millisecond
		at := time.Now().Add(d)
		p.Reset(d)
		select {
		case got := <-p.C():
			if got.Before(at) {
				t.Fatalf("fired %v early", at.Sub(got))
			}
			late = append(late, got.Sub(at))
		case <-time.After(testkit.Bound(time.Second)):
			t.Fatal("did not fire")
		}
	}
	t.Logf("precise timer lateness: %s", testkit.Figures(late))
	// Reset replaces: armed for 5 ms, then for 60 ms: one firing, at 60 ms.
	start := time.Now()
	p.Reset(5 * time.Millisecond)
	p.Reset(60 * time.Millisecond)
	got := <-p.C()
	if e := got.Sub(start); e < 60*time.Millisecond {
		t.Fatalf("fired after %v, the replaced deadline", e)
	}
	// Stop cancels, also in the spin (armed 1 ms ahead: inside the margin).
	p.Reset(time.Millisecond)
	p.Stop()
	p.Reset(30 * time.Millisecond)
	p.Stop()
	select {
	case g := <-p.C():
		t.Fatalf("a stopped timer fired at %v", g)
	case <-time.After(100 * time.Millisecond):
	}
}
