package stand

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

func TestCharacterizeMeasuresEachPhaseAndSuggestsAThreshold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := targettest.NewFake(clk, targettest.Options{Seed: 11})
		out := &testkit.LockedBuffer{}
		cr, err := Characterize(context.Background(), f, DefaultPhases(), testOptions(clk, out))
		if err != nil || !cr.OK() {
			t.Fatalf("%v %+v\n%s", err, cr, out)
		}
		if len(cr.Levels) != 10 {
			t.Fatalf("%d levels, want 10", len(cr.Levels))
		}
		byName := map[string]float64{}
		for _, l := range cr.Levels {
			byName[l.Name] = l.Median
		}
		// The fake's levels follow the sim's fit of chapter 19: still about 0.002, 0.2 m/s about 0.005, 0.35
		// m/s about 0.008, rotation weaker than 0.2 m/s.
		if s := byName["idle (disabled)"]; s < 0.0015 || s > 0.0025 {
			t.Errorf("idle %.4f", s)
		}
		if s := byName["still 2"]; s > 0.0025 {
			t.Errorf("still after 0.2 m/s: %.4f (the run-down leaked into the still phase?)", s)
		}
		if !(byName["forward 0.1"] < byName["forward 0.2"] && byName["forward 0.2"] < byName["forward 0.35"]) {
			t.Errorf("levels not increasing with speed: %v", byName)
		}
		// Between still (p95 ~0.0025) and the proof's weakest motion (rotation ~0.005), as the seed's 0.0035;
		// forward 0.1 is shown but must not drag the threshold down to the still level.
		if cr.Suggested < 0.003 || cr.Suggested > 0.0045 || math.IsNaN(cr.Suggested) || strings.Contains(cr.Why, "forward 0.1") {
			t.Errorf("suggested %.4f: %s", cr.Suggested, cr.Why)
		}
		if f.Enabled() {
			t.Error("wheels enabled after characterize")
		}
		if !strings.Contains(out.String(), "suggested threshold (still phases against the proof's motions): 0.00") || !strings.Contains(out.String(), "forward 0.35") {
			t.Errorf("output:\n%s", out)
		}
		if _, err := json.Marshal(cr); err != nil {
			t.Error(err)
		}
	})
}

// A robot whose wheels never turn (the board ignores motor frames from the start) cannot give a threshold:
// characterize must say so rather than suggest one.
func TestCharacterizeWithoutSpinningSuggestsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := targettest.NewFake(clk, targettest.Options{Seed: 12, IgnoreStop: true})
		f.AtTrigger(context.Background()) // frozen at zero before anything moves
		out := &testkit.LockedBuffer{}
		cr, err := Characterize(context.Background(), f, DefaultPhases(), testOptions(clk, out))
		if err != nil {
			t.Fatal(err)
		}
		if cr.OK() || !math.IsNaN(cr.Suggested) || !strings.Contains(cr.Why, "no threshold separates") {
			t.Fatalf("suggested %.4f (%s); want none\n%s", cr.Suggested, cr.Why, out)
		}
	})
}
