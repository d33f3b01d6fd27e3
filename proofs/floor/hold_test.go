package floor

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/proofs/target/targettest"
	"github.com/rosorin/rosorin/sim"
)

// The hold paths against the fake (no BoardFramer: the frames are the driver's report in its state records,
// judged with the 0.5 s gap rule; no Interrupter: usb-hold refused before it drives).
func TestProveFakeHolds(t *testing.T) { synctest.Test(t, testProveFakeHolds) }

func testProveFakeHolds(t *testing.T) {
	rep, out, err := proveFake(t, targettest.Options{Seed: 1, Floor: sim.DefaultRoom()}, Paths, "reset-hold,usb-hold,zero-after-timeout")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]odometry.Outcome{"reset-hold": odometry.Pass, "usb-hold": odometry.NotRun, "zero-after-timeout": odometry.Pass}
	if len(rep.Results) != 6 {
		t.Fatalf("%d result lines, want 6 (two per hold path)", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Outcome != want[r.Path] {
			t.Errorf("%s: %s, want %s", r.Line, r.Outcome, want[r.Path])
		}
		if r.Path != "usb-hold" && !r.Release && (r.Still == nil || r.Still.SpeedSamples == 0) {
			t.Errorf("%s: no still verdict with the odometry's speed", r.Line)
		}
		if r.Path != "usb-hold" && r.Release && r.Ramp == nil {
			t.Errorf("%s: no ramp verdict", r.Line)
		}
	}
	for _, w := range []string{"held after USB return fwd 0.1 NOT RUN - this target cannot interrupt the board",
		"the driver's report of its last wheel frame", "RESULT: 4/6 passed"} {
		if !strings.Contains(out, w) && !strings.Contains(strings.Join(notes(rep), "\n"), w) {
			t.Errorf("output lacks %q", w)
		}
	}
}

// A robot whose wheels are commanded when a hold path begins is NOT RUN: a stays-still proof on a moving
// robot proves nothing.
func TestHoldReadyRefusesCommanded(t *testing.T) {
	if err := runcore.HoldReady(target.State{BodyVel: [3]float64{0.1, 0, 0}}); !errors.Is(err, runcore.ErrNotRun) {
		t.Errorf("commanded robot: %v, want NOT RUN", err)
	}
	if err := runcore.HoldReady(target.State{}); err != nil {
		t.Errorf("still robot: %v", err)
	}
}

func notes(rep *Report) (out []string) {
	for _, r := range rep.Results {
		out = append(out, r.Notes...)
	}
	return out
}
