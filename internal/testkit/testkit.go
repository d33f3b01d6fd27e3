package testkit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

// RaceFactor is how much wider a real-time bound is under the race detector: on a 2-core machine the
// detector slows the instrumented code 2-10x (go.dev/doc/articles/race_detector). Safety bounds of the
// normal run are never widened.
const RaceFactor = 5

// Bound returns d, or d widened by RaceFactor under the race detector. Use it for the time a test waits or
// tolerates, never for what a production path is allowed.
func Bound(d time.Duration) time.Duration {
	if RaceEnabled {
		return d * RaceFactor
	}
	return d
}

// LockedBuffer is a bytes.Buffer safe for a child process's output copier and the test reading it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

var _ io.Writer = (*LockedBuffer)(nil)

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns a copy of everything written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Len is the number of bytes written so far.
func (l *LockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

// ModuleRoot is the directory holding go.mod of the module under test.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the rosorin module (go env GOMOD is empty)")
	}
	return filepath.Dir(mod), nil
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
	binDir  string
)

// Binary builds the command at pkg (a path relative to the module root, "./cmd/rosorin-base") once per test
// process and returns the binary's path. Under the race detector the binary is built with -race too, so the
// processes a test starts are race-checked as well. The directory is mode 0755 so an unprivileged user can
// run what is in it; Cleanup removes it.
//
// The build goes to a directory that outlives the test process (buildCache) and is copied from there: go
// build leaves an up-to-date output alone, so every test package after the first that needs the same
// command skips the link (measured on the 2-core machine: rosorin-base 1.2 s instead of 10 s, 30 s under
// -race).
func Binary(pkg string) (string, error) { return BinaryTags(pkg) }

// BinaryTags is Binary built with -tags tags (none: Binary). The binaries of one tag set share a directory
// (BinDir itself for none, a folder in it per set), so a command finds its siblings beside it as installed:
// `rosorin-base run --ros2` built with -tags ros2 finds rosorin-ros2.
func BinaryTags(pkg string, tags ...string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	set := strings.Join(tags, ",")
	if p, ok := built[set+"|"+pkg]; ok {
		return p, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	if binDir == "" {
		d, err := os.MkdirTemp("", "rosorin-testbin")
		if err != nil {
			return "", err
		}
		if err := os.Chmod(d, 0o755); err != nil {
			return "", err
		}
		binDir = d
	}
	dir := binDir
	if set != "" {
		dir = filepath.Join(binDir, "tags-"+strings.ReplaceAll(set, ",", "-"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	if err := buildCached(root, pkg, set, out); err != nil {
		return "", err
	}
	built[set+"|"+pkg] = out
	return out, nil
}

// buildCache is where Binary's builds persist: one directory per module root and race mode, so that
// worktrees and -race runs never overwrite each other's binaries. "" when the user has no cache directory.
func buildCache(root string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	mode := "norace"
	if RaceEnabled {
		mode = "race"
	}
	return filepath.Join(base, "rosorin-testbin", hex.EncodeToString(sum[:8])+"-"+mode)
}

// buildCached builds pkg (with -tags tags unless "") into the persistent cache, under a lock (test packages run as parallel processes),
// and copies the result to out; without a cache it builds straight to out.
func buildCached(root, pkg, tags, out string) error {
	goBuild := func(to string) error {
		args := []string{"build", "-o", to}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		if RaceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir = root
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, o)
		}
		return nil
	}
	dir := buildCache(root)
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		return goBuild(out)
	}
	unlock, err := lockFile(filepath.Join(dir, "lock"))
	if err != nil {
		return goBuild(out)
	}
	defer unlock()
	cached := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_", ",", "_").Replace(tags+"_"+pkg))
	if err := goBuild(cached); err != nil {
		return err
	}
	return CopyExecutable(cached, out)
}

// BinDir is the directory Binary builds into ("" before the first build).
func BinDir() string {
	buildMu.Lock()
	defer buildMu.Unlock()
	return binDir
}

// Cleanup removes the binaries; call it from TestMain after m.Run.
func Cleanup() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	binDir, built = "", map[string]string{}
}

// CopyExecutable copies src to dst with mode 0755 (a test binary as a helper process another user can run).
func CopyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Quantile is the p-quantile (0..1) of d by the empirical (nearest-rank) rule of gonum's stat.Quantile.
// It returns 0 for no data.
func Quantile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	x := make([]float64, len(d))
	for i, v := range d {
		x[i] = float64(v)
	}
	slices.Sort(x)
	return time.Duration(math.Round(stat.Quantile(p, stat.Empirical, x, nil)))
}

// Figures is the line a timing test logs: "n 20: median 1.2 ms, p99 3.4 ms, max 3.9 ms".
func Figures(d []time.Duration) string {
	return fmt.Sprintf("n %d: median %s, p99 %s, max %s", len(d), Ms(Quantile(d, 0.5)), Ms(Quantile(d, 0.99)), Ms(Quantile(d, 1)))
}

// Ms formats a duration in milliseconds with two decimals.
func Ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

// Eventually polls fn every 10 ms until it returns nil or timeout passes, and returns fn's last error. An
// error fn wraps with Abort ends the wait at once (the process waited on has exited, say).
func Eventually(timeout time.Duration, fn func() error) error {
	end := time.Now().Add(timeout)
	for {
		err := fn()
		if err == nil {
			return nil
		}
		var a abortError
		if errors.As(err, &a) {
			return a.err
		}
		if time.Now().After(end) {
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Always calls fn every 10 ms for d (the first call at once, the last at or after d) and returns the first
// error it gives: the watch that something holds throughout (nothing moves while disabled), where Eventually
// waits for it to start holding.
func Always(d time.Duration, fn func() error) error {
	start := time.Now()
	for {
		if err := fn(); err != nil {
			return fmt.Errorf("after %v: %w", time.Since(start).Round(time.Millisecond), err)
		}
		if time.Since(start) >= d {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Abort marks err as final for Eventually: no point waiting any longer.
func Abort(err error) error { return abortError{err} }

type abortError struct{ err error }

func (a abortError) Error() string { return a.err.Error() }
func (a abortError) Unwrap() error { return a.err }

// Short is the README's test command (go test -short): the long real-time checks run fewer repetitions or a
// shorter soak there, and the whole-proof end-to-end runs are left to the full run (go test without -short,
// which CI runs too). Reps gives a check's repetitions: full without -short, short with it.
func Reps(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}

// SkipShort skips a long real-time test under -short, saying how long it is and where it runs.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + what + "; go test without -short runs it (CI does)")
	}
}

// figuresMu serializes Figure's appends within a test process (test processes append whole lines).
var figuresMu sync.Mutex

// Figure logs a measured figure and, when ROSORIN_FIGURES names a file, appends it there as one line with the
// test's name: CI collects the measurements of passing tests (go test shows their logs only with -v) and
// prints them with its summary.
func Figure(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	path := os.Getenv("ROSORIN_FIGURES")
	if path == "" {
		return
	}
	figuresMu.Lock()
	defer figuresMu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Logf("ROSORIN_FIGURES: %v", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s: %s\n", t.Name(), line)
}
