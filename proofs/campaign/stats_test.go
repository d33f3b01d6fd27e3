package campaign

import (
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

func TestSuccessRunN(t *testing.T) {
	for _, c := range []struct {
		r, c float64
		want int
	}{
		{0.95, 0.95, 59}, // ln 0.05 / ln 0.95 = 58.40
		{0.90, 0.90, 22}, // 21.85
		{0.8, 0.8, 8},    // 7.21
		{0.9, 0.95, 29},  // 28.43
		{0.99, 0.95, 299},
		{0.5, 0.75, 2},  // exactly 2: rounding must not make it 3
		{0.5, 0.875, 3}, // exactly 3
		{0.5, 0.76, 3},
		{0, 0.9, 0}, {1, 0.9, 0}, {0.9, 1, 0}, {0.9, 0, 0}, {math.NaN(), 0.9, 0},
	} {
		if got := SuccessRunN(c.r, c.c); got != c.want {
			t.Errorf("SuccessRunN(%g, %g) = %d, want %d", c.r, c.c, got, c.want)
		}
		// n successes show r at c and n-1 do not.
		if n := SuccessRunN(c.r, c.c); n > 0 {
			if math.Pow(c.r, float64(n)) > 1-c.c+1e-12 || n > 1 && math.Pow(c.r, float64(n-1)) <= 1-c.c-1e-12 {
				t.Errorf("SuccessRunN(%g, %g) = %d is not the smallest n with r^n <= 1-c", c.r, c.c, n)
			}
		}
	}
}

func TestShownR(t *testing.T) {
	for _, c := range []struct {
		n    int
		c    float64
		want float64
	}{
		{59, 0.95, 0.950492}, {8, 0.8, 0.817765}, {40, 0.95, 0.927842}, {22, 0.9, 0.900628},
	} {
		if got := ShownR(c.n, c.c); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ShownR(%d, %g) = %.6f, want %.6f", c.n, c.c, got, c.want)
		}
	}
}

// Hand-computed: the k-th largest of n bounds the p-quantile with confidence P(Bin(n, 1-p) >= k).
func TestBoundConfidence(t *testing.T) {
	q := func(p float64, n int) float64 { return math.Pow(p, float64(n)) }
	for _, c := range []struct {
		n, k int
		p    float64
		want float64
	}{
		{59, 1, 0.95, 1 - q(0.95, 59)}, // 0.9515: the maximum of 59 bounds the 95th percentile at 95 %
		{8, 1, 0.8, 1 - q(0.8, 8)},     // 0.8322: the maximum of 8, the 80th at 83 %
		{22, 1, 0.9, 1 - q(0.9, 22)},   // 0.9015
		{100, 2, 0.95, 1 - q(0.95, 100) - 100*0.05*q(0.95, 99)},
		{10, 10, 0.5, q(0.5, 10)}, // the minimum is above the median only when all 10 are
		{5, 6, 0.5, 0}, {5, 0, 0.5, 0},
	} {
		if got := BoundConfidence(c.n, c.k, c.p); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("BoundConfidence(%d, %d, %g) = %.9f, want %.9f", c.n, c.k, c.p, got, c.want)
		}
	}
	if got := BoundConfidence(59, 1, 0.95); got < 0.95 || got > 0.952 {
		t.Errorf("59 runs: %.4f", got)
	}
	if got := BoundConfidence(8, 1, 0.8); got < 0.83 || got > 0.833 {
		t.Errorf("8 runs: %.4f", got)
	}
}

func TestBoundOrder(t *testing.T) {
	for _, c := range []struct {
		n     int
		p, c  float64
		wantK int
	}{
		{59, 0.95, 0.95, 1},
		{58, 0.95, 0.95, 0}, // 1 - 0.95^58 = 0.949
		{8, 0.8, 0.8, 1},
		{7, 0.8, 0.8, 0},     // 0.790
		{100, 0.95, 0.95, 2}, // k=2: 0.963; k=3: 0.882
		{93, 0.95, 0.95, 2},  // the smallest n at which the 2nd largest reaches 95 %
		{92, 0.95, 0.95, 1},
		{0, 0.95, 0.95, 0},
	} {
		k, conf := BoundOrder(c.n, c.p, c.c)
		if k != c.wantK {
			t.Errorf("BoundOrder(%d, %g, %g) = %d (%.4f), want %d", c.n, c.p, c.c, k, conf, c.wantK)
		}
		if k > 0 && (conf < c.c || BoundConfidence(c.n, k+1, c.p) >= c.c) {
			t.Errorf("BoundOrder(%d, %g, %g): k=%d conf %.4f is not the tightest", c.n, c.p, c.c, k, conf)
		}
	}
}

// bruteBinomTail is P(Bin(n, q) >= k) summed term by term in exact rational arithmetic.
func bruteBinomTail(n, k int, q float64) float64 {
	qr := new(big.Rat).SetFloat64(q)
	pr := new(big.Rat).Sub(big.NewRat(1, 1), qr)
	sum := new(big.Rat)
	for j := k; j <= n; j++ {
		term := new(big.Rat).SetInt(new(big.Int).Binomial(int64(n), int64(j)))
		for i := 0; i < j; i++ {
			term.Mul(term, qr)
		}
		for i := 0; i < n-j; i++ {
			term.Mul(term, pr)
		}
		sum.Add(sum, term)
	}
	f, _ := sum.Float64()
	return f
}

// Property: BoundConfidence agrees with the binomial summed by brute force, for random n, k, p.
func TestBoundConfidenceAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	for i := 0; i < 150; i++ {
		n := 1 + rng.Intn(60)
		k := 1 + rng.Intn(n)
		p := 0.01 + 0.98*rng.Float64()
		got, want := BoundConfidence(n, k, p), bruteBinomTail(n, k, 1-p)
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("n=%d k=%d p=%g: BoundConfidence %.12f, brute force %.12f", n, k, p, got, want)
		}
	}
}

// The derivation itself, by simulation: how often the k-th largest of n uniform draws is at or above the
// p-quantile (p itself) is BoundConfidence(n, k, p). 1 - BinomCDF(n-k; n, p), the other way round, is far off.
func TestBoundConfidenceBySimulation(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range []struct {
		n, k int
		p    float64
	}{{8, 1, 0.8}, {20, 2, 0.9}, {59, 1, 0.95}, {30, 3, 0.85}} {
		const trials = 20000
		hit := 0
		for i := 0; i < trials; i++ {
			above := 0
			for j := 0; j < c.n; j++ {
				if rng.Float64() >= c.p {
					above++
				}
			}
			if above >= c.k { // the k-th largest is at or above p
				hit++
			}
		}
		got, want := float64(hit)/trials, BoundConfidence(c.n, c.k, c.p)
		if math.Abs(got-want) > 0.012 {
			t.Errorf("n=%d k=%d p=%g: simulated %.4f, BoundConfidence %.4f", c.n, c.k, c.p, got, want)
		}
		if wrong := 1 - BinomCDF(c.n-c.k, c.n, c.p); math.Abs(got-wrong) < 0.05 {
			t.Errorf("n=%d k=%d p=%g: the simulation cannot tell the formula from its complement (%.4f)", c.n, c.k, c.p, wrong)
		}
	}
}

func record(seq int, cell string, still float64) FiledRun {
	return FiledRun{Run: Run{Slot: Slot{Seq: seq, Cell: cell, Rep: seq}, Outcome: Pass, StillS: still, TravelM: math.NaN(), NoRestart: true,
		Conditions: RunConditions{ResolutionS: 0.01}}, File: "runs/x.json"}
}

// One cell by hand: 8 runs at R = C = 0.8.
func TestAnalyzeCellByHand(t *testing.T) {
	vals := []float64{0.30, 0.10, 0.20, 0.40, 0.25, 0.35, 0.15, 0.45}
	cell := Cell{Path: "estop", Speed: 0.2, MaxStillS: 0.5}
	mk := func(mod func([]FiledRun)) CellResult {
		var rs []FiledRun
		for i, v := range vals {
			rs = append(rs, record(i+1, "estop fwd 0.2", v))
		}
		if mod != nil {
			mod(rs)
		}
		return analyzeCell(cell, "estop fwd 0.2", rs, 1, 8, 0.8, 0.8)
	}
	r := mk(nil)
	d := r.Still
	// sorted: .10 .15 .20 .25 .30 .35 .40 .45; mean 2.2/8; squared deviations sum to 0.105, / 7.
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"min", float64(d.Min), 0.10}, {"median", float64(d.Median), 0.25}, {"mean", float64(d.Mean), 0.275},
		{"sd", float64(d.SD), math.Sqrt(0.105 / 7)}, {"p95", float64(d.P95), 0.45}, {"max", float64(d.Max), 0.45},
		{"worst", float64(d.Worst), 0.45}, {"bound", float64(d.Bound), 0.45},
		{"margin to the bound", float64(d.MarginBound), 0.05}, {"margin to the worst", float64(d.MarginWorst), 0.05},
		{"confidence", r.BoundConf, 1 - math.Pow(0.8, 8)},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.6f, want %.6f", c.name, c.got, c.want)
		}
	}
	if r.Verdict != Pass || !r.ClaimHolds || r.N != 8 || r.Cut != 1 || r.BoundK != 1 {
		t.Errorf("verdict %s, claim %v, n %d, cut %d, k %d: %v", r.Verdict, r.ClaimHolds, r.N, r.Cut, r.BoundK, r.Reasons)
	}
	if want := "R >= 0.8 at 80 % confidence: 8 of 8"; r.Claim != want {
		t.Errorf("claim %q, want %q", r.Claim, want)
	}
	if want := "the maximum of 8 runs bounds the 80th percentile at 83.2 % confidence"; r.BoundText != want {
		t.Errorf("bound %q, want %q", r.BoundText, want)
	}

	// Negative controls: each must FAIL the cell and say why.
	for _, c := range []struct {
		name string
		mod  func([]FiledRun)
		want []string
	}{
		{"a failed run", func(rs []FiledRun) { rs[3].Outcome, rs[3].StillS, rs[3].Reason = Fail, math.NaN(), "never still" },
			[]string{"cannot be made: 1 of 8 runs did not succeed (runs 4)", "FAIL (never still)"}},
		{"a restart", func(rs []FiledRun) { rs[5].NoRestart = false },
			[]string{"restart: the wheels moved again after the stop in 1 of 8 runs (runs 6)"}},
		{"a hole in the IMU data after the stop", func(rs []FiledRun) { rs[2].NoRestart, rs[2].IMUHole = false, true },
			[]string{"evidence: a hole in the IMU data broke the quiet after the stop in 1 of 8 runs (runs 3)",
				"no restart cannot be shown"}},
		{"a run past the requirement", func(rs []FiledRun) { rs[0].StillS = 0.55 },
			[]string{"still after 0.550 s > 0.500 s required", "the bound 0.550 s is past the requirement 0.500 s"}},
		{"a timeout", func(rs []FiledRun) { rs[7].Outcome, rs[7].StillS = Timeout, math.NaN() },
			[]string{"TIMEOUT", "the bound never is past the requirement 0.500 s"}},
	} {
		r := mk(c.mod)
		all := strings.Join(append(append([]string{r.Claim}, r.Reasons...), failedWhy(r)...), "\n")
		if r.Verdict != Fail || r.ClaimHolds {
			t.Errorf("%s: verdict %s, claim holds %v", c.name, r.Verdict, r.ClaimHolds)
		}
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the findings lack %q:\n%s", c.name, w, all)
			}
		}
		if strings.Contains(c.name, "hole") && (r.Restarts != 0 || strings.Contains(all, "moved again")) {
			t.Errorf("%s: a hole in the data is reported as a restart (%d):\n%s", c.name, r.Restarts, all)
		}
	}

	// Too few runs: 6 of 8 show R >= 0.2^(1/6) = 0.764 at 80 %.
	r = analyzeCell(cell, "estop fwd 0.2", []FiledRun{record(1, "x", .1), record(2, "x", .1), record(3, "x", .1), record(4, "x", .1), record(5, "x", .1), record(6, "x", .1)}, 0, 8, 0.8, 0.8)
	if r.Verdict != Fail || r.BoundK != 0 || !strings.Contains(r.Claim, "6 of the 8 runs done; 6 successes show R >= 0.764 at 80 % confidence") ||
		!strings.Contains(r.BoundText, "the maximum bounds it at 73.7 %, or the 76.4th percentile at 80 %") {
		t.Errorf("6 of 8: %s; %s; %s", r.Verdict, r.Claim, r.BoundText)
	}
}

func failedWhy(r CellResult) []string {
	var s []string
	for _, f := range r.Failed {
		s = append(s, f.Why)
	}
	return s
}

// A plan that gives n alone: the claim is the R those n runs show at C (0.95 when the plan gives none).
func TestAnalyzeNAlone(t *testing.T) {
	p := standPlan()
	p.R, p.C, p.N = 0, 0, 30
	p.Cells = p.Cells[:1]
	sum := summarize(t, "", campaignDir(t, synth{plan: p, seed: 3}))
	cr := sum.Cells[0]
	// 0.05^(1/30) = 0.90497, stated rounded down: the maximum of 30 bounds the 90.4th percentile at 95 %.
	if cr.Verdict != Pass || cr.Claim != "R >= 0.904 at 95 % confidence: 30 of 30" || cr.BoundK != 1 ||
		cr.BoundText != "the maximum of 30 runs bounds the 90.4th percentile at 95 % confidence" {
		t.Errorf("%s: %q; %q; k %d", cr.Verdict, cr.Claim, cr.BoundText, cr.BoundK)
	}
}
