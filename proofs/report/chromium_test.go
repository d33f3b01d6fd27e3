package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// A real browser's look at the HTML report: the screenshot is not blank (the plots' area holds drawn
// pixels), and the rendered DOM has the stop-path table with its cells.
func TestHTMLInChromium(t *testing.T) {
	bin := testkit.Chromium(t)
	rs := runs(t)
	var page bytes.Buffer
	if err := HTML(&page, rs, Compare(rs, BaselineOf(rs[:1], "t"), "baseline.json", DefaultTolerance)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	testkit.Headless(t, bin, "--window-size=1100,1400", "--screenshot="+shot, "file://"+file)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	if keep := os.Getenv("ROSORIN_KEEP_SCREENSHOT"); keep != "" {
		os.WriteFile(keep, b, 0o644)
	}
	if f := nonWhite(t, b); f < 0.05 {
		t.Errorf("the screenshot is blank: %.1f %% of its pixels are not white", f*100)
	} else {
		t.Logf("screenshot: %.1f %% of the pixels not white", f*100)
	}
	dom := string(testkit.Headless(t, bin, "--dump-dom", "file://"+file))
	for _, want := range []string{`<table id="stop-paths">`, "LiDAR silent (scan gate)", "0.90 s PASS", "driver kill",
		"REGRESSION: kill fwd 0.35", `<img alt="vibration score of kill" src="data:image/png;base64,`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
}
