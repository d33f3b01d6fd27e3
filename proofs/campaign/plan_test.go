package campaign

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const goodPlan = `version: 1
name: t
proof: stand
r: 0.8
c: 0.8
seed: 7
conditions: {setup: stand, surface: wheels in the air, load: none, gradient: level, operator: CI}
cells:
  - {path: estop, speed: 0.2, direction: forward, max_still_s: 1.0}
  - {path: deadman, speed: 0.2, max_still_s: 1.0}
`

func TestParsePlanGood(t *testing.T) {
	p, err := ParsePlan([]byte(goodPlan))
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs() != 8 {
		t.Errorf("runs %d, want 8", p.Runs())
	}
	if got := []string{p.Cells[0].ID(), p.Cells[1].ID()}; !slices.Equal(got, []string{"estop fwd 0.2", "deadman fwd 0.2"}) {
		t.Errorf("ids %q", got)
	}
	for _, f := range []string{"testdata/stand-estop-95.yaml", "testdata/stand-ci-80.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParsePlan(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestRunsFor(t *testing.T) {
	for _, tc := range []struct {
		r, c float64
		n    int
	}{{0.95, 0.95, 59}, {0.90, 0.90, 22}, {0.8, 0.8, 8}, {0.99, 0.95, 299}, {0.5, 0.5, 1}, {0.1, 0.99, 2}} {
		if n := RunsFor(tc.r, tc.c); n != tc.n {
			t.Errorf("RunsFor(%v, %v) = %d, want %d", tc.r, tc.c, n, tc.n)
		}
	}
}

func TestCellMotionNames(t *testing.T) {
	for _, tc := range []struct {
		c  Cell
		id string
	}{
		{Cell{Path: "estop", Speed: 0.2}, "estop fwd 0.2"},
		{Cell{Path: "estop", Speed: 0.35, Direction: "forward"}, "estop fwd 0.35"},
		{Cell{Path: "disable", Speed: 1, Direction: "turn"}, "disable rot 1.0"},
		{Cell{Path: "deadman", Speed: 0.2, Direction: "back"}, "deadman back 0.2"},
		{Cell{Path: "deadman", Speed: 0.1, Direction: "left"}, "deadman left 0.1"},
	} {
		if id := tc.c.ID(); id != tc.id {
			t.Errorf("%+v: id %q, want %q", tc.c, id, tc.id)
		}
	}
	if m := (Cell{Path: "estop", Speed: 0.2, Direction: "back"}).Motion(); m.Twist.VX != -0.2 {
		t.Errorf("back: %+v", m.Twist)
	}
	if m := (Cell{Path: "estop", Speed: 1, Direction: "turn"}).Motion(); m.Twist.WZ != 1 || m.Twist.VX != 0 {
		t.Errorf("turn: %+v", m.Twist)
	}
}

// TestParsePlanBad: every bad input is refused with an error that names the problem (a floor plan parses, and
// is refused as not runnable yet).
func TestParsePlanBad(t *testing.T) {
	edit := func(from, to string) string {
		if !strings.Contains(goodPlan, from) {
			t.Fatalf("%q not in the plan", from)
		}
		return strings.Replace(goodPlan, from, to, 1)
	}
	for _, tc := range []struct {
		name, plan, want string
	}{
		{"empty", "", "empty"},
		{"not yaml", "proof: [stand", "plan:"},
		{"unknown key", goodPlan + "colour: red\n", "colour"},
		{"unknown condition", edit("operator: CI}", "operator: CI, humidity: 40%}"), "humidity"},
		{"unknown cell key", edit("max_still_s: 1.0}\n  - {path: deadman", "max_still_s: 1.0, torque: 3}\n  - {path: deadman"), "torque"},
		{"two documents", goodPlan + "---\nproof: stand\n", "more than one"},
		{"newer version", edit("version: 1", "version: 2"), "newer stopproof"},
		{"no proof", edit("proof: stand\n", ""), "proof missing"},
		{"unknown proof", edit("proof: stand", "proof: bench"), `"bench" unknown`},
		{"unknown path", edit("path: estop", "path: estopp"), `unknown path "estopp"`},
		{"unknown direction", edit("direction: forward", "direction: up"), `unknown direction "up"`},
		{"zero requirement", edit("max_still_s: 1.0", "max_still_s: 0"), "impossible"},
		{"negative requirement", edit("max_still_s: 1.0", "max_still_s: -1"), "impossible"},
		{"NaN requirement", edit("max_still_s: 1.0", "max_still_s: .nan"), "impossible"},
		{"no requirement", edit("max_still_s: 1.0}\n  - {path: deadman", "}\n  - {path: deadman"), "impossible"},
		{"travel on the stand", edit("max_still_s: 1.0}\n  - {path: deadman", "max_still_s: 1.0, max_travel_m: 0.1}\n  - {path: deadman"), "floor requirement"},
		{"NaN travel", edit("max_still_s: 1.0}\n  - {path: deadman", "max_still_s: 1.0, max_travel_m: .nan}\n  - {path: deadman"), "impossible"},
		{"zero speed", edit("speed: 0.2, direction", "speed: 0, direction"), "speed"},
		{"NaN speed", edit("speed: 0.2, direction", "speed: .nan, direction"), "speed"},
		{"R is 1", edit("r: 0.8", "r: 1"), "outside (0, 1)"},
		{"R above 1", edit("r: 0.8", "r: 1.5"), "outside (0, 1)"},
		{"C is 0 with R", edit("c: 0.8", "c: 0"), "outside (0, 1)"},
		{"C negative", edit("c: 0.8", "c: -0.1"), "outside (0, 1)"},
		{"R NaN", edit("r: 0.8", "r: .nan"), "outside (0, 1)"},
		{"R without C", edit("c: 0.8\n", ""), "outside (0, 1)"},
		{"neither R/C nor N", edit("r: 0.8\nc: 0.8\n", ""), "neither"},
		{"N negative", edit("r: 0.8\nc: 0.8\n", "n: -3\n"), "positive"},
		{"N inconsistent", edit("r: 0.8\n", "r: 0.8\nn: 10\n"), "does not match"},
		{"N huge", edit("r: 0.8\nc: 0.8\n", "n: 100000\n"), "at most"},
		{"missing conditions", edit("conditions: {setup: stand, surface: wheels in the air, load: none, gradient: level, operator: CI}\n", ""), "setup missing"},
		{"missing operator", edit(", operator: CI}", "}"), "operator missing"},
		{"blank surface", edit("surface: wheels in the air", `surface: " "`), "surface missing"},
		{"setup mismatch", edit("setup: stand", "setup: floor"), "does not match"},
		{"no cells", goodPlan[:strings.Index(goodPlan, "cells:")], "no cells"},
		{"duplicate cell", goodPlan + "  - {path: estop, speed: 0.2, max_still_s: 2}\n", "twice"},
		{"battery NaN", goodPlan + "battery_min_v: .nan\n", "battery_min_v"},
		{"battery negative", goodPlan + "battery_min_v: -1\n", "battery_min_v"},
		{"hold cell with a stop time", goodPlan + "  - {path: reset-hold, speed: 0.2, max_still_s: 1}\n", "hold path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePlan([]byte(tc.plan))
			if err == nil {
				err = p.Runnable() // what stopproof campaign and Create check too
			}
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.plan)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestHoldCells: a hold path's cell has no stop time (its success is no motion), and the plan of the
// hold campaign parses and is runnable.
func TestHoldCells(t *testing.T) {
	p, err := ParsePlan([]byte(goodPlan + "  - {path: zero-after-timeout, speed: 0.2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.Cells[len(p.Cells)-1]; !c.Hold() || p.Cells[0].Hold() {
		t.Errorf("Hold(): %v for %s, %v for %s", c.Hold(), c.Path, p.Cells[0].Hold(), p.Cells[0].Path)
	}
	b, err := os.ReadFile("testdata/stand-holds-80.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p, err = ParsePlan(b); err != nil || p.Runnable() != nil || len(p.Cells) != 3 {
		t.Fatalf("stand-holds-80.yaml: %v", err)
	}
}

// TestScheduleDeterministic pins the order of seed 7: the same plan gives the same schedule everywhere,
// another seed another one; every cell N times, reps numbered in order.
func TestScheduleDeterministic(t *testing.T) {
	p, err := ParsePlan([]byte(goodPlan))
	if err != nil {
		t.Fatal(err)
	}
	a, b := Schedule(p), Schedule(p)
	if !slices.Equal(a, b) {
		t.Fatal("two schedules of one plan differ")
	}
	var order []string
	for _, s := range a {
		order = append(order, strings.Fields(s.Cell)[0][:1])
	}
	const pinned = "eeeeeddedddeeddd" // seed 7: e = estop, d = deadman
	if got := strings.Join(order, ""); got != pinned {
		t.Errorf("seed 7 order %s, pinned %s (math/rand/v2's PCG and Shuffle are specified: a change here changes every recorded campaign)", got, pinned)
	}
	reps := map[string]int{}
	for i, s := range a {
		reps[s.Cell]++
		if s.Seq != i+1 || s.Rep != reps[s.Cell] {
			t.Errorf("slot %d: %+v", i, s)
		}
	}
	if reps["estop fwd 0.2"] != 8 || reps["deadman fwd 0.2"] != 8 {
		t.Errorf("reps %v", reps)
	}
	p.Seed = 8
	if slices.Equal(Schedule(p), a) {
		t.Error("seed 8 gives seed 7's order")
	}
}
