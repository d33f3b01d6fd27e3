package campaign

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// A real browser's look at the verification report of a failing campaign (a failed run, a restart, a CUT run):
// the screenshot is not blank, the rendered DOM holds the verdict, the summary table, one ECDF per cell drawn
// as inline SVG with its requirement line, the conditions, the failing runs named and linked.
func TestVerificationReportInChromium(t *testing.T) {
	bin := testkit.Chromium(t)
	s := synth{plan: standPlan(), seed: 1, fail: map[int]string{5: Fail}, restart: map[int]bool{9: true}, cut: []int{2}}
	root := t.TempDir()
	dir := filepath.Join(root, "camp")
	writeFolder(t, dir, s.plan, s.runs())
	c, err := LoadCampaign(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(c, root)
	var page bytes.Buffer
	if err := sum.HTML(&page); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(root, "shot.png")
	testkit.Headless(t, bin, "--window-size=1200,2400", "--screenshot="+shot, "file://"+file)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if keep := os.Getenv("ROSORIN_KEEP_SCREENSHOT"); keep != "" {
		os.WriteFile(keep, b, 0o644)
		os.WriteFile(strings.TrimSuffix(keep, filepath.Ext(keep))+".html", page.Bytes(), 0o644)
	}
	if f := nonWhite(t, b); f < 0.03 {
		t.Errorf("the screenshot is blank: %.1f %% of its pixels are not white", f*100)
	} else {
		t.Logf("screenshot: %.1f %% of the pixels not white; page %d bytes", f*100, page.Len())
	}
	dom := string(testkit.Headless(t, bin, "--dump-dom", "file://"+file))
	for _, want := range []string{`id="verdict">FAIL: 1 of 2 cells pass`, `<table id="summary">`, `<table id="conditions">`,
		"R = 0.8, C = 80 %, n = 8 runs a cell", "What it does not say", "(max, p80 @ 83.2 %)", "wheels in the air",
		"restart: the wheels moved again after the stop in 1 of", `<a href="camp/runs/5.json">run 5</a>`, `<a href="camp/evidence/1.log">log</a>`,
		"no end written (power loss)", "requirement 0.500 s", "assessed by"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if n := strings.Count(dom, "<svg"); n != 2 {
		t.Errorf("%d inline SVG plots, want one per cell (2)", n)
	}
	if strings.Contains(dom, "http://") && !strings.Contains(dom, "http://www.w3.org/") {
		t.Error("the page refers to the network")
	}
}

// nonWhite is the fraction of the PNG's pixels that are not (near) white.
func nonWhite(t *testing.T, b []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	r := img.Bounds()
	n, total := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				n++
			}
			total++
		}
	}
	return float64(n) / float64(total)
}
