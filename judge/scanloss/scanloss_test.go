package scanloss

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func f(x float64) *float64 { return &x }

// seedRun rebuilds the run of 2026-10-02 16:17 UTC: scan_age 0.07 before the kill of reader 7806, states
// every 0.1 s, the age climbing to 2.97 s, a scan again 3.03 s after the kill (the new reader 8146), then fresh
// scans to the end of the 9 s watch; the wheels disabled throughout.
func seedRun() Input {
	in := Input{Before: f(0.07), Killed: []int{7806}, ReaderPIDsNow: []int{8146}, ScanTimeout: 0.5}
	for k := 0; k <= 29; k++ {
		t := float64(k) / 10
		in.Obs = append(in.Obs, Observation{T: t, ScanAge: f(math.Round((t+0.07)*100) / 100), Blocked: "disabled"})
	}
	for t := 3.03; t <= 9; t += 0.1 {
		in.Obs = append(in.Obs, Observation{T: t, ScanAge: f(0.05 + 0.05*math.Mod(t*10, 1)), Blocked: "disabled"})
	}
	return in
}

func TestSeedRunPasses(t *testing.T) {
	r := Judge(seedRun())
	if !r.Pass || r.Reason != "" {
		t.Fatalf("seed run: %s", r)
	}
	const want = `{"scan_age_before":0.07,"killed_pids":[7806],"worst_scan_age_s":2.97,"scans_back_after_s":3.03,"reader_pids_now":[8146],"state_blocked":"disabled","pass":true,"reason":""}`
	if got := r.JSONLine(); got != want {
		t.Fatalf("JSON line\n got %s\nwant %s", got, want)
	}
	if r.String() != want+"\nPASS" {
		t.Fatalf("%q", r.String())
	}
	// The seed's six fields in the seed's order, then ours.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(r.JSONLine()))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if strings.Join(keys, ",") != "scan_age_before,killed_pids,worst_scan_age_s,scans_back_after_s,reader_pids_now,state_blocked,pass,reason" {
		t.Fatalf("keys %v", keys)
	}
}

// The negative controls: each breaks one thing the check exists to see, and must FAIL for that reason.
func TestNegativeControls(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(in *Input)
		reason string
	}{
		{"never stale (the kill did not take)", func(in *Input) {
			for i := range in.Obs {
				in.Obs[i].ScanAge = f(0.08)
			}
		}, "the scan never went stale: worst scan_age 0.08 s"},
		{"never back (reader respawn off)", func(in *Input) {
			for i := range in.Obs {
				in.Obs[i].ScanAge = f(in.Obs[i].T + 0.07)
			}
			in.ReaderPIDsNow = nil
		}, "scans did not come back by themselves"},
		{"same pid (the old reader never died)", func(in *Input) { in.ReaderPIDsNow = []int{7806} }, "killed reader pid 7806 still runs"},
		{"old pid beside a new one", func(in *Input) { in.ReaderPIDsNow = []int{7806, 8146} }, "killed reader pid 7806 still runs"},
		{"no new pid (scans from elsewhere)", func(in *Input) { in.ReaderPIDsNow = nil }, "no LiDAR reader runs now"},
		{"back only before it went stale", func(in *Input) {
			// A young scan_age at 1.5 s, then stale to the end: the seed's rule would have passed it.
			for i := range in.Obs {
				tt := in.Obs[i].T
				switch {
				case tt < 1.4:
					in.Obs[i].ScanAge = f(0.1)
				case tt < 1.6:
					in.Obs[i].ScanAge = f(0.05)
				default:
					in.Obs[i].ScanAge = f(tt - 1.5)
				}
			}
		}, "scans did not come back by themselves"},
		{"gate off", func(in *Input) { in.ScanTimeout = 0 }, "scan_timeout 0: the driver's scan gate is off"},
		{"NaN timeout", func(in *Input) { in.ScanTimeout = math.NaN() }, "scan_timeout NaN"},
		{"nothing killed", func(in *Input) { in.Killed = nil }, "no LiDAR reader was killed"},
		{"no scan before", func(in *Input) { in.Before = nil }, "no scan_age before the kill"},
		{"stale before", func(in *Input) { in.Before = f(1.2) }, "the scan was already stale before the kill (scan_age 1.20 s"},
		{"no states", func(in *Input) { in.Obs = nil }, "no driver state after the kill"},
		{"states without scan_age", func(in *Input) {
			for i := range in.Obs {
				in.Obs[i].ScanAge = nil
			}
		}, "the driver reported no scan_age after the kill"},
		{"only states from before the kill", func(in *Input) {
			for i := range in.Obs {
				in.Obs[i].T -= 20
			}
		}, "the driver reported no scan_age after the kill"},
		{"bad back age", func(in *Input) { in.BackAge = -1 }, "bad limits"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := seedRun()
			c.edit(&in)
			r := Judge(in)
			if r.Pass || !strings.HasPrefix(r.Reason, c.reason) {
				t.Fatalf("want FAIL %q, got %s", c.reason, r)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBadObservations: NaN and infinite values are counted and skipped, order does not matter, and a result
// stays printable.
func TestBadObservations(t *testing.T) {
	in := seedRun()
	rng := rand.New(rand.NewSource(1))
	rng.Shuffle(len(in.Obs), func(i, j int) { in.Obs[i], in.Obs[j] = in.Obs[j], in.Obs[i] })
	in.Obs = append(in.Obs, Observation{T: math.NaN(), ScanAge: f(0.1)}, Observation{T: 4, ScanAge: f(math.Inf(1))},
		Observation{T: 5, ScanAge: f(math.NaN()), Blocked: "disabled"})
	r := Judge(in)
	if !r.Pass || r.Dropped != 3 || *r.WorstScanAge != 2.97 || *r.ScansBackAfter != 3.03 {
		t.Fatalf("%s (dropped %d)", r, r.Dropped)
	}
	if !strings.Contains(r.JSONLine(), `"dropped":3`) {
		t.Fatalf("dropped not recorded: %s", r.JSONLine())
	}
	in.Before = f(math.NaN())
	r = Judge(in)
	if r.Pass || !strings.HasPrefix(r.Reason, "no scan_age before the kill") || !strings.HasSuffix(r.Reason, "(3 observations with a non-finite time or scan_age skipped)") {
		t.Fatalf("%s", r)
	}
	var zero Result
	if zero.Verdict() != "FAIL: " || !strings.HasPrefix(Judge(Input{}).Verdict(), "FAIL: scan_timeout 0") {
		t.Fatal("the zero input must FAIL")
	}
	if got := Judge(Input{}).JSONLine(); !strings.Contains(got, `"killed_pids":[]`) || !strings.Contains(got, `"state_blocked":null`) {
		t.Fatalf("empty lists and nil must print as [] and null: %s", got)
	}
}

// TestInputNotModified: Judge copies what it sorts.
func TestInputNotModified(t *testing.T) {
	in := seedRun()
	in.Obs[0], in.Obs[5] = in.Obs[5], in.Obs[0]
	first := in.Obs[0].T
	Judge(in)
	if in.Obs[0].T != first {
		t.Fatal("Judge reordered the caller's observations")
	}
}

func FuzzJudge(f *testing.F) {
	f.Add(0.07, 0.5, uint8(30), int64(1), true)
	f.Add(math.NaN(), 0.0, uint8(0), int64(2), false)
	f.Fuzz(func(t *testing.T, before, timeout float64, n uint8, seed int64, newPID bool) {
		rng := rand.New(rand.NewSource(seed))
		in := Input{Before: &before, Killed: []int{100}, ScanTimeout: timeout}
		for i := 0; i < int(n); i++ {
			o := Observation{T: rng.NormFloat64() * 5}
			if rng.Intn(5) > 0 {
				a := []float64{rng.ExpFloat64(), math.NaN(), math.Inf(1), -1}[rng.Intn(4)]
				o.ScanAge = &a
			}
			in.Obs = append(in.Obs, o)
		}
		if newPID {
			in.ReaderPIDsNow = []int{101}
		}
		r := Judge(in)
		if r.Pass {
			// A PASS must rest on what the seed demanded.
			if r.WorstScanAge == nil || !(*r.WorstScanAge > timeout) || r.ScansBackAfter == nil || !(*r.ScansBackAfter > DefaultMinBackAfter) || !newPID {
				t.Fatalf("unfounded PASS: %s", r)
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}
