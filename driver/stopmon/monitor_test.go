package stopmon

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

func loadT(t testing.TB, file string) *Limits {
	t.Helper()
	id := simID
	id.AcceptUnidentified = strings.Contains(file, "envelope")
	l, err := LoadLimits(filepath.Join("testdata", file), id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fp(x float64) *float64 { return &x }

// stop is a counted forward stop of kind at speed; travel < 0: none measured.
func stop(seq uint64, kind string, speed, still, travel float64) api.StopRecord {
	r := api.StopRecord{Seq: seq, Kind: kind, Speed: speed, Direction: "fwd", BodyVel: [3]float64{speed, 0, 0}, StillS: fp(still),
		Outcome: "PASS", Confidence: api.ConfidenceOK}
	if travel >= 0 {
		r.TravelM = fp(travel)
	}
	return r
}

// The stand campaign's estop limit at 0.2 m/s: its bound 0.35 s + the resolution 0.05 s.
const standEStopLim = 0.40

func TestObserveLevels(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	for _, tc := range []struct {
		name   string
		stills []float64 // estop at 0.2 m/s, in order
		levels []string  // each record's Level
		state  string    // the state's level after the last
		why    string    // in the state's Why
	}{
		{"one slow stop: WARN", []float64{0.25, 0.45}, []string{"ok", "warn"}, "warn", "still after 0.45 s, limit 0.40 s"},
		{"a WARN then a good stop: ok", []float64{0.45, 0.25}, []string{"warn", "ok"}, "ok", ""},
		{"at the limit is not past it", []float64{standEStopLim}, []string{"ok"}, "ok", ""},
		{"two of five: WARNs, no ERROR", []float64{0.45, 0.25, 0.46, 0.25, 0.3}, []string{"warn", "ok", "warn", "ok", "ok"}, "ok", ""},
		{"three of five: ERROR", []float64{0.52, 0.25, 0.61, 0.3, 0.58}, []string{"warn", "ok", "warn", "ok", "error"}, "error",
			"3 of the last 5 estop stops past the 0.40 s limit (0.52, 0.61, 0.58 s)"},
		{"three of five scattered over seven: not a trend", []float64{0.52, 0.61, 0.25, 0.25, 0.3, 0.25, 0.58}, []string{"warn", "warn", "ok", "ok", "ok", "ok", "warn"}, "warn", "seq 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(ModeWarn, l, DefaultRules)
			for i, s := range tc.stills {
				r := m.Observe(stop(uint64(i+1), api.StopEStop, 0.2, s, -1))
				if r.Level != tc.levels[i] {
					t.Errorf("stop %d (%.2f s): level %q, want %q (%v)", i+1, s, r.Level, tc.levels[i], r.Notes)
				}
				if r.Limit == nil || math.Abs(r.Limit.MaxStillS-standEStopLim) > 1e-9 {
					t.Errorf("stop %d: limit %+v", i+1, r.Limit)
				}
			}
			st := m.State()
			if st.Level != tc.state || !strings.Contains(st.Why, tc.why) || tc.why == "" && st.Why != "" {
				t.Errorf("state %q %q, want %q saying %q", st.Level, st.Why, tc.state, tc.why)
			}
			if st.Holding {
				t.Error("holding in warn mode")
			}
			if ok, why := m.CanEnable(); !ok {
				t.Errorf("warn mode refused enable: %s", why)
			}
		})
	}
}

func TestNotCountedNeverFlag(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	m := New(ModeHold, l, DefaultRules)
	seq := uint64(0)
	for _, c := range []string{api.ConfidenceCrawl, api.ConfidenceTurning, api.ConfidenceDegenerate, api.ConfidenceNoData, api.ConfidenceInterrupt, "", "bogus"} {
		for range 20 {
			seq++
			r := stop(seq, api.StopEStop, 0.2, 5, 1)
			r.Confidence = c
			if c == api.ConfidenceNoData {
				r.StillS = nil
			}
			got := m.Observe(r)
			if got.Level != "" || !strings.Contains(strings.Join(got.Notes, " "), "not counted") {
				t.Fatalf("confidence %q: level %q notes %v, want not counted", c, got.Level, got.Notes)
			}
		}
	}
	st := m.State()
	if st.Level != api.StopLevelOK || st.Holding || st.Counted != 0 || st.Stops != seq || st.LastSeq != seq {
		t.Errorf("state %+v", st)
	}
	// Stops without a limit are not counted either: another kind, above the tested speeds.
	for i, r := range []api.StopRecord{stop(seq+1, api.StopKill, 0.2, 5, -1), stop(seq+2, api.StopEStop, 0.5, 5, -1)} {
		got := m.Observe(r)
		if got.Level != "" || got.Limit != nil {
			t.Errorf("record %d: level %q limit %+v, want not counted", i, got.Level, got.Limit)
		}
		t.Log(got.Notes)
	}
	if n := m.Observe(stop(seq+3, api.StopEStop, 0.5, 5, -1)).Notes; !strings.Contains(strings.Join(n, " "), "above the tested speeds") {
		t.Errorf("notes %v do not say above the tested speeds", n)
	}
}

func TestNeverStillCountsAsPast(t *testing.T) {
	m := New(ModeHold, loadT(t, "stand-ci-summary.json"), DefaultRules)
	for i := range 3 {
		r := stop(uint64(i+1), api.StopEStop, 0.2, 0, -1)
		r.StillS = nil
		r.Outcome = "FAIL"
		if got := m.Observe(r); i < 2 && got.Level != api.StopLevelWarn || i == 2 && got.Level != api.StopLevelError {
			t.Errorf("stop %d: %q %v", i+1, got.Level, got.Notes)
		}
	}
	if st := m.State(); !st.Holding || !strings.Contains(st.Why, "never still") {
		t.Errorf("state %+v", st)
	}
}

func TestHoldAckHoldsAgain(t *testing.T) {
	m := New(ModeHold, loadT(t, "stand-ci-summary.json"), DefaultRules)
	seq := uint64(0)
	obs := func(still float64) api.StopRecord {
		seq++
		return m.Observe(stop(seq, api.StopEStop, 0.2, still, -1))
	}
	if err := m.Ack("ana", time.Unix(0, 0)); !errors.Is(err, ErrNothingToAck) {
		t.Errorf("ack with nothing to acknowledge: %v", err)
	}
	for _, s := range []float64{0.25, 0.5, 0.52} {
		obs(s)
	}
	if ok, _ := m.CanEnable(); !ok || m.State().Holding {
		t.Fatal("holding after two slow stops")
	}
	if r := obs(0.55); r.Level != api.StopLevelError {
		t.Fatalf("third slow stop: %q", r.Level)
	}
	ok, why := m.CanEnable()
	st := m.State()
	if ok || !st.Holding || st.Level != api.StopLevelError {
		t.Fatalf("not holding after the ERROR: %v %+v", ok, st)
	}
	for _, s := range []string{why, st.Why} {
		if !strings.Contains(s, "3 of the last 4 estop stops past the 0.40 s limit (0.50, 0.52, 0.55 s)") || !strings.Contains(s, "safety role") {
			t.Errorf("%q does not say why and who may clear it", s)
		}
	}
	// Good stops do not clear a hold: only a person does.
	for range 10 {
		obs(0.25)
	}
	if ok, _ := m.CanEnable(); ok {
		t.Fatal("the hold cleared itself")
	}
	if err := m.Ack(" ", time.Unix(0, 0)); err == nil {
		t.Error("an ack without a name")
	}
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	if err := m.Ack("ana", at); err != nil {
		t.Fatal(err)
	}
	st = m.State()
	if ok, _ := m.CanEnable(); !ok || st.Holding || st.Level != api.StopLevelOK || !strings.Contains(st.Acked, "ana at 2026-12-05T10:00:00Z") {
		t.Fatalf("after the ack: %+v", st)
	}
	// The window restarted: one more slow stop is a WARN, not the old trend again.
	if r := obs(0.5); r.Level != api.StopLevelWarn {
		t.Errorf("first slow stop after the ack: %q", r.Level)
	}
	if ok, _ := m.CanEnable(); !ok {
		t.Fatal("held again at once by the old stops")
	}
	obs(0.5)
	if r := obs(0.5); r.Level != api.StopLevelError {
		t.Errorf("a new trend after the ack: %q", r.Level)
	}
	if ok, _ := m.CanEnable(); ok {
		t.Error("a new trend after the ack does not hold")
	}
	if err := m.Ack("bo", at.Add(time.Hour)); err != nil || !strings.Contains(m.State().Acked, "bo at") {
		t.Errorf("second ack: %v %+v", err, m.State())
	}
}

func TestModes(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	for _, tc := range []struct {
		mode     string
		holds    bool
		level    string
		stateWhy string
	}{
		{ModeOff, false, "", "off"},
		{ModeWarn, false, api.StopLevelError, "3 of the last 3"},
		{ModeHold, true, api.StopLevelError, "holding"},
		{"", true, api.StopLevelError, "holding"},
		{"hodl", true, api.StopLevelError, "unknown stop_monitor mode: taken as hold"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			m := New(tc.mode, l, Rules{})
			var r api.StopRecord
			for i := range 3 {
				r = m.Observe(stop(uint64(i+1), api.StopEStop, 0.2, 0.6, -1))
			}
			if r.Level != tc.level || r.Limit == nil {
				t.Errorf("level %q limit %v, want %q with the limit", r.Level, r.Limit, tc.level)
			}
			ok, _ := m.CanEnable()
			if ok == tc.holds || m.State().Holding != tc.holds {
				t.Errorf("can enable %v, holding %v", ok, m.State().Holding)
			}
			if st := m.State(); !strings.Contains(st.Why, tc.stateWhy) {
				t.Errorf("why %q does not say %q", st.Why, tc.stateWhy)
			}
		})
	}
	if _, err := ParseMode("hodl"); err == nil {
		t.Error("ParseMode took hodl")
	}
	if m := New(ModeHold, nil, Rules{}); m.State().LimitsSource != "none" || m.Observe(stop(1, "estop", 0.2, 9, -1)).Level != "" {
		t.Error("no limits: something judged")
	}
}

// TestToleranceRule: rule b finds a shift that keeps most single stops under the limit.
func TestToleranceRule(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	// 20 stops alternating 0.28 s (the campaign's) and 0.40 s (at the limit), none past the 0.40 s limit: no
	// WARN, and rule a is silent; rule b is not (the slow half is no longer the campaign's 20 % tail).
	m := New(ModeWarn, l, DefaultRules)
	var r api.StopRecord
	for i := range 20 {
		r = m.Observe(stop(uint64(i+1), api.StopEStop, 0.2, 0.28+0.12*float64(i%2), -1))
		if i < 19 && r.Level != api.StopLevelOK {
			t.Fatalf("stop %d: %q %v", i+1, r.Level, r.Notes)
		}
	}
	if r.Level != api.StopLevelError || !strings.Contains(m.State().Why, "upper tolerance bound (80 % of stops at 80 % confidence") {
		t.Errorf("level %q, why %q", r.Level, m.State().Why)
	}
	t.Log(m.State().Why)
}

// TestOneFarStopIsAWarn: a single stop far past its limit among typical ones is a WARN, never an ERROR
// (rule b leaves the worst out); two are a trend.
func TestOneFarStopIsAWarn(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	for _, tc := range []struct {
		name string
		far  int
		want string
	}{{"one stop at 2.5 times its limit", 1, api.StopLevelWarn}, {"two", 2, api.StopLevelError}} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(ModeHold, l, DefaultRules)
			var r api.StopRecord
			for i := range 20 {
				s := []float64{0.2, 0.25, 0.3, 0.35}[i%4]
				if i >= 20-tc.far {
					s = 2.5 * standEStopLim
				}
				r = m.Observe(stop(uint64(i+1), api.StopEStop, 0.2, s, -1))
			}
			if r.Level != tc.want {
				t.Errorf("level %q, want %q (%s)", r.Level, tc.want, m.State().Why)
			}
		})
	}
}

// TestTolFactor checks the approximation against the exact factors' coverage by simulation.
func TestTolFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		n       int
		p, conf float64
	}{{10, 0.8, 0.8}, {10, 0.9, 0.9}, {20, 0.95, 0.95}, {5, 0.8, 0.8}} {
		k := tolFactor(tc.n, tc.p, tc.conf)
		zp := zq(tc.p)
		hit, trials := 0, 40000
		xs := make([]float64, tc.n)
		for range trials {
			for i := range xs {
				xs[i] = rng.NormFloat64()
			}
			mean, sd := meanSD(xs)
			if mean+k*sd >= zp {
				hit++
			}
		}
		cov := float64(hit) / float64(trials)
		t.Logf("n %d p %v conf %v: k %.4f, coverage %.4f", tc.n, tc.p, tc.conf, k, cov)
		if math.Abs(cov-tc.conf) > 0.015 {
			t.Errorf("n %d p %v conf %v: k %.4f covers %.4f", tc.n, tc.p, tc.conf, k, cov)
		}
	}
	if k := tolFactor(10, 0.9, 0.9); math.Abs(k-2.0657) > 0.001 {
		t.Errorf("k(10, 0.9, 0.9) = %.4f, want 2.0657", k)
	}
	if !math.IsNaN(tolFactor(1, 0.8, 0.8)) || !math.IsNaN(tolFactor(2, 0.8, 1)) {
		t.Error("a factor from too few values")
	}
}

// campaignRuns are a summary's counted runs per cell (still and travel; travel NaN on the stand).
func campaignRuns(t testing.TB, file string) map[string][][2]float64 {
	var s struct {
		Runs []struct {
			Cell    string `json:"cell"`
			StillS  num    `json:"still_s"`
			TravelM num    `json:"travel_m"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(readTestdata(t, file), &s); err != nil {
		t.Fatal(err)
	}
	out := map[string][][2]float64{}
	for _, r := range s.Runs {
		out[r.Cell] = append(out[r.Cell], [2]float64{float64(r.StillS), float64(r.TravelM)})
	}
	return out
}

// cellOf parses "estop fwd 0.35".
func cellOf(t testing.TB, id string) (kind string, speed float64) {
	f := strings.Fields(id)
	if len(f) != 3 || f[1] != "fwd" {
		t.Fatalf("cell %q", id)
	}
	if err := json.Unmarshal([]byte(f[2]), &speed); err != nil {
		t.Fatal(err)
	}
	return f[0], speed
}

// TestFalseFlagRate: stops drawn from the campaign's own distribution (a normal with each cell's mean and
// sd, and the runs themselves resampled) at the cell's speed, 10 000 per cell, interleaved as in service:
// no ERROR. The WARN rate is logged (docs/safety-case.md has the figures).
//
// STOPMON_FALSE_FLAG_STOPS=1000000 go test -run TestFalseFlagRate -v ./driver/stopmon measures with more.
func TestFalseFlagRate(t *testing.T) {
	n := 10000
	if v := os.Getenv("STOPMON_FALSE_FLAG_STOPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("STOPMON_FALSE_FLAG_STOPS=%q: want a count", v)
		}
	}
	for _, file := range []string{"floor-ci-summary.json", "stand-ci-summary.json"} {
		runs := campaignRuns(t, file)
		l := loadT(t, file)
		for _, draw := range []string{"normal", "resampled"} {
			t.Run(file+"/"+draw, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(35, uint64(len(draw))))
				m := New(ModeHold, l, DefaultRules)
				type cellDraw struct {
					kind                    string
					speed                   float64
					runs                    [][2]float64
					mS, sS, mT, sT          float64
					warns, errs, stops, trv int
				}
				var cells []*cellDraw
				for id, rs := range runs {
					kind, speed := cellOf(t, id)
					c := &cellDraw{kind: kind, speed: speed, runs: rs}
					var st, tr []float64
					for _, r := range rs {
						st = append(st, r[0])
						if !math.IsNaN(r[1]) {
							tr = append(tr, r[1])
						}
					}
					c.mS, c.sS = meanSD(st)
					if len(tr) > 0 {
						c.mT, c.sT = meanSD(tr)
					}
					cells = append(cells, c)
				}
				seq := uint64(0)
				for range n * len(cells) {
					c := cells[rng.IntN(len(cells))]
					var still, travel float64
					if draw == "normal" {
						still = c.mS + c.sS*rng.NormFloat64()
						travel = -1
						if c.sT > 0 {
							travel = c.mT + c.sT*rng.NormFloat64()
						}
					} else {
						r := c.runs[rng.IntN(len(c.runs))]
						still, travel = r[0], r[1]
						if math.IsNaN(travel) {
							travel = -1
						}
					}
					seq++
					r := m.Observe(stop(seq, c.kind, c.speed, still, travel))
					c.stops++
					switch r.Level {
					case api.StopLevelWarn:
						c.warns++
					case api.StopLevelError:
						// Counted once: a person acknowledges it, and the windows start again.
						c.errs++
						c.warns++
						t.Logf("ERROR at stop %d: %s", seq, m.State().Why)
						if err := m.Ack("test", time.Unix(0, 0)); err != nil {
							t.Fatal(err)
						}
					}
				}
				total := 0
				for _, c := range cells {
					t.Logf("%s %s %v m/s: %d stops, %d WARN (%.3f %%), %d ERROR", file, c.kind, c.speed, c.stops, c.warns, 100*float64(c.warns)/float64(c.stops), c.errs)
					total += c.errs
				}
				st := m.State()
				if total > 0 || st.Holding {
					t.Errorf("%d false ERRORs in %d stops drawn from the campaign's own distribution (%s)", total, seq, st.Why)
				}
			})
		}
	}
}

// TestSustainedDegradation: the stand campaign's estop distribution shifted: the monitor must ERROR (hold)
// within a few stops of the shift, and the rule that fired is named.
func TestSustainedDegradation(t *testing.T) {
	l := loadT(t, "stand-ci-summary.json")
	runs := campaignRuns(t, "stand-ci-summary.json")["estop fwd 0.2"]
	var xs []float64
	for _, r := range runs {
		xs = append(xs, r[0])
	}
	mean, sd := meanSD(xs)
	for _, tc := range []struct {
		name    string
		shift   func(i int) float64 // added to the i-th stop after the shift (from 0)
		within  int                 // an ERROR by then
		ruleSay string
	}{
		{"a step of +0.15 s (brakes or a slipping motor)", func(int) float64 { return 0.15 }, 5, "of the last"},
		{"a step of +0.25 s", func(int) float64 { return 0.25 }, 3, ""},
		{"a drift of +0.01 s a stop", func(i int) float64 { return 0.01 * float64(i) }, 25, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 35))
			m := New(ModeHold, l, DefaultRules)
			seq := uint64(0)
			for range 200 {
				seq++
				m.Observe(stop(seq, api.StopEStop, 0.2, mean+sd*rng.NormFloat64(), -1))
			}
			if m.State().Holding {
				t.Fatal("held before the shift")
			}
			for i := range 1000 {
				seq++
				m.Observe(stop(seq, api.StopEStop, 0.2, mean+sd*rng.NormFloat64()+tc.shift(i), -1))
				if ok, why := m.CanEnable(); !ok {
					t.Logf("held at the %d-th stop after the shift: %s", i+1, why)
					if i+1 > tc.within {
						t.Errorf("held only at stop %d after the shift, want by %d", i+1, tc.within)
					}
					if !strings.Contains(why, tc.ruleSay) {
						t.Errorf("why %q does not say %q", why, tc.ruleSay)
					}
					return
				}
			}
			t.Errorf("no hold in 1000 stops after the shift")
		})
	}
}
