package campaign

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseHistoryTolerance(t *testing.T) {
	for _, c := range []struct {
		in   string
		want HistoryTolerance
		bad  bool
	}{
		{"10%", HistoryTolerance{Rel: 0.1}, false},
		{"25%,0.02s", HistoryTolerance{Rel: 0.25, Abs: 0.02}, false},
		{"0.05", HistoryTolerance{Rel: 0.1, Abs: 0.05}, false},
		{"", DefaultHistoryTolerance, false},
		{"ten%", HistoryTolerance{}, true},
		{"-5%", HistoryTolerance{}, true},
		{"5%,0.1m", HistoryTolerance{Rel: 0.05, Abs: 0.1}, false},
		{"0.02ms", HistoryTolerance{}, true},
		{"NaN%", HistoryTolerance{}, true},
	} {
		got, err := ParseHistoryTolerance(c.in)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("%q: %+v, %v", c.in, got, err)
		}
	}
}

// history writes campaigns of the stand plan, one a day, and summarizes each (as the saved JSON would be).
func history(t *testing.T, ss ...synth) ([]*Summary, []string) {
	t.Helper()
	var sums []*Summary
	var names []string
	for i, s := range ss {
		s.day = i
		sums = append(sums, summarize(t, "", campaignDir(t, s)))
		names = append(names, "day"+string(rune('1'+i)))
	}
	return sums, names
}

func findings(h *History) string {
	var s []string
	for _, c := range h.Cells {
		s = append(s, c.Findings...)
	}
	return strings.Join(s, "\n")
}

func TestMonitor(t *testing.T) {
	same := synth{plan: standPlan(), seed: 1}
	sums, names := history(t, same, same, same)
	h := Monitor(sums, names, DefaultHistoryTolerance)
	if h.Verdict != Pass || len(h.Cells) != 2 || len(h.Cells[0].Points) != 3 {
		t.Fatalf("a steady history: %s, %d cells\n%s", h.Verdict, len(h.Cells), findings(h))
	}

	// The negative control: the e-stop gets 0.1 s slower (well within its 0.5 s requirement): past +10 %.
	slower := synth{plan: standPlan(), seed: 1, base: map[string]float64{"estop fwd 0.2": 0.3}}
	sums, names = history(t, same, same, same, slower)
	h = Monitor(sums, names, DefaultHistoryTolerance)
	if h.Verdict != Fail || h.Cells[0].Verdict != Fail || h.Cells[1].Verdict != Pass {
		t.Fatalf("growth beyond the tolerance: %s (%s, %s)\n%s", h.Verdict, h.Cells[0].Verdict, h.Cells[1].Verdict, findings(h))
	}
	if f := findings(h); !strings.Contains(f, "the worst") || !strings.Contains(f, "grew past the previous campaigns' median") || !strings.Contains(f, "more than +10 %") {
		t.Errorf("findings: %s", f)
	}
	// The same growth inside a wider tolerance passes.
	if h := Monitor(sums, names, HistoryTolerance{Rel: 0.6}); h.Verdict != Pass {
		t.Errorf("+60 %% tolerance: %s\n%s", h.Verdict, findings(h))
	}
	// The growth in the past, back to normal since: the gate judges the latest only; the table keeps it.
	sums, names = history(t, same, slower, same)
	if h := Monitor(sums, names, DefaultHistoryTolerance); h.Verdict != Pass || len(h.Cells[0].Points[1].Findings) == 0 {
		t.Errorf("an old excursion: %s, %v", h.Verdict, h.Cells[0].Points[1].Findings)
	}
	// Past the requirement, with no history to grow from.
	late := synth{plan: standPlan(), seed: 1, slow: map[int]float64{1: 0.6, 2: 0.9}}
	sums, names = history(t, late)
	if h := Monitor(sums, names, HistoryTolerance{Rel: 10}); h.Verdict != Fail || !strings.Contains(findings(h), "past the requirement") {
		t.Errorf("past the requirement: %s\n%s", h.Verdict, findings(h))
	}
	// Order: by the first run's start, not the order given.
	sums, names = history(t, same, same, slower)
	rev := []*Summary{sums[2], sums[0], sums[1]}
	if h := Monitor(rev, []string{names[2], names[0], names[1]}, DefaultHistoryTolerance); h.Verdict != Fail || h.Campaigns[2] != "day3" {
		t.Errorf("ordered by time: %v, %s", h.Campaigns, h.Verdict)
	}
}

// The monitor reads saved summaries and folders alike, and renders.
func TestLoadHistory(t *testing.T) {
	root := t.TempDir()
	var srcs []string
	for i, s := range []synth{{plan: standPlan(), seed: 1}, {plan: standPlan(), seed: 1, base: map[string]float64{"deadman fwd 0.2": 0.35}}} {
		s.day = i
		dir := campaignDir(t, s)
		if i == 0 {
			var b bytes.Buffer
			summarize(t, "", dir).JSON(&b)
			f := filepath.Join(root, "first.json")
			os.WriteFile(f, b.Bytes(), 0o644)
			srcs = append(srcs, f)
		} else {
			srcs = append(srcs, dir)
		}
	}
	sums, names, err := LoadHistory(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	h := Monitor(sums, names, DefaultHistoryTolerance)
	if h.Verdict != Fail || h.Cells[1].Verdict != Fail {
		t.Fatalf("%s\n%s", h.Verdict, findings(h))
	}
	var md, html, ju, js bytes.Buffer
	for _, f := range []func() error{func() error { return h.Markdown(&md) }, func() error { return h.HTML(&html) }, func() error { return h.JUnit(&ju) }, func() error { return h.JSON(&js) }} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(md.String(), "## deadman forward 0.2 m/s: FAIL") || !strings.Contains(md.String(), "Tolerance +10 %") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if strings.Count(html.String(), "<svg") != 2 || !strings.Contains(ju.String(), `failures="1"`) {
		t.Errorf("html has %d plots; junit:\n%s", strings.Count(html.String(), "<svg"), ju.String())
	}
	for _, bad := range [][]string{{filepath.Join(root, "nothing")}, {}} {
		if _, _, err := LoadHistory(bad...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	os.WriteFile(filepath.Join(root, "other.json"), []byte(`{"kind": "something else"}`), 0o644)
	if _, _, err := LoadHistory(filepath.Join(root, "other.json")); err == nil || !strings.Contains(err.Error(), "not a campaign summary") {
		t.Errorf("another JSON: %v", err)
	}
}

// A campaign whose e-stop once never stopped, read back from its saved JSON: the worst is infinite, not
// missing, and the gate fails it.
func TestHistoryNeverStillFromJSON(t *testing.T) {
	dir := campaignDir(t, synth{plan: standPlan(), seed: 1, fail: map[int]string{3: Timeout}})
	var b bytes.Buffer
	if err := summarize(t, "", dir).JSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"worst": "inf"`) {
		t.Errorf("the never-still worst is not written as \"inf\"")
	}
	f := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(f, b.Bytes(), 0o644)
	sums, names, err := LoadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	if h := Monitor(sums, names, DefaultHistoryTolerance); h.Verdict != Fail || !strings.Contains(findings(h), "the worst never is past the requirement") {
		t.Errorf("%s\n%s", h.Verdict, findings(h))
	}
}
