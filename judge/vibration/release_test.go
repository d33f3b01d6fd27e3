package vibration

import (
	"math"
	"strings"
	"testing"
)

// The scan-loss path's second question: once the scans are back, do the wheels turn again by themselves?
func TestReleaseCheck(t *testing.T) {
	p := DefaultParams()
	// Held still after the scan loss, released 4.5 s after the trigger (the seed: "4.5 s later").
	released := series{seed: 5, from: 0, to: trig + 9, segs: []seg{{trig + 0.5, fwd35Level}, {trig + 4.5, stillLevel}, {math.Inf(1), fwd35Level}}}
	s := released.gen()
	v := ReleaseCheck(s, trig+5.0, trig+9, p)
	if v.Outcome != Pass || v.Spinning < 0.0065 || v.Kind != KindRelease {
		t.Fatalf("released: want PASS at ~%.4f, got %s", fwd35Level, v.Line("LiDAR back: wheels released by themselves"))
	}
	// Negative control: never released.
	held := series{seed: 5, from: 0, to: trig + 9, segs: []seg{{trig + 0.5, fwd35Level}, {math.Inf(1), stillLevel}}}
	v = ReleaseCheck(held.gen(), trig+5.0, trig+9, p)
	if v.Outcome != Fail || !strings.HasPrefix(v.Reason, "wheels did not turn again by themselves") {
		t.Fatalf("held: want FAIL, got %s", v.Line("held"))
	}
	// One bump (the LiDAR motor starting again) is not a release: 0.3 s of rattle in 4 s of still.
	bump := series{seed: 6, from: 0, to: trig + 9, segs: []seg{{trig + 0.5, fwd35Level}, {trig + 6.0, stillLevel},
		{trig + 6.3, fwd35Level * 2}, {math.Inf(1), stillLevel}}}
	v = ReleaseCheck(bump.gen(), trig+5.0, trig+9, p)
	if v.Outcome != Fail || !(v.WorstAfter > p.Threshold) {
		t.Fatalf("bump: want FAIL with a loud worst window, got %s (worst %.4f)", v.Line("bump"), v.WorstAfter)
	}
	// No data is never evidence of turning wheels either: the stream stops after 1 s of the 4 s interval.
	gappy := released
	gappy.gaps = [][2]float64{{trig + 6.0, trig + 20}}
	v = ReleaseCheck(gappy.gen(), trig+5.0, trig+9, p)
	if v.Outcome != Fail || !strings.HasPrefix(v.Reason, "too little IMU data") {
		t.Fatalf("gappy: want FAIL too little data, got %s", v.Line("gappy"))
	}
	for _, bad := range []struct {
		from, to float64
		p        Params
		reason   string
	}{
		{trig, trig, p, "bad time range"},
		{math.NaN(), trig, p, "bad time range"},
		{trig, trig + 0.1, p, "interval of 0.10 s is shorter than one 0.20 s window"},
		{trig, trig + 1e12, p, "interval too long"},
		{trig, trig + 4, Params{}, "bad judge parameters"},
	} {
		v := ReleaseCheck(s, bad.from, bad.to, bad.p)
		if v.Outcome != Fail || !strings.HasPrefix(v.Reason, bad.reason) {
			t.Errorf("%v..%v: want FAIL %q, got %v %q", bad.from, bad.to, bad.reason, v.Outcome, v.Reason)
		}
	}
	if v := ReleaseCheck(nil, trig, trig+4, p); v.Outcome != Fail || !strings.HasPrefix(v.Reason, "too little IMU data: 0 of") && !strings.HasPrefix(v.Reason, "too little IMU data to see") {
		t.Fatalf("nil: %v %q", v.Outcome, v.Reason)
	}
}
