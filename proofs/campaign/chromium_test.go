package campaign

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// chromium finds Debian's chromium (apt-get install -y chromium). Without it the test skips, unless
// ROSORIN_REQUIRE_CHROMIUM=1 makes that a failure. (proofs/report's test has the same two helpers.)
func chromium(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("ROSORIN_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium not found and ROSORIN_REQUIRE_CHROMIUM=1: apt-get install -y chromium")
	}
	t.Skip("chromium not found (apt-get install -y chromium; ROSORIN_REQUIRE_CHROMIUM=1 makes this a failure)")
	return ""
}

// headless runs chromium with networking off: in a network namespace of its own when unshare can make one,
// and always with every host name unresolvable and a proxy that does not exist.
func headless(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(90*time.Second))
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	if u, err := exec.LookPath("unshare"); err == nil && exec.Command(u, "--net", "true").Run() == nil {
		cmd = exec.CommandContext(ctx, u, append([]string{"--net", bin}, append(base, args...)...)...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return out
}

// A real browser's look at the verification report of a failing campaign (a failed run, a restart, a CUT run):
// the screenshot is not blank, the rendered DOM holds the verdict, the summary table, one ECDF per cell drawn
// as inline SVG with its requirement line, the conditions, the failing runs named and linked.
func TestVerificationReportInChromium(t *testing.T) {
	bin := chromium(t)
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
	headless(t, bin, "--window-size=1200,2400", "--screenshot="+shot, "file://"+file)
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
	dom := string(headless(t, bin, "--dump-dom", "file://"+file))
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
