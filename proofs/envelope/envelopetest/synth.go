// Package envelopetest writes synthetic floor campaign folders for the envelope's tests: the folders a floor
// campaign would leave (plan.yaml, campaign.json, runs/<seq>.json), with each run's travel and time to still
// from a known braking model, so the envelope is tested without running a robot (or the floor campaign
// runner).
package envelopetest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/proofs/campaign"
)

// Campaign describes a synthetic campaign. The zero value of a field takes the default named beside it.
type Campaign struct {
	Name       string    // "synthetic floor"
	Proof      string    // "floor" ("stand": a stand plan, no travel)
	Path       string    // "estop"
	Directions []string  // ["forward"]
	Speeds     []float64 // [0.1, 0.2, 0.35] (testdata/floor-envelope-80.yaml's)
	// The model: travel = ResponseTime·v + v²/(2·Decel) + noise in [0, Noise); still = ResponseTime + v/Decel +
	// 0.05 + noise in [0, 0.05).
	ResponseTime float64 // 0.15 s
	Decel        float64 // 1.0 m/s²
	Noise        float64 // 0.002 m
	MaxTravelM   float64 // 0.5 m; < 0: no travel requirement
	MaxStillS    float64 // 2 s
	Seed         uint64  // 1
	// Responses: the floor runs carry their response parts (the board at 0.02 s + [0, 0.01) s, the measured
	// deceleration at ResponseTime + [0, 0.02) s); false: none, as on a robot without the board's record.
	Responses bool
}

func (c *Campaign) defaults() {
	if c.Name == "" {
		c.Name = "synthetic floor"
	}
	if c.Proof == "" {
		c.Proof = campaign.ProofFloor
	}
	if c.Path == "" {
		c.Path = "estop"
	}
	if len(c.Directions) == 0 {
		c.Directions = []string{"forward"}
	}
	if len(c.Speeds) == 0 {
		c.Speeds = []float64{0.1, 0.2, 0.35}
	}
	if c.ResponseTime == 0 {
		c.ResponseTime = 0.15
	}
	if c.Decel == 0 {
		c.Decel = 1.0
	}
	if c.Noise == 0 {
		c.Noise = 0.002
	}
	if c.MaxTravelM == 0 {
		c.MaxTravelM = 0.5
	}
	if c.MaxStillS == 0 {
		c.MaxStillS = 2
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
}

// Plan is the campaign's plan: R = C = 0.8 (8 runs a cell, the maximum is the bound).
func (c Campaign) Plan() campaign.Plan {
	c.defaults()
	p := campaign.Plan{Version: 1, Name: c.Name, Proof: c.Proof, R: 0.8, C: 0.8, Seed: 7,
		Conditions: campaign.Conditions{Setup: c.Proof, Surface: "vinyl (synthetic)", Load: "none", Gradient: "level", Operator: "go test"}}
	for _, d := range c.Directions {
		for _, v := range c.Speeds {
			cell := campaign.Cell{Path: c.Path, Speed: v, Direction: d, MaxStillS: c.MaxStillS}
			if c.Proof == campaign.ProofFloor && c.MaxTravelM > 0 {
				cell.MaxTravelM = c.MaxTravelM
			}
			p.Cells = append(p.Cells, cell)
		}
	}
	return p
}

// Travel is the model's travel at v (no noise).
func (c Campaign) Travel(v float64) float64 {
	c.defaults()
	return c.ResponseTime*v + v*v/(2*c.Decel)
}

// Write writes the campaign folder dir (created) and returns it.
func (c Campaign) Write(dir string) (string, error) {
	c.defaults()
	p := c.Plan()
	for _, d := range []string{"runs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return "", err
		}
	}
	b, err := yaml.Marshal(p)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), b, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "campaign.json"), []byte(`{"version": 1}`), 0o644); err != nil {
		return "", err
	}
	rng := rand.New(rand.NewPCG(c.Seed, 33))
	n := p.Runs()
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	seq := 0
	for rep := 1; rep <= n; rep++ {
		for _, cell := range p.Cells {
			seq++
			v := cell.Speed
			start := t0.Add(time.Duration(seq) * 30 * time.Second)
			r := campaign.Run{Slot: campaign.Slot{Seq: seq, Cell: cell.ID(), Rep: rep}, Worker: 1, Start: start, End: start.Add(20 * time.Second),
				Outcome: campaign.Pass, NoRestart: true, TravelM: math.NaN(), ResponseS: math.NaN(), DecelS: math.NaN(),
				StillS: round(c.ResponseTime+v/c.Decel+0.05+0.05*rng.Float64(), 0.01),
				Conditions: campaign.RunConditions{Host: "synth", ConfigSHA256: "c0ffee", Version: "test", Target: "synthetic (no robot)",
					Thresholds: map[string]float64{"still_m_s": 0.01}, ResolutionS: 0.1}}
			if c.Proof == campaign.ProofFloor {
				r.TravelM = round(c.Travel(v)+c.Noise*rng.Float64(), 0.0001)
				r.Conditions.ResolutionM = 0.001
				if c.Responses {
					r.ResponseS = round(0.02+0.01*rng.Float64(), 0.001)
					r.DecelS = round(c.ResponseTime+0.02*rng.Float64(), 0.001)
				}
			}
			b, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, "runs", strconv.Itoa(seq)+".json"), b, 0o644); err != nil {
				return "", err
			}
		}
	}
	if seq == 0 {
		return "", fmt.Errorf("no cells")
	}
	return dir, nil
}

// round rounds x to a multiple of q by dividing by 1/q, so 0.0209 prints as 0.0209, not 0.020900000000000002.
func round(x, q float64) float64 { return math.Round(x/q) / math.Round(1/q) }
