package stopwatch

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// TestChain: a deadman stop interrupted by new motion, then an e-stop during that motion: two records, the
// second judged on its own window from the same recording (which was kept and trimmed, never reset, while a
// stop was pending).
func TestChain(t *testing.T) {
	w, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(3))
	base := time.Unix(1_700_000_000, 0)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	var recs []api.StopRecord
	feed := func(from, to int, spin bool, cmd [3]float64) {
		for ms := from; ms < to; ms++ {
			if ms%9 == 0 {
				lvl := stillLevel
				if spin {
					lvl = spinLevel
				}
				s := lvl / math.Sqrt2 * 180 / math.Pi
				w.IMU(at(ms), [3]float32{float32(rng.NormFloat64() * s), float32(rng.NormFloat64() * s), 0})
			}
			if ms%20 == 0 {
				w.Commanded(at(ms), cmd)
				recs = append(recs, w.Poll(at(ms))...)
			}
		}
	}
	feed(0, 3000, true, fwd(0.2))
	w.Trigger(Trigger{Kind: api.StopDeadman, At: at(3000)})
	feed(3000, 3100, true, [3]float64{})
	feed(3100, 6000, true, fwd(0.2)) // the client commands again: the deadman's window ends at 3.1 s
	if !w.Trigger(Trigger{Kind: api.StopEStop, At: at(6000)}) {
		t.Fatal("the e-stop during the new motion was not timed")
	}
	feed(6000, 6300, true, [3]float64{})
	feed(6300, 11000, false, [3]float64{})
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2: %+v", len(recs), recs)
	}
	if r := recs[0]; r.Kind != api.StopDeadman || r.Confidence != api.ConfidenceInterrupt {
		t.Errorf("first: %s %s %q", r.Kind, r.Confidence, r.Notes)
	}
	if r := recs[1]; r.Kind != api.StopEStop || r.Confidence != api.ConfidenceOK || r.Outcome != "PASS" || r.StillS == nil ||
		*r.StillS < 0.25 || *r.StillS > 0.6 {
		t.Errorf("second: %s %s %s still %v %q", r.Kind, r.Confidence, r.Outcome, f(r.StillS), r.Notes)
	}
	if st := w.Stats(); st.Timed != 2 || w.Active() {
		t.Errorf("stats %+v, active %v", st, w.Active())
	}
}
