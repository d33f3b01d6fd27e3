package testkit

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Chromium finds Debian's chromium (apt-get install -y chromium) for the tests that look at an HTML report in
// a real browser. Without it the test skips, unless ROSORIN_REQUIRE_CHROMIUM=1 makes that a failure.
func Chromium(t testing.TB) string {
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

// Headless runs chromium (bin, from Chromium) headless with args and networking off: in a network namespace
// of its own when unshare can make one (root), and always with every host name unresolvable and a proxy that
// does not exist. It returns what chromium printed (--dump-dom's DOM) and fails the test on an error.
func Headless(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Bound(90*time.Second))
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
