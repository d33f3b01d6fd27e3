package odometry

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestBoardResponse(t *testing.T) {
	for _, c := range []struct {
		name string
		told []Told
		trig float64
		want float64 // NaN: none
	}{
		{"first lower frame after the trigger", []Told{{0.90, 0.2}, {0.98, 0.2}, {1.00, 0.2}, {1.012, 0}}, 1.0, 0.012},
		{"a frame at the trigger itself counts", []Told{{0.9, 0.2}, {1.0, 0}}, 1.0, 0},
		{"the same speed refreshed, then the stop", []Told{{0.9, 0.2}, {1.05, 0.2}, {1.2, 0.1}}, 1.0, 0.2},
		{"never slowed: the negative control", []Told{{0.9, 0.2}, {1.1, 0.2}, {1.3, 0.2}}, 1.0, math.NaN()},
		{"no frame before the trigger", []Told{{1.1, 0}}, 1.0, math.NaN()},
		{"not moving before the trigger", []Told{{0.9, 0}, {1.1, 0}}, 1.0, math.NaN()},
		{"no frames", nil, 1.0, math.NaN()},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := BoardResponse(c.told, c.trig)
			if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-9) {
				t.Errorf("BoardResponse = %v, want %v", got, c.want)
			}
		})
	}
}

// TestDecelOnset: the measured onset lies after the true one (the stop acting at trigger + delay) and within
// the odometry's window of it, and is NaN when the robot never slows (the negative control).
func TestDecelOnset(t *testing.T) {
	p := DefaultParams()
	for _, c := range []struct {
		name           string
		v0, delay, tau float64
	}{
		{"estop fwd 0.2", 0.2, 0.02, 0.13},
		{"deadman fwd 0.1", 0.1, 0.32, 0.13},
		{"estop fwd 0.35", 0.35, 0.05, 0.13},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 200; seed++ {
				odo := decel(seed, c.v0, c.delay, c.tau, 2, 5, 1, 0)
				v := JudgeStop(odo, 2, 5, p)
				got := DecelOnset(odo, 2, 5, v.Before, p)
				if !(got >= c.delay-0.02 && got <= c.delay+p.Window+0.1) {
					t.Fatalf("seed %d: onset %.3f s, want within [%.2f, %.2f] (the true onset less the interpolation's 20 ms, plus a window and a scan)", seed, got, c.delay-0.02, c.delay+p.Window+0.1)
				}
			}
		})
	}
	odo := decel(1, 0.2, 10, 0.13, 2, 5, 1, 0) // the stop acts only after the end
	v := JudgeStop(odo, 2, 5, p)
	if got := DecelOnset(odo, 2, 5, v.Before, p); !math.IsNaN(got) {
		t.Errorf("never slowed: onset %v, want NaN", got)
	}
	if got := DecelOnset(odo, 2, 5, 0.01, p); !math.IsNaN(got) {
		t.Errorf("crawling before: onset %v, want NaN", got)
	}
}

func TestMeasureResponseJSON(t *testing.T) {
	p := DefaultParams()
	odo := decel(3, 0.2, 0.02, 0.13, 2, 5, 0, 1)
	v := JudgeStop(odo, 2, 5, p)
	r := MeasureResponse([]Told{{1.98, 0.2}, {2.01, 0}}, odo, 2, 5, v, p)
	if math.Abs(r.Board-0.01) > 1e-9 || math.IsNaN(r.Measured) || r.Why != "" {
		t.Fatalf("response %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Response
	if err := json.Unmarshal(b, &back); err != nil || back.Board != r.Board || back.Measured != r.Measured {
		t.Fatalf("round trip %s: %+v, %v", b, back, err)
	}
	none := MeasureResponse(nil, odo, 2, 5, v, p)
	b, _ = json.Marshal(none)
	if !strings.Contains(string(b), `"board_s":null`) || !strings.Contains(none.Why, "no record of the board") {
		t.Errorf("no frames: %s", b)
	}
}
