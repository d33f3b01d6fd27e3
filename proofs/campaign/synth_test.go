package campaign

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// standPlan is a small stand campaign: R = C = 0.8 (8 runs a cell) over the e-stop and the deadman at 0.2 m/s.
func standPlan() Plan {
	return Plan{Version: 1, Name: "stand ci", Proof: "stand", R: 0.8, C: 0.8, Seed: 7,
		Conditions: Conditions{Setup: "stand", Surface: "wheels in the air", Load: "none", Gradient: "level", Operator: "ci"},
		Cells: []Cell{
			{Path: "estop", Speed: 0.2, MaxStillS: 0.5},
			{Path: "deadman", Speed: 0.2, MaxStillS: 0.8},
		}}
}

// synth describes a synthetic campaign: its runs' times to still drawn from a seeded RNG, with faults put in
// by seq.
type synth struct {
	plan    Plan
	seed    int64
	base    map[string]float64 // cell ID -> the smallest time to still (default 0.2 s)
	fail    map[int]string     // seq -> outcome (FAIL, TIMEOUT) with no time to still
	restart map[int]bool       // seq -> the wheels moved again
	slow    map[int]float64    // seq -> this time to still
	cut     []int              // seqs that have a CUT record before their counted one
	missing []int              // seqs not run yet
	travel  bool               // floor: a travel per run
	day     int                // the campaign starts this many days after 2026-12-02
}

// runs makes the campaign's records: every cell's n runs in a seeded interleaving.
func (s synth) runs() []Run {
	rng := rand.New(rand.NewSource(s.seed))
	n := s.plan.runsPerCell()
	var slots []Slot
	for _, c := range s.plan.Cells {
		for rep := 1; rep <= n; rep++ {
			slots = append(slots, Slot{Cell: c.ID(), Rep: rep})
		}
	}
	rng.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
	t0 := time.Date(2026, 12, 2+s.day, 9, 0, 0, 0, time.UTC)
	skip := map[int]bool{}
	for _, q := range s.missing {
		skip[q] = true
	}
	var out []Run
	for i := range slots {
		sl := slots[i]
		sl.Seq = i + 1
		start := t0.Add(time.Duration(i) * 20 * time.Second)
		base := 0.2
		if b, ok := s.base[sl.Cell]; ok {
			base = b
		}
		still := base + 0.1*rng.Float64()
		r := Run{Slot: sl, Worker: 1, Start: start, End: start.Add(15 * time.Second), Outcome: Pass,
			StillS: math.Round(still*110) / 110, TravelM: math.NaN(), NoRestart: true,
			Conditions: RunConditions{Host: "sim-host", ConfigSHA256: "c0ffee", Version: "v0.20.0", Target: "sim (seed 3)",
				BatteryBeforeV: 12.4 - 0.002*float64(i), BatteryAfterV: 12.4 - 0.002*float64(i+1), SessionS: float64(i) * 20,
				Thresholds: map[string]float64{"still_rad_s": 0.05}, ResolutionS: 1.0 / 110},
			Evidence: "evidence/" + strconv.Itoa(sl.Seq) + ".log", MCAP: "evidence/" + strconv.Itoa(sl.Seq) + ".mcap"}
		if s.travel {
			r.TravelM = 0.02 + 0.03*rng.Float64()
			r.Conditions.ResolutionM = 0.001
		}
		if v, ok := s.slow[sl.Seq]; ok {
			r.StillS = v
		}
		if o, ok := s.fail[sl.Seq]; ok {
			r.Outcome, r.Reason, r.StillS = o, "never still within the hold", math.NaN()
		}
		if s.restart[sl.Seq] {
			r.NoRestart = false
			r.Outcome, r.Reason = Fail, "the wheels moved again 1.2 s after the stop"
		}
		if skip[sl.Seq] {
			continue
		}
		for _, q := range s.cut {
			if q == sl.Seq {
				c := r
				c.Outcome, c.Reason, c.StillS, c.End, c.NoRestart = Cut, "no end written (power loss)", math.NaN(), time.Time{}, false
				out = append(out, c)
			}
		}
		out = append(out, r)
	}
	return out
}

// writeFolder writes a campaign folder: plan.yaml, campaign.json, runs/<seq>.json (a CUT record as
// runs/<seq>.cut.json) and the evidence files the runs name.
func writeFolder(t testing.TB, dir string, p Plan, runs []Run) {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"runs", "evidence"} {
		must(os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	b, err := yaml.Marshal(p)
	must(err)
	must(os.WriteFile(filepath.Join(dir, "plan.yaml"), b, 0o644))
	must(os.WriteFile(filepath.Join(dir, "campaign.json"), []byte(`{"version": 1}`), 0o644))
	for _, r := range runs {
		b, err := json.MarshalIndent(r, "", "  ")
		must(err)
		name := strconv.Itoa(r.Seq) + ".json"
		if r.Outcome == Cut {
			name = strconv.Itoa(r.Seq) + ".cut.json"
		}
		must(os.WriteFile(filepath.Join(dir, "runs", name), b, 0o644))
		for _, ev := range []string{r.Evidence, r.MCAP} {
			if ev != "" {
				must(os.WriteFile(filepath.Join(dir, ev), []byte("evidence\n"), 0o644))
			}
		}
	}
}

// campaignDir writes s as one folder in a fresh temporary directory and returns it.
func campaignDir(t testing.TB, s synth) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "camp")
	writeFolder(t, dir, s.plan, s.runs())
	return dir
}

// shardDirs writes s as n shard folders (slot seq%n), each with the whole plan.
func shardDirs(t testing.TB, s synth, n int) []string {
	t.Helper()
	root := t.TempDir()
	by := make([][]Run, n)
	for _, r := range s.runs() {
		by[r.Seq%n] = append(by[r.Seq%n], r)
	}
	var dirs []string
	for i := range by {
		d := filepath.Join(root, "shard"+strconv.Itoa(i+1))
		for j := range by[i] {
			by[i][j].Shard = strconv.Itoa(i+1) + "/" + strconv.Itoa(n)
		}
		writeFolder(t, d, s.plan, by[i])
		dirs = append(dirs, d)
	}
	return dirs
}
