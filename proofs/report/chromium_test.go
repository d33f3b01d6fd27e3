package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// chromium finds Debian's chromium (apt-get install -y chromium). Without it the test skips, unless
// ROSORIN_REQUIRE_CHROMIUM=1 makes that a failure.
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

// headless runs chromium on file with networking off: in a network namespace of its own when unshare can
// make one (root), and always with every host name unresolvable and a proxy that does not exist.
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

// A real browser's look at the HTML report: the screenshot is not blank (the plots' area holds drawn
// pixels), and the rendered DOM has the stop-path table with its cells.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
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
	headless(t, bin, "--window-size=1100,1400", "--screenshot="+shot, "file://"+file)
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
	dom := string(headless(t, bin, "--dump-dom", "file://"+file))
	for _, want := range []string{`<table id="stop-paths">`, "LiDAR silent (scan gate)", "0.90 s PASS", "driver kill",
		"REGRESSION: kill fwd 0.35", `<img alt="vibration score of kill" src="data:image/png;base64,`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
}
