package vibration

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
)

// The stand run of 2026-10-02 17:16 UTC (chapter 19, docs/evidence/stop_proof_stand_20261002_171617.log) and
// its service line, as the chapter prints them (the chapter's copy lost the runs of spaces; compared with
// whitespace collapsed). Each row rebuilds the verdict from the printed numbers and must print the same line;
// Line must also pad the name to the seed's 34 columns.
var seedLines = []struct {
	name                                string
	spinning, still, worst, quiet, need float64
	release                             bool
	seed                                string
}{
	{"deadman (silence), fwd 0.2", 0.0053, 0.55, 0.0023, 4.5, 2, false, "deadman (silence), fwd 0.2 spinning 0.0053 -> still from 0.55 s on; worst after 0.0023 over 4.5 s PASS"},
	{"estop topic, fwd 0.2", 0.0056, 0.40, 0.0033, 4.6, 2, false, "estop topic, fwd 0.2 spinning 0.0056 -> still from 0.40 s on; worst after 0.0033 over 4.6 s PASS"},
	{"enable false, fwd 0.2", 0.0047, 0.35, 0.0033, 4.7, 2, false, "enable false, fwd 0.2 spinning 0.0047 -> still from 0.35 s on; worst after 0.0033 over 4.7 s PASS"},
	{"deadman (silence), fwd 0.35", 0.0072, 0.75, 0.0034, 4.3, 2, false, "deadman (silence), fwd 0.35 spinning 0.0072 -> still from 0.75 s on; worst after 0.0034 over 4.3 s PASS"},
	{"estop topic, fwd 0.35", 0.0066, 0.50, 0.0032, 4.5, 2, false, "estop topic, fwd 0.35 spinning 0.0066 -> still from 0.50 s on; worst after 0.0032 over 4.5 s PASS"},
	{"enable false, fwd 0.35", 0.0071, 0.75, 0.0032, 4.3, 2, false, "enable false, fwd 0.35 spinning 0.0071 -> still from 0.75 s on; worst after 0.0032 over 4.3 s PASS"},
	{"deadman (silence), rot 1.0", 0.0048, 0.50, 0.0025, 4.5, 2, false, "deadman (silence), rot 1.0 spinning 0.0048 -> still from 0.50 s on; worst after 0.0025 over 4.5 s PASS"},
	{"estop topic, rot 1.0", 0.0041, 0.25, 0.0031, 4.8, 2, false, "estop topic, rot 1.0 spinning 0.0041 -> still from 0.25 s on; worst after 0.0031 over 4.8 s PASS"},
	{"enable false, rot 1.0", 0.0055, 0.30, 0.0028, 4.8, 2, false, "enable false, rot 1.0 spinning 0.0055 -> still from 0.30 s on; worst after 0.0028 over 4.8 s PASS"},
	// The scan-loss path judged with its shorter quiet requirement (the wheels are released after 1.4 s).
	{"LiDAR silent (scan gate), fwd 0.35", 0.0058, 0.95, 0.0026, 1.4, 1, false, "LiDAR silent (scan gate), fwd 0.35 spinning 0.0058 -> still from 0.95 s on; worst after 0.0026 over 1.4 s PASS"},
	{"LiDAR back: wheels released by themselves", 0.0066, math.NaN(), math.NaN(), 0, 0, true, "LiDAR back: wheels released by themselves vibration 0.0066 (spinning > 0.0035) PASS"},
	{"driver kill, fwd 0.35", 0.0067, 0.55, 0.0030, 3.0, 2, false, "driver kill, fwd 0.35 spinning 0.0067 -> still from 0.55 s on; worst after 0.0030 over 3.0 s PASS"},
	{"driver service, fwd 0.35", 0.0068, 0.50, 0.0031, 3.1, 2, false, "driver service, fwd 0.35 spinning 0.0068 -> still from 0.50 s on; worst after 0.0031 over 3.1 s PASS"},
	{"contact reflex, fwd 0.2", 0.0043, 0.25, 0.0031, 5.2, 2, false, "contact reflex, fwd 0.2 spinning 0.0043 -> still from 0.25 s on; worst after 0.0031 over 5.2 s PASS"},
}

var spaces = regexp.MustCompile(`\s+`)

func TestLineSeedFormat(t *testing.T) {
	for _, c := range seedLines {
		t.Run(c.name, func(t *testing.T) {
			v := newVerdict(KindStop, 100, 100+c.still+c.quiet, DefaultParams())
			if c.release {
				v.Kind = KindRelease
			}
			v.Params.NeedQuiet = c.need
			v.Outcome, v.Spinning, v.StillFrom, v.WorstAfter, v.QuietFor = Pass, c.spinning, c.still, c.worst, c.quiet
			got := v.Line(c.name)
			if spaces.ReplaceAllString(got, " ") != c.seed {
				t.Fatalf("line\n got %q\nseed %q", got, c.seed)
			}
			// The seed's f'{name:34s}': the name padded to 34 columns, then one space.
			if len(c.name) < nameWidth && got[:nameWidth+1] != c.name+strings.Repeat(" ", nameWidth-len(c.name)+1) {
				t.Fatalf("name not padded to %d columns: %q", nameWidth, got)
			}
			if !strings.HasSuffix(got, "  PASS") {
				t.Fatalf("outcome not set off by two spaces: %q", got)
			}
		})
	}
	// The exact bytes of one line, for a person who greps logs.
	v := newVerdict(KindStop, 0, 5, DefaultParams())
	v.Outcome, v.Spinning, v.StillFrom, v.WorstAfter, v.QuietFor = Pass, 0.0056, 0.40, 0.0033, 4.6
	const want = "estop topic, fwd 0.2               spinning 0.0056 -> still from 0.40 s on; worst after 0.0033 over 4.6 s  PASS"
	if got := v.Line("estop topic, fwd 0.2"); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestLineFailures(t *testing.T) {
	p := DefaultParams()
	cases := []struct {
		v    Verdict
		want string
	}{
		{Judge(series{seed: 1, from: 0, to: trig + 5, segs: []seg{{math.Inf(1), fwd35Level}}}.gen(), trig, trig+5, p),
			`^deadman \(silence\), fwd 0.35 +spinning 0\.0\d{3} -> NEVER settled in 5\.0 s  FAIL$`},
		{Judge(stopAt(1, fwd35Level, 2.5).gen(), trig, trig+5, p),
			`^deadman \(silence\), fwd 0.35 +spinning 0\.0\d{3} -> still from 2\.\d\d s on; worst after 0\.00\d\d over 2\.\d s  FAIL: still only 2\.\d\d s after the trigger \(limit 2\.0 s\)$`},
		{Judge(nil, trig, trig+5, p), `^deadman \(silence\), fwd 0.35 +spinning nan -> not judged  FAIL: no IMU samples \(0 given`},
		{TimedOut(trig, trig+5, p, "no driver state for 10 s"), `^deadman \(silence\), fwd 0.35 +spinning nan -> not judged  TIMEOUT: no driver state for 10 s$`},
		{ReleaseCheck(stopAt(1, fwd35Level, 0).gen(), trig+1, trig+5, p),
			`^deadman \(silence\), fwd 0.35 +vibration 0\.00\d\d \(not above 0\.0035\)  FAIL: wheels did not turn again by themselves`},
	}
	for _, c := range cases {
		if got := c.v.Line("deadman (silence), fwd 0.35"); !regexp.MustCompile(c.want).MatchString(got) {
			t.Errorf("line %q\ndoes not match %s", got, c.want)
		}
	}
}

func TestOutcomeKindText(t *testing.T) {
	var zero Verdict
	if zero.Outcome != Fail || zero.Passed() {
		t.Fatal("the zero verdict must be a FAIL")
	}
	for _, o := range []Outcome{Fail, Pass, Timeout} {
		b, err := o.MarshalText()
		var back Outcome
		if err != nil || back.UnmarshalText(b) != nil || back != o {
			t.Fatalf("%v: %s %v -> %v", o, b, err, back)
		}
	}
	if _, err := Outcome(9).MarshalText(); err == nil {
		t.Fatal("unknown outcome marshalled")
	}
	var o Outcome
	var k Kind
	if o.UnmarshalText([]byte("pass")) == nil || k.UnmarshalText([]byte("stopp")) == nil {
		t.Fatal("bad words accepted")
	}
}

// TestVerdictJSON: a verdict full of NaN must still marshal (encoding/json refuses NaN), and read back.
func TestVerdictJSON(t *testing.T) {
	p := DefaultParams()
	for _, v := range []Verdict{
		Judge(stopAt(2, fwd02Level, 0.4).gen(), trig, trig+5, p),
		Judge(nil, trig, trig+5, p),
		Judge(stopAt(2, fwd02Level, 0.4).gen(), trig, trig+5, Params{Threshold: math.NaN()}),
		ReleaseCheck(stopAt(2, fwd02Level, 10).gen(), trig, trig+2, p),
		TimedOut(trig, math.Inf(1), p, "hung"),
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", v.Line("x"), err)
		}
		var back Verdict
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back.Line("x") != v.Line("x") || len(back.Windows) != len(v.Windows) || back.Params.MinSamples != v.Params.MinSamples {
			t.Fatalf("round trip:\n%s\n%s", v.Line("x"), back.Line("x"))
		}
		for i := range v.Windows {
			a, b := v.Windows[i], back.Windows[i]
			if a.End != b.End || a.N != b.N || a.NoData != b.NoData || !(a.Score == b.Score || math.IsNaN(a.Score) && math.IsNaN(b.Score)) {
				t.Fatalf("window %d: %+v -> %+v", i, a, b)
			}
		}
	}
	b, _ := json.Marshal(Judge(nil, trig, trig+5, p))
	for _, key := range []string{`"outcome":"FAIL"`, `"kind":"stop"`, `"still_from_s":null`, `"threshold":0.0035`, `"need_quiet_s":2`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

// A quiet limit other than the 2 s rule is said in the line, beside the quiet time, and kept in the record.
func TestLineSaysAShorterQuietRule(t *testing.T) {
	v := newVerdict(KindStop, 0, 2.2, DefaultParams())
	v.Params.NeedQuiet = 0.5
	v.Outcome, v.Spinning, v.StillFrom, v.WorstAfter, v.QuietFor = Pass, 0.0080, 0.95, 0.0031, 1.2
	v.QuietRule = "need 0.5 s quiet, not 2 s: scans back 2.27 s after the kill"
	const want = "LiDAR silent (scan gate), fwd 0.35 spinning 0.0080 -> still from 0.95 s on; worst after 0.0031 over 1.2 s (need 0.5 s quiet, not 2 s: scans back 2.27 s after the kill)  PASS"
	if got := v.Line("LiDAR silent (scan gate), fwd 0.35"); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	b, _ := json.Marshal(v)
	var back Verdict
	if err := json.Unmarshal(b, &back); err != nil || back.QuietRule != v.QuietRule || !strings.Contains(string(b), `"quiet_rule":"need 0.5 s quiet`) {
		t.Fatalf("%s -> %+v (%v)", b, back.QuietRule, err)
	}
}

// A release line failed for another reason than the vibration (the scan-loss stop above it failed, so the
// release is not judged) must not claim the vibration was "not above" the threshold when it was.
func TestReleaseLineFailedForAnotherReason(t *testing.T) {
	v := newVerdict(KindRelease, 0, 1, DefaultParams())
	v.Spinning = 0.0082
	v.Reason = "not judged: the wheels were never shown to stop (the line above failed)"
	got := v.Line("LiDAR back: wheels released by themselves")
	if strings.Contains(got, "not above") || !strings.Contains(got, "vibration 0.0082 (above 0.0035)  FAIL: not judged") {
		t.Fatalf("%q", got)
	}
}
