package stopmon

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example files (testdata/README.md says how they were made): two campaigns on the simulator, host "vm",
// no --config, so the runs record the reported config's hash.
const (
	simHost   = "vm"
	simConfig = "2f9b53d15adb0fbf66df45662fc8ad9d1f49f2d02953b6aee0a331655372289f"
)

var simID = Identity{Host: simHost, ReportedConfigSHA256: simConfig}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadLimitsExamples(t *testing.T) {
	// limit = max(bound * 1.1, bound + resolution), the bounds read off the summaries (the max of 8 runs).
	for _, tc := range []struct {
		file, kind, dir string
		speed           float64
		still, travel   float64 // 0: none
		min, max        float64
	}{
		{"floor-ci-summary.json", "estop", "fwd", 0.1, 0.29873561543109495 + 0.1, 0.012886239107285606 * 1.1, 0, 0.1},
		{"floor-ci-summary.json", "estop", "fwd", 0.05, 0.29873561543109495 + 0.1, 0.012886239107285606 * 1.1, 0, 0.1},
		{"floor-ci-summary.json", "estop", "fwd", 0.2, 0.4715 + 0.1, 0.0450 * 1.1, 0.1, 0.35},
		{"floor-ci-summary.json", "estop", "fwd", 0.35, 0.4715 + 0.1, 0.0450 * 1.1, 0.1, 0.35},
		{"stand-ci-summary.json", "estop", "fwd", 0.2, 0.35 + 0.05, 0, 0, 0.2},
		{"stand-ci-summary.json", "deadman", "fwd", 0.15, 0.75 * 1.1, 0, 0, 0.2},
		{"floor-ci-envelope.json", "estop", "fwd", 0.1, 0.29873561543109495 * 1.1, 0.012886239107285606 * 1.1, 0, 0.1},
		{"floor-ci-envelope.json", "estop", "fwd", 0.3, 0.4715 * 1.1, 0.0450 * 1.1, 0.1, 0.35},
	} {
		t.Run(tc.file+"/"+tc.kind+"/"+fmtF(tc.speed), func(t *testing.T) {
			id := simID
			id.AcceptUnidentified = strings.Contains(tc.file, "envelope")
			l, err := LoadLimits(filepath.Join("testdata", tc.file), id)
			if err != nil {
				t.Fatal(err)
			}
			lim, ok, why := l.Lookup(tc.kind, tc.dir, tc.speed)
			if !ok {
				t.Fatalf("no limit: %s", why)
			}
			if math.Abs(lim.MaxStillS-tc.still) > 0.001 || math.Abs(lim.MaxTravelM-tc.travel) > 0.0005 {
				t.Errorf("limit still %v travel %v, want %v %v (%s)", lim.MaxStillS, lim.MaxTravelM, tc.still, tc.travel, lim.Source)
			}
			if lim.MinSpeed != tc.min || lim.MaxSpeed != tc.max || lim.Kind != tc.kind {
				t.Errorf("band %s %v..%v, want %s %v..%v", lim.Kind, lim.MinSpeed, lim.MaxSpeed, tc.kind, tc.min, tc.max)
			}
			if !strings.Contains(lim.Source, "floor-ci-80") && !strings.Contains(lim.Source, "stand-ci-80") {
				t.Errorf("source %q names no campaign", lim.Source)
			}
			t.Logf("%s", lim.Source)
		})
	}
}

func TestLookupBands(t *testing.T) {
	l, err := LoadLimits(filepath.Join("testdata", "floor-ci-summary.json"), simID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, kind, dir string
		speed           float64
		ok              bool
		why             string // in the source (ok) or the reason (not ok)
	}{
		{"at the slow tested speed", "estop", "fwd", 0.1, true, "cell estop/fwd/0.1"},
		{"just above it: the next tested speed up", "estop", "fwd", 0.1001, true, "cell estop/fwd/0.35"},
		{"above the fastest tested speed", "estop", "fwd", 0.36, false, "above the tested speeds (up to 0.35 m/s)"},
		{"untested direction: the tested ones'", "estop", "left", 0.2, true, "direction left not tested"},
		{"untested kind", "deadman", "fwd", 0.2, false, "no deadman limit"},
		{"a negative speed", "estop", "fwd", -1, false, "not a speed"},
		{"NaN", "estop", "fwd", math.NaN(), false, "not a speed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim, ok, why := l.Lookup(tc.kind, tc.dir, tc.speed)
			if ok != tc.ok {
				t.Fatalf("ok %v (%s), want %v", ok, why, tc.ok)
			}
			got := why
			if ok {
				got = lim.Source
			}
			if !strings.Contains(got, tc.why) {
				t.Errorf("%q does not say %q", got, tc.why)
			}
		})
	}
}

func TestLoadLimitsRefused(t *testing.T) {
	env := filepath.Join("testdata", "floor-ci-envelope.json")
	sum := filepath.Join("testdata", "floor-ci-summary.json")
	for _, tc := range []struct {
		name string
		file string
		want Identity
		says []string
	}{
		{"another host", sum, Identity{Host: "rosorin-02", ReportedConfigSHA256: simConfig}, []string{"host vm (16 records)", "host rosorin-02"}},
		{"another config", sum, Identity{Host: simHost, ConfigSHA256: "c0ffee"}, []string{"reported:" + simConfig, "this driver's is c0ffee"}},
		{"another reported config", sum, Identity{Host: simHost, ReportedConfigSHA256: "beef"}, []string{"reported:" + simConfig, "reported:beef"}},
		{"both", sum, Identity{Host: "rosorin-02", ConfigSHA256: "c0ffee"}, []string{"rosorin-02", "c0ffee", "vm (16 records)"}},
		{"another path set", sum, Identity{Host: simHost, ReportedConfigSHA256: simConfig, Require: []string{"estop", "deadman", "disable"}}, []string{"no limits for deadman, disable", "the file has estop"}},
		{"an unidentified envelope", env, simID, []string{"does not record its runs' host", "host vm"}},
		{"an envelope, another path set", env, Identity{AcceptUnidentified: true, Require: []string{"deadman"}}, []string{"no limits for deadman"}},
		{"no such file", filepath.Join("testdata", "nope.json"), simID, []string{"nope.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := LoadLimits(tc.file, tc.want)
			if err == nil {
				t.Fatalf("loaded %s, want refused", l.Source)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
	var ie *IdentityError
	if _, err := LoadLimits(sum, Identity{Host: "x"}); !errors.As(err, &ie) {
		t.Errorf("another host: %v, want an *IdentityError", err)
	}
}

func TestParseLimitsBad(t *testing.T) {
	sum := readTestdata(t, "floor-ci-summary.json")
	for _, tc := range []struct {
		name string
		b    []byte
		says string
	}{
		{"empty", nil, "not JSON"},
		{"not JSON", []byte("estop: 0.4"), "not JSON"},
		{"another kind", []byte(`{"kind":"rosorin.proof"}`), `kind "rosorin.proof"`},
		{"a newer summary", bytes.Replace(sum, []byte(`"version": 1`), []byte(`"version": 9`), 1), "newer"},
		{"a failing campaign", bytes.ReplaceAll(sum, []byte(`"verdict": "PASS"`), []byte(`"verdict": "FAIL"`)), "no passing cell"},
		{"an infinite bound", bytes.Replace(sum, []byte(`"bound": 0.29873561543109495`), []byte(`"bound": "inf"`), 1), "not a positive finite"},
		{"a summary without cells", []byte(`{"kind":"rosorin.campaign.summary","version":1,"name":"x","conditions":{"hosts":["vm (1 records)"],"configs":["reported:` + simConfig + ` (1 records)"]}}`), "no passing cell"},
		{"no hosts recorded", []byte(`{"kind":"rosorin.campaign.summary","version":1,"name":"x"}`), "(none recorded)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLimits("f.json", tc.b, simID)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
}

func TestConfigLimits(t *testing.T) {
	c := ConfigLimits{
		"estop":   {MaxStillS: 0.6, MaxTravelM: 0.08},
		"deadman": {MaxStillS: 1.0, Bands: []ConfigBand{{UpTo: 0.2, MaxStillS: 0.8, MaxTravelM: 0.1}, {UpTo: 0.35, MaxStillS: 0.9}}},
	}
	l, err := c.Limits("estop", "deadman")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind          string
		speed         float64
		still, travel float64
	}{
		{"estop", 0.1, 0.6, 0.08},
		{"estop", 5, 0.6, 0.08},
		{"deadman", 0.1, 0.8, 0.1},
		{"deadman", 0.3, 0.9, 0},
		{"deadman", 0.5, 1.0, 0},
	} {
		lim, ok, why := l.Lookup(tc.kind, "left", tc.speed)
		if !ok || lim.MaxStillS != tc.still || lim.MaxTravelM != tc.travel || !strings.HasPrefix(lim.Source, "config") {
			t.Errorf("%s at %v: %+v %v %s, want still %v travel %v from config", tc.kind, tc.speed, lim, ok, why, tc.still, tc.travel)
		}
	}
	for _, tc := range []struct {
		name string
		c    ConfigLimits
		req  []string
		says string
	}{
		{"unknown kind", ConfigLimits{"brake": {MaxStillS: 1}}, nil, `unknown stop kind "brake"`},
		{"negative", ConfigLimits{"estop": {MaxStillS: -1}}, nil, "max_still_s -1"},
		{"NaN", ConfigLimits{"estop": {MaxTravelM: math.NaN()}}, nil, "max_travel_m NaN"},
		{"bands not rising", ConfigLimits{"estop": {Bands: []ConfigBand{{UpTo: 0.3, MaxStillS: 1}, {UpTo: 0.2, MaxStillS: 1}}}}, nil, "band 2"},
		{"empty band", ConfigLimits{"estop": {Bands: []ConfigBand{{UpTo: 0.3}}}}, nil, "neither"},
		{"required kind missing", ConfigLimits{"estop": {MaxStillS: 1}}, []string{"kill"}, "no limits for kill"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.c.Limits(tc.req...); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
}

func FuzzParseLimits(f *testing.F) {
	for _, n := range []string{"floor-ci-summary.json", "stand-ci-summary.json", "floor-ci-envelope.json"} {
		f.Add(readTestdata(f, n))
	}
	f.Add([]byte(`{"kind":"rosorin.envelope","envelopes":[{"path":"estop","direction":"forward","speeds":[{"speed_m_s":"inf","bound_time_s":null}]}]}`))
	f.Add([]byte(`{"kind":"rosorin.campaign.summary","cells":[{"cell":{"path":"scanloss","speed":0.35},"verdict":"PASS","bound_k":0,"still":{"max":"-inf"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, id := range []Identity{simID, {AcceptUnidentified: true}, {Require: []string{"estop"}}} {
			l, err := ParseLimits("fuzz.json", b, id)
			if err != nil {
				if l != nil {
					t.Fatal("limits with an error")
				}
				continue
			}
			// Whatever loaded gives finite, positive limits or none, and never panics on a lookup.
			for _, k := range l.Kinds() {
				for _, v := range []float64{0, 0.1, 0.35, 1, math.Inf(1)} {
					lim, ok, _ := l.Lookup(k, "fwd", v)
					if ok && (!(lim.MaxStillS >= 0) || !(lim.MaxTravelM >= 0) || math.IsInf(lim.MaxStillS, 0) || lim.MaxStillS == 0 && lim.MaxTravelM == 0) {
						t.Fatalf("limit %+v", lim)
					}
				}
			}
		}
	})
}
