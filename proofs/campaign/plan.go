package campaign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stand"
)

// The proofs a plan may name. The floor's campaign is not built yet: Validate refuses it.
const (
	ProofStand = "stand"
	ProofFloor = "floor"
)

// Directions a cell may drive in; "" is forward. On the stand the wheels are in the air, so every direction
// spins them; the motion's name follows the stand proof's ("fwd 0.2", "rot 1.0").
var directions = map[string]string{"forward": "fwd", "back": "back", "left": "left", "right": "right", "turn": "rot"}

// DirectionList is the directions a plan may use, for error messages and help.
const DirectionList = "forward, back, left, right, turn"

// ParsePlan reads a plan file (YAML; unknown keys are errors) and validates it. The error names the file's
// problem in words for the command line; nothing has moved when it is returned.
func ParsePlan(b []byte) (*Plan, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var p Plan
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("plan: the file is empty")
		}
		return nil, fmt.Errorf("plan: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("plan: more than one YAML document; a plan is one")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Hash is the SHA-256 of the plan file's bytes: a campaign folder belongs to exactly one plan.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Validate says what is wrong with the plan, before anything moves.
func (p *Plan) Validate() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("plan: "+format, a...) }
	if p.Version == 0 {
		p.Version = 1
	}
	if p.Version > Version || p.Version < 0 {
		return bad("version %d: this stopproof reads plan version %d; use a newer stopproof", p.Version, Version)
	}
	switch p.Proof {
	case ProofStand, ProofFloor:
	case "":
		return bad("proof missing: say stand (wheels in the air) or floor")
	default:
		return bad("proof %q unknown: say stand or floor", p.Proof)
	}
	if _, err := p.n(); err != nil {
		return err
	}
	c := p.Conditions
	for _, f := range []struct{ name, v string }{{"setup", c.Setup}, {"surface", c.Surface}, {"load", c.Load},
		{"gradient", c.Gradient}, {"operator", c.Operator}} {
		if strings.TrimSpace(f.v) == "" {
			return bad("conditions: %s missing: the conditions that cannot be measured must be stated (setup, surface, load, gradient, operator)", f.name)
		}
	}
	if c.Setup != p.Proof {
		return bad("conditions: setup %q does not match proof %q", c.Setup, p.Proof)
	}
	if !finite(p.BatteryMinV) || p.BatteryMinV < 0 || p.BatteryMinV > 30 {
		return bad("battery_min_v %v: want volts in [0, 30] (0: no pause)", p.BatteryMinV)
	}
	if len(p.Cells) == 0 {
		return bad("no cells: list at least one {path, speed, direction, max_still_s}")
	}
	seen := map[string]bool{}
	for i := range p.Cells {
		cell := &p.Cells[i]
		if err := cell.validate(p.Proof); err != nil {
			return bad("cell %d: %v", i+1, err)
		}
		id := cell.ID()
		if seen[id] {
			return bad("cell %d: %q is listed twice", i+1, id)
		}
		seen[id] = true
	}
	return nil
}

// Runnable says whether stopproof can run the plan's campaign (Validate has passed): the stand's and the
// floor's (FloorRobot).
func (p *Plan) Runnable() error { return nil }

func (c *Cell) validate(proof string) error {
	if proof == ProofFloor {
		if _, ok := floor.Paths.Lookup(c.Path); !ok {
			return fmt.Errorf("unknown path %q: a floor cell's path is one of %s", c.Path, floor.Paths.List())
		}
	} else if _, ok := stand.Paths.Lookup(c.Path); !ok {
		return fmt.Errorf("unknown path %q: a stand cell's path is one of %s", c.Path, stand.PathList())
	}
	if _, ok := directions[c.Direction]; !ok && c.Direction != "" {
		return fmt.Errorf("unknown direction %q: use %s", c.Direction, DirectionList)
	}
	if !finite(c.Speed) || c.Speed <= 0 || c.Speed > 5 {
		return fmt.Errorf("speed %v: want a positive speed in m/s (rad/s for a turn), at most 5", c.Speed)
	}
	if c.Hold() {
		// A hold path's success is no motion until the deliberate act, then the ramp: it has no stop time.
		if c.MaxStillS != 0 || c.MaxTravelM != 0 {
			return fmt.Errorf("%s is a hold path: its requirement is no motion until the deliberate act, then the ramp from zero; leave out max_still_s and max_travel_m", c.Path)
		}
		return nil
	}
	if !finite(c.MaxStillS) || c.MaxStillS <= 0 {
		return fmt.Errorf("max_still_s %v is impossible: the requirement is the most seconds from the trigger to still, > 0", c.MaxStillS)
	}
	if c.MaxStillS > 60 {
		return fmt.Errorf("max_still_s %v: more than a minute is no stop requirement", c.MaxStillS)
	}
	if math.IsNaN(c.MaxTravelM) || c.MaxTravelM < 0 || math.IsInf(c.MaxTravelM, 0) {
		return fmt.Errorf("max_travel_m %v is impossible: the most travel after the trigger, metres, > 0", c.MaxTravelM)
	}
	if proof == ProofStand && c.MaxTravelM != 0 {
		return fmt.Errorf("max_travel_m is a floor requirement: on the stand the wheels are in the air and nothing travels")
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// RunsFor is the success-run test's number of consecutive successes that shows success probability r at
// confidence c: n = ceil(ln(1-c)/ln r) (0.95/0.95: 59; 0.90/0.90: 22; 0.8/0.8: 8).
func RunsFor(r, c float64) int {
	// The small tolerance keeps a quotient that is an integer up to rounding (ln 0.01 / ln 0.1 = 2.0000000004)
	// from becoming one run more.
	return int(math.Ceil(math.Log(1-c)/math.Log(r) - 1e-9))
}

// Runs is the number of runs per cell (Validate has checked the plan): N, or RunsFor(R, C).
func (p *Plan) Runs() int {
	n, _ := p.n()
	return n
}

func (p *Plan) n() (int, error) {
	rc := p.R != 0 || p.C != 0
	for _, v := range []struct {
		name string
		x    float64
	}{{"r", p.R}, {"c", p.C}} {
		if rc && (!(v.x > 0 && v.x < 1)) {
			return 0, fmt.Errorf("plan: %s = %v is outside (0, 1): R is the required success probability, C the confidence (e.g. r: 0.95, c: 0.95)", v.name, v.x)
		}
	}
	switch {
	case !rc && p.N == 0:
		return 0, errors.New("plan: neither r and c nor n: give the required success probability and the confidence (r: 0.95, c: 0.95 gives 59 runs a cell), or n")
	case p.N < 0:
		return 0, fmt.Errorf("plan: n = %d: want a positive number of runs a cell", p.N)
	case p.N > 10000:
		return 0, fmt.Errorf("plan: n = %d runs a cell is beyond any campaign (at most 10000)", p.N)
	case !rc:
		return p.N, nil
	}
	n := RunsFor(p.R, p.C)
	if n > 10000 {
		return 0, fmt.Errorf("plan: r = %v, c = %v need %d runs a cell (at most 10000)", p.R, p.C, n)
	}
	if p.N != 0 && p.N != n {
		return 0, fmt.Errorf("plan: n = %d does not match r = %v, c = %v, which need n = %d; give r and c, or n, or all three consistently", p.N, p.R, p.C, n)
	}
	return n, nil
}

// Motion is the cell's drive command, named as the stand proof names its motions ("fwd 0.2", "rot 1.0").
func (c Cell) Motion() stand.Motion {
	dir := c.Direction
	if dir == "" {
		dir = "forward"
	}
	var tw kinematics.Twist
	switch dir {
	case "forward":
		tw.VX = c.Speed
	case "back":
		tw.VX = -c.Speed
	case "left":
		tw.VY = c.Speed
	case "right":
		tw.VY = -c.Speed
	case "turn":
		tw.WZ = c.Speed
	}
	return stand.Motion{Name: directions[dir] + " " + speedName(c.Speed), Twist: tw}
}

// speedName writes 0.2 as "0.2", 0.35 as "0.35" and 1 as "1.0" (the stand proof's "rot 1.0").
func speedName(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// ID names the cell as the stand proof's progress lines name a step: "estop fwd 0.2".
// Hold reports whether the cell's path is a hold path (stoppath.Spec.Hold): its success is no motion.
func (c Cell) Hold() bool {
	if s, ok := stand.Paths.Lookup(c.Path); ok && s.Hold != "" {
		return true
	}
	s, ok := floor.Paths.Lookup(c.Path)
	return ok && s.Hold != ""
}

func (c Cell) ID() string { return c.Path + " " + c.Motion().Name }

// Cell finds a cell by its ID.
func (p *Plan) Cell(id string) (Cell, bool) {
	for _, c := range p.Cells {
		if c.ID() == id {
			return c, true
		}
	}
	return Cell{}, false
}

// Schedule is the campaign's order: every cell N times, shuffled by a PCG seeded with the plan's seed (the
// same plan gives the same order on every machine and Go version: math/rand/v2's PCG and Shuffle are
// specified), so drift over a session is spread over the cells rather than mistaken for one's property.
// Seq counts from 1; Rep numbers each cell's runs in the order they come.
func Schedule(p *Plan) []Slot {
	n := p.Runs()
	var slots []Slot
	for _, c := range p.Cells {
		for range n {
			slots = append(slots, Slot{Cell: c.ID()})
		}
	}
	rng := rand.New(rand.NewPCG(uint64(p.Seed), 0x5709_0f00_c4a9_a160))
	rng.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
	reps := map[string]int{}
	for i := range slots {
		reps[slots[i].Cell]++
		slots[i].Seq, slots[i].Rep = i+1, reps[slots[i].Cell]
	}
	return slots
}
