package campaign

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/proofs/report"
)

func summarize(t *testing.T, linkDir string, dirs ...string) *Summary {
	t.Helper()
	c, err := LoadCampaign(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return Summarize(c, linkDir)
}

func TestPassingCampaign(t *testing.T) {
	s := synth{plan: standPlan(), seed: 1, cut: []int{4}}
	dir := campaignDir(t, s)
	os.Remove(filepath.Join(dir, "evidence", "1.mcap"))
	sum := summarize(t, filepath.Dir(dir), dir)
	if sum.Verdict != Pass || len(sum.Cells) != 2 {
		t.Fatalf("verdict %s, %d cells: %+v", sum.Verdict, len(sum.Cells), sum.Cells)
	}
	for _, cr := range sum.Cells {
		if cr.N != 8 || cr.Failures != 0 || !cr.ClaimHolds || cr.BoundK != 1 || cr.Claim != "R >= 0.8 at 80 % confidence: 8 of 8" {
			t.Errorf("%s: n %d failures %d claim %q k %d", cr.ID, cr.N, cr.Failures, cr.Claim, cr.BoundK)
		}
	}
	if len(sum.Cut) != 1 || sum.Cut[0].Seq != 4 || len(sum.Runs) != 16 {
		t.Errorf("cut %v, %d runs", sum.Cut, len(sum.Runs))
	}
	if r := sum.Runs[0]; r.Record != "camp/runs/1.json" || r.Evidence != "camp/evidence/1.log" || len(r.Absent) != 1 || r.Absent[0] != "evidence/1.mcap" {
		t.Errorf("links relative to the report's folder: %+v", r)
	}
	var md, js, ju, tab bytes.Buffer
	for _, f := range []func() error{func() error { return sum.Markdown(&md) }, func() error { return sum.JSON(&js) },
		func() error { return sum.JUnit(&ju) }, func() error { return sum.Table(&tab) }} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{"**PASS: 2 of 2 cells pass**", "| estop forward 0.2 m/s | 8 of 8 | 0 |", "(max, p80 @ 83.2 %)",
		"R >= 0.8 at 80 % confidence: 8 of 8", "- stated: surface: wheels in the air", "- run 4, ", "[record](camp/runs/1.json)",
		"battery before a run: 12.37 to 12.40 V", "It does not say the robot never fails"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if !strings.Contains(tab.String(), "RESULT: PASS (2 of 2 cells pass)") {
		t.Errorf("table:\n%s", tab.String())
	}
	back, err := ReadSummary("s.json", js.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Verdict != Pass || len(back.Cells) != 2 || back.Cells[0].Still.Bound != sum.Cells[0].Still.Bound || !math.IsNaN(float64(back.Runs[0].TravelM)) {
		t.Errorf("the JSON did not read back: %+v", back.Cells)
	}
	var doc report.Testsuites
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 2 || doc.Failures != 0 || len(doc.Suites[0].Cases) != 2 {
		t.Fatalf("junit: %+v", doc)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Cases[0].Properties {
		props[p.Name] = p.Value
	}
	for _, k := range []string{"n", "failures", "still_s_worst", "still_s_bound", "still_s_requirement", "still_s_margin_bound", "bound_confidence", "claim"} {
		if props[k] == "" {
			t.Errorf("junit testcase lacks property %s: %v", k, props)
		}
	}
	if props["n"] != "8" || props["still_s_requirement"] != "0.5" {
		t.Errorf("junit properties: %v", props)
	}
}

// The negative control: a sim fault that makes 1 stop in K fail, and a restart: the campaign fails and names
// the runs.
func TestFailingCampaignNamesTheRuns(t *testing.T) {
	s := synth{plan: standPlan(), seed: 1, fail: map[int]string{5: Fail, 11: Timeout}, restart: map[int]bool{9: true}}
	dir := campaignDir(t, s)
	sum := summarize(t, dir, dir)
	if sum.Verdict != Fail {
		t.Fatal("a campaign with failed runs passed")
	}
	var ju, tab bytes.Buffer
	sum.JUnit(&ju)
	sum.Table(&tab)
	var doc report.Testsuites
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	failedRuns := ""
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failedRuns += c.Failure.Text + "\n"
		}
	}
	for _, want := range []string{"run 5 (", "run 11 (", "run 9 (", "runs/5.json", "TIMEOUT", "the wheels moved again after the stop"} {
		if !strings.Contains(failedRuns, want) {
			t.Errorf("the JUnit failures lack %q:\n%s", want, failedRuns)
		}
	}
	if doc.Failures == 0 || !strings.Contains(tab.String(), "RESULT: FAIL") {
		t.Errorf("junit failures %d; table:\n%s", doc.Failures, tab.String())
	}
	restartSaid := false
	for _, cr := range sum.Cells {
		for _, r := range cr.Reasons {
			restartSaid = restartSaid || strings.Contains(r, "restart: the wheels moved again after the stop in 1 of 8 runs (runs 9)")
		}
	}
	if !restartSaid {
		t.Error("no cell says it restarted")
	}
}

// Shards merged give the same statistics as one folder; shards of different plans, or overlapping, are refused.
func TestShardsMerge(t *testing.T) {
	s := synth{plan: standPlan(), seed: 2, fail: map[int]string{3: Fail}}
	one := summarize(t, "", campaignDir(t, s))
	shards := shardDirs(t, s, 2)
	two := summarize(t, "", shards...)
	strip := func(cs []CellResult) []CellResult {
		out := append([]CellResult(nil), cs...)
		for i := range out {
			out[i].Failed = append([]RunRef(nil), out[i].Failed...)
			for j := range out[i].Failed {
				out[i].Failed[j].File = ""
			}
		}
		return out
	}
	a, _ := json.Marshal(strip(one.Cells))
	b, _ := json.Marshal(strip(two.Cells))
	if !bytes.Equal(a, b) {
		t.Errorf("two shards merged differ from one folder:\n%s\n%s", a, b)
	}
	if len(two.Conditions.Shards) != 2 || one.Verdict != two.Verdict {
		t.Errorf("shards %v", two.Conditions.Shards)
	}
	if _, err := LoadCampaign(shards[0]); err != nil {
		t.Fatal(err)
	} else if half := summarize(t, "", shards[0]); half.Verdict != Fail || !strings.Contains(half.Cells[0].Claim, "of the 8 runs done") {
		t.Errorf("one shard alone is incomplete: %s %s", half.Verdict, half.Cells[0].Claim)
	}

	other := s
	other.plan = standPlan()
	other.plan.Seed = 99
	odir := campaignDir(t, other)
	if _, err := LoadCampaign(shards[0], odir); err == nil || !strings.Contains(err.Error(), "is not a shard of") || !strings.Contains(err.Error(), "seed") {
		t.Errorf("a folder of another plan: %v", err)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	writeFolder(t, copyDir, s.plan, s.runs()[:3])
	if _, err := LoadCampaign(shards[0], shards[1], copyDir); err == nil || !strings.Contains(err.Error(), "is also in") {
		t.Errorf("a slot in two shards: %v", err)
	}
	if _, err := LoadCampaign(shards[0], shards[0]+"/"); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a folder given twice: %v", err)
	}
}

// Bad input: a clear error naming the file, never a panic.
func TestBadFolders(t *testing.T) {
	good := synth{plan: standPlan(), seed: 1}
	cases := []struct {
		name string
		mod  func(dir string)
		want string
	}{
		{"corrupt run", func(d string) { os.WriteFile(filepath.Join(d, "runs", "3.json"), []byte(`{"seq": 3, "cell": `), 0o644) }, "runs/3.json: not a campaign run record"},
		{"unknown outcome", func(d string) {
			os.WriteFile(filepath.Join(d, "runs", "3.json"), []byte(`{"seq": 3, "rep": 1, "cell": "estop fwd 0.2", "outcome": "OK"}`), 0o644)
		}, `runs/3.json: outcome "OK"`},
		{"unknown cell", func(d string) {
			os.WriteFile(filepath.Join(d, "runs", "3.json"), []byte(`{"seq": 3, "rep": 1, "cell": "bumper/forward/0.2", "outcome": "PASS"}`), 0o644)
		}, `runs/3.json: cell "bumper/forward/0.2" is not in the plan`},
		{"rep past n", func(d string) {
			os.WriteFile(filepath.Join(d, "runs", "3.json"), []byte(`{"seq": 3, "rep": 9, "cell": "estop fwd 0.2", "outcome": "PASS", "still_s": 0.2}`), 0o644)
		}, "rep 9 of a cell the plan runs 8 times"},
		{"run twice", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "runs", "3.json"))
			os.WriteFile(filepath.Join(d, "runs", "3b.json"), b, 0o644)
		}, "slot 3 was run to its end twice"},
		{"corrupt plan", func(d string) { os.WriteFile(filepath.Join(d, "plan.yaml"), []byte("cells: [\n"), 0o644) }, "plan.yaml: plan: yaml:"},
		{"newer plan", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "plan.yaml"))
			os.WriteFile(filepath.Join(d, "plan.yaml"), bytes.Replace(b, []byte("version: 1"), []byte("version: 7"), 1), 0o644)
		}, "plan: version 7: this stopproof reads plan version 1"},
		{"newer folder", func(d string) { os.WriteFile(filepath.Join(d, "campaign.json"), []byte(`{"version": 2}`), 0o644) }, "campaign.json: folder version 2 is newer"},
		{"r out of range", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, "plan.yaml"))
			os.WriteFile(filepath.Join(d, "plan.yaml"), bytes.Replace(b, []byte("r: 0.8"), []byte("r: 1.5"), 1), 0o644)
		}, "r = 1.5 is outside (0, 1)"},
		{"no plan", func(d string) { os.Remove(filepath.Join(d, "plan.yaml")) }, "no plan.yaml: not a campaign folder"},
		{"no runs folder", func(d string) { os.RemoveAll(filepath.Join(d, "runs")) }, "no runs folder"},
	}
	for _, c := range cases {
		dir := campaignDir(t, good)
		c.mod(dir)
		_, err := LoadCampaign(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := LoadCampaign(); err == nil {
		t.Error("no folders: no error")
	}
}

func TestWriteSummary(t *testing.T) {
	dir := campaignDir(t, synth{plan: standPlan(), seed: 4})
	var b bytes.Buffer
	pass, err := WriteSummary(&b, dir)
	if err != nil || !pass || !strings.Contains(b.String(), "estop forward 0.2 m/s") {
		t.Errorf("%v %v\n%s", pass, err, b.String())
	}
	bad := campaignDir(t, synth{plan: standPlan(), seed: 4, slow: map[int]float64{2: 0.9}})
	if pass, err := WriteSummary(&b, bad); err != nil || pass {
		t.Errorf("a stop past the requirement: pass %v, %v", pass, err)
	}
	if _, err := WriteSummary(&b, filepath.Join(dir, "nothing")); err == nil {
		t.Error("no folder: no error")
	}
}

// A floor cell: the travel is a second requirement and a second distribution.
func TestFloorTravel(t *testing.T) {
	p := standPlan()
	p.Proof, p.Conditions.Setup, p.Conditions.Surface = "floor", "floor", "vinyl"
	p.Cells = []Cell{{Path: "estop", Speed: 0.2, MaxStillS: 0.9, MaxTravelM: 0.04}}
	sum := summarize(t, "", campaignDir(t, synth{plan: p, seed: 5, travel: true}))
	cr := sum.Cells[0]
	if cr.Travel == nil || cr.Travel.Values != 8 || cr.Travel.Requirement != 0.04 {
		t.Fatalf("travel: %+v", cr.Travel)
	}
	// travel 0.02 + 0.03 u: some runs pass 0.04 m.
	if cr.Verdict != Fail || !strings.Contains(strings.Join(failedWhy(cr), ";"), "m allowed") {
		t.Errorf("travel past the requirement: %s %v", cr.Verdict, cr.Failed)
	}
	var md bytes.Buffer
	sum.Markdown(&md)
	if !strings.Contains(md.String(), "| estop forward 0.2 m/s (travel) | 8 of 8 |") {
		t.Errorf("markdown lacks the travel row:\n%s", md.String())
	}
}

// The run-record loader takes any bytes without panicking; what it accepts it writes back the same.
func FuzzParseRun(f *testing.F) {
	for _, r := range (synth{plan: standPlan(), seed: 1, cut: []int{2}, travel: true}).runs()[:3] {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	f.Add([]byte(`{"seq": 1, "rep": 1, "cell": "estop fwd 0.2", "outcome": "PASS", "still_s": null}`))
	f.Add([]byte(`{"seq": -1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRun("f.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := ParseRun("g.json", again)
		if err != nil {
			t.Fatalf("what it accepted does not read back: %v", err)
		}
		same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
		if r2.Seq != r.Seq || r2.Cell != r.Cell || r2.Outcome != r.Outcome || !same(r2.StillS, r.StillS) || !same(r2.TravelM, r.TravelM) ||
			!reflect.DeepEqual(r2.Conditions.Thresholds, r.Conditions.Thresholds) && len(r.Conditions.Thresholds) > 0 {
			t.Fatalf("read back differs: %+v vs %+v", r, r2)
		}
	})
}

// The plan reader takes any bytes without panicking, and an error names the file.
func FuzzPlanForReport(f *testing.F) {
	b, _ := yaml.Marshal(standPlan())
	f.Add(b)
	f.Add([]byte("version: 2\ncells: []\n"))
	f.Add([]byte("r: 0.9\nc: 1.2\ncells:\n  - {path: estop, speed: 0.2, max_still_s: -1}\n"))
	f.Add([]byte("n: 3\ncells:\n  - {path: estop, speed: 0.2, max_still_s: .nan}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePlanForReport("plan.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "plan.yaml: ") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		if n := p.runsPerCell(); n < 1 {
			t.Fatalf("an accepted plan runs %d times a cell", n)
		}
	})
}
