package soak

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// match pairs each stop with the record of its kind nearest in time (a kill's up to KillWindow after it),
// names the stops without one, counts the flags, and the result encodes to JSON with NaN figures as null.
func TestMatch(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 5, 0, 0, 0, time.UTC)
	f := func(x float64) *float64 { return &x }
	res := &Result{
		Stops: []Stop{
			{N: 1, Kind: api.StopEStop, At: t0},
			{N: 2, Kind: api.StopDeadman, At: t0.Add(10 * time.Second)},
			{N: 3, Kind: api.StopKill, At: t0.Add(20 * time.Second)},
			{N: 4, Kind: api.StopEStop, At: t0.Add(30 * time.Second)},
			{N: 5, Kind: api.StopDisable, At: t0.Add(40 * time.Second), Err: "trigger: refused"},
		},
		Records: []api.StopRecord{
			{Seq: 1, Kind: api.StopEStop, Wall: t0.Add(3 * time.Millisecond), Confidence: api.ConfidenceOK, StillS: f(0.4), TravelM: f(0.03)},
			{Seq: 2, Kind: api.StopEStop, Wall: t0.Add(10 * time.Second)}, // a stop the soak did not make: the deadman's is missing
			{Seq: 3, Kind: api.StopKill, Wall: t0.Add(22 * time.Second), Confidence: api.ConfidenceNoData},
			{Seq: 4, Kind: api.StopEStop, Wall: t0.Add(30*time.Second + 600*time.Millisecond), Confidence: api.ConfidenceOK, StillS: f(0.9), Level: api.StopLevelWarn},
		},
	}
	match(res)
	if res.Stops[0].Record == nil || res.Stops[0].Record.Seq != 1 || res.Stops[2].Record == nil || res.Stops[2].Record.Seq != 3 {
		t.Errorf("matched: %+v", res.Stops)
	}
	if len(res.Missing) != 2 || res.Missing[0].N != 2 || res.Missing[1].N != 4 {
		t.Errorf("missing %+v, want the deadman (no record of its kind) and the second e-stop (its record 0.6 s off)", res.Missing)
	}
	if len(res.Flagged) != 1 || res.Passed() {
		t.Errorf("flagged %+v, passed %v", res.Flagged, res.Passed())
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"MedianStillS":null`) {
		t.Errorf("a kind without still times: %s", b)
	}
	for _, k := range res.Kinds {
		if k.Kind == api.StopEStop && (k.Made != 2 || k.Recorded != 3 || k.Counted != 2 || k.Warn != 1 || k.WorstStill != 0.9 || math.IsNaN(k.MedianStill)) {
			t.Errorf("estop tally %+v", k)
		}
	}
}
