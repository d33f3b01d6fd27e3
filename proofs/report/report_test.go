package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/stand"
)

func capture(t testing.TB, name string) string {
	t.Helper()
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "testdata", "captures", name)
}

// runs loads the committed recordings: the passing run and the negative control.
func runs(t testing.TB) []ProofFile {
	t.Helper()
	var out []ProofFile
	for _, n := range []string{"stand-sim-pass.mcap", "stand-sim-ignore-motor.mcap"} {
		r, err := Load(capture(t, n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, runs(t), nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| stop path | fwd 0.35 |",
		"| LiDAR silent (scan gate) | 0.90 s PASS |",
		"| driver kill | 0.45 s PASS |",
		"| driver kill | - | FAIL |",
		"| gamepad button | FAIL | - |",
		"RESULT: 3/3 passed", "RESULT: 0/2 passed",
		"- gamepad button, fwd 0.2: FAIL NEVER settled in 3.0 s",
		"Re-judged from the recording: the same verdicts and times as the live run",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// The JUnit XML parsed back as a consumer reads it: counts that add up, every testcase named, classed and
// timed, a failure with the judge's reason for each line that did not pass, measurements as properties.
func TestJUnitParsesBack(t *testing.T) {
	rs := runs(t)
	base := BaselineOf(rs[:1], "test")
	var b bytes.Buffer
	if err := JUnit(&b, rs, Compare(rs, base, "baseline.json", DefaultTolerance)); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte(xml.Header)) {
		t.Errorf("no XML header")
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Time      string `xml:"time,attr"`
				Props     []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v", err)
	}
	tests, fails := 0, 0
	for _, s := range doc.Suites {
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d, %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		nf := 0
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" {
				t.Errorf("testcase without name or classname: %+v", c)
			}
			if _, err := strconv.ParseFloat(c.Time, 64); err != nil {
				t.Errorf("testcase %s: time %q", c.Name, c.Time)
			}
			if c.Failure != nil {
				nf++
				if c.Failure.Message == "" || c.Failure.Type == "" {
					t.Errorf("testcase %s: failure without message or type", c.Name)
				}
			}
		}
		if nf != s.Failures {
			t.Errorf("suite %s: failures=%d, %d failed testcases", s.Name, s.Failures, nf)
		}
		tests, fails = tests+s.Tests, fails+s.Failures
	}
	if doc.Tests != tests || doc.Failures != fails {
		t.Errorf("testsuites tests=%d failures=%d, suites add up to %d and %d", doc.Tests, doc.Failures, tests, fails)
	}
	// pass run 3 lines, negative 2 (both FAIL), baseline suite: 4 keys of which kill regressed (passed, now FAIL)
	// and gamepad is new and failing.
	if len(doc.Suites) != 3 || tests != 3+2+4 || fails != 2+2 {
		t.Fatalf("suites %d tests %d failures %d, want 3, 9, 4:\n%s", len(doc.Suites), tests, fails, b.String())
	}
	neg := doc.Suites[1].Cases[1]
	if neg.Name != "gamepad button, fwd 0.2" || neg.Classname != "stopproof.gamepad" || neg.Failure == nil ||
		neg.Failure.Message != "NEVER settled in 3.0 s" || neg.Failure.Type != "FAIL" {
		t.Errorf("negative control testcase %+v", neg)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Cases[2].Props {
		props[p.Name] = p.Value
	}
	if props["stop_s"] != "0.45" || !strings.HasPrefix(props["still from (after the trigger)"], "0.45 s (<= 2)") {
		t.Errorf("kill testcase properties %v", props)
	}
}

func TestBaselineRegressions(t *testing.T) {
	rs := runs(t)
	pass, neg := rs[:1], rs[1:]
	base := BaselineOf(pass, "test")
	var b bytes.Buffer
	if err := WriteBaseline(&b, base); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(&b)
	if err != nil {
		t.Fatal(err)
	}
	if c := Compare(pass, back, "b", DefaultTolerance); len(c.Regressions) != 0 {
		t.Errorf("a run against its own baseline: %v", c.Regressions)
	}
	// The kill stop got slower: the recording's 0.45 s against a baseline of 0.30 s is +0.15 s and +50 % (not
	// beyond either): no regression; against a baseline of 0.20 s it is +0.25 s and +125 %: a regression that
	// says by how much.
	set := func(key Key, s float64) Baseline {
		nb := Baseline{Note: back.Note}
		for _, l := range back.Lines {
			if l.Key == key {
				l.StopS = &s
			}
			nb.Lines = append(nb.Lines, l)
		}
		return nb
	}
	kill := Key{Path: "kill", Motion: "fwd 0.35"}
	if c := Compare(pass, set(kill, 0.30), "b", DefaultTolerance); len(c.Regressions) != 0 {
		t.Errorf("0.45 s against 0.30 s (+0.15 s) is within +50 %% and +0.15 s: %v", c.Regressions)
	}
	c := Compare(pass, set(kill, 0.20), "b", DefaultTolerance)
	if len(c.Regressions) != 1 || !strings.Contains(c.Regressions[0], "kill fwd 0.35: stop 0.45 s") ||
		!strings.Contains(c.Regressions[0], "+0.25 s (+125 %)") {
		t.Errorf("0.45 s against 0.20 s: %v", c.Regressions)
	}
	// The negative control against the passing baseline: kill passed and now fails; gamepad is new and fails.
	c = Compare(neg, back, "b", DefaultTolerance)
	if len(c.Regressions) != 2 || !strings.Contains(c.Regressions[0], "kill fwd 0.35: passed in the baseline (0.45 s), now FAIL") ||
		!strings.Contains(c.Regressions[1], "gamepad fwd 0.2: FAIL") {
		t.Errorf("negative control: %q", c.Regressions)
	}
	var txt bytes.Buffer
	c.Text(&txt)
	if !strings.Contains(txt.String(), "REGRESSION: kill fwd 0.35") {
		t.Errorf("text: %s", txt.String())
	}
	for _, bad := range []string{"fast", "-5%", "NaN%", "1e400s", "50", "0.2m", "Infs"} {
		if _, err := ParseTolerance(bad); err == nil {
			t.Errorf("tolerance %q accepted", bad)
		}
	}
	if tol, err := ParseTolerance("30%,0.2s"); err != nil || tol != (Tolerance{0.3, 0.2}) {
		t.Errorf("30%%,0.2s: %v %v", tol, err)
	}
	// A part left out keeps the default.
	if tol, err := ParseTolerance(" 0.3s "); err != nil || tol != (Tolerance{DefaultTolerance.Rel, 0.3}) {
		t.Errorf("0.3s: %v %v", tol, err)
	}
	for _, bad := range []string{`{"lines":[{"motion":"fwd 0.2"}]}`, `{"lines":[], "extra": 1}`, `[`} {
		if _, err := ReadBaseline(strings.NewReader(bad)); err == nil {
			t.Errorf("baseline %s accepted", bad)
		}
	}
}

// pngs decodes every inline image of the page and reports how many pixels of each are not white.
func pngs(t *testing.T, page string) []float64 {
	t.Helper()
	var out []float64
	for _, m := range regexp.MustCompile(`src="data:image/png;base64,([^"]+)"`).FindAllStringSubmatch(page, -1) {
		b, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, nonWhite(t, b))
	}
	return out
}

func nonWhite(t *testing.T, b []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

func TestHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	rs := runs(t)
	if err := HTML(&b, rs, Compare(rs, BaselineOf(rs[:1], "t"), "baseline.json", DefaultTolerance)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"http://", "https://", "//cdn", "<script", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: it must not fetch anything", bad)
		}
	}
	imgs := pngs(t, page)
	if len(imgs) != 4 { // pass: scanloss, kill; negative: kill, gamepad
		t.Fatalf("%d plots, want 4", len(imgs))
	}
	for i, f := range imgs {
		if f < 0.02 {
			t.Errorf("plot %d is blank: %.1f %% of its pixels not white", i, f*100)
		}
	}
	for _, want := range []string{`<table id="stop-paths">`, "REGRESSION: kill fwd 0.35", "0.90 s PASS"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if os.Getenv("ROSORIN_KEEP_HTML") != "" {
		os.WriteFile(os.Getenv("ROSORIN_KEEP_HTML"), b.Bytes(), 0o644)
	}
}

// TestPlotHold: a hold path's plot is drawn from its trace (the board's frames, the still window, the act);
// a trace without frames is refused, not drawn empty.
func TestPlotHold(t *testing.T) {
	tr := &stand.HoldTrace{T: []float64{-1, -0.5, 0, 0.02, 3.6, 3.8}, Speed: []float64{0.1, 0.2, 0.2, 0, 0.01, 0.1},
		From: 1.5, To: 3.5, Act: 3.55, Command: 3.58, Source: "test"}
	rep := &stand.Report{Results: []stand.Result{{Path: "reset-hold", Motion: "fwd 0.2", Trace: tr}}}
	png, err := PlotPath(rep, "reset-hold")
	if err != nil || len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("plot: %d bytes, %v", len(png), err)
	}
	rep.Results[0].Trace = &stand.HoldTrace{}
	if _, err := PlotPath(rep, "reset-hold"); err == nil || !strings.Contains(err.Error(), "no board frames") {
		t.Errorf("empty trace: %v, want an error naming it", err)
	}
}
