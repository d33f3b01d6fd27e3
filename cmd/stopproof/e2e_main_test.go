//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// e2ePrefix names the folder the end-to-end tests build stopproof and rosorin-base into (30 MB).
const e2ePrefix = "stopproof-e2e-"

// staleAge: a folder of a test binary that is gone and left no pid file is removed once it is this old. An
// hour is far beyond go test's default 10 min timeout, so no live test binary still uses it.
const staleAge = time.Hour

var (
	binDir    string // the folder, made by TestMain
	buildOnce sync.Once
	buildErr  error
)

// TestMain makes the folder and removes it on every way out it can see: after the tests (failed or not),
// and on SIGINT or SIGTERM. A test binary that dies otherwise (SIGKILL, a test's panic, go test's -timeout
// panic) cannot clean up after itself: the next run removes such folders (removeStale). The binaries are
// built on first use (bins), so tests that need none (flags, arguments, these cleanup checks) start at once.
func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	for _, d := range removeStale(os.TempDir(), time.Now()) {
		fmt.Fprintf(os.Stderr, "removed a stale end-to-end folder: %s\n", d)
	}
	dir, err := os.MkdirTemp("", e2ePrefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	binDir = dir
	defer os.RemoveAll(dir)
	// The pid file says the folder is in use; removeStale leaves folders of live pids alone.
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		sig := <-sigs
		os.RemoveAll(dir)
		// Die of the signal as if nobody had caught it, so go test reports it as such.
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig.(syscall.Signal))
	}()
	return m.Run()
}

// bins builds stopproof and rosorin-base into binDir, once per test binary, and returns binDir. Under the
// race detector stopproof is race-built (its recorders, watcher and triggers run against real processes);
// rosorin-base is not: the driver's stop timing is what the proof measures, and the driver's own tests
// race-check it.
func bins(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		for _, pkg := range []string{"github.com/rosorin/rosorin/cmd/stopproof", "github.com/rosorin/rosorin/cmd/rosorin-base"} {
			args := []string{"build", "-o", binDir}
			if testkit.RaceEnabled && strings.HasSuffix(pkg, "/stopproof") {
				args = append(args, "-race")
			}
			if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// removeStale removes the stopproof-e2e-* folders in tmp that this user owns and no live test binary uses:
// those whose pid file names a process that is gone, and those without a pid file (older test binaries,
// or one killed before it wrote it) older than staleAge. It returns what it removed.
func removeStale(tmp string, now time.Time) []string {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var gone []string
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), e2ePrefix) {
			continue
		}
		p := filepath.Join(tmp, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(p, "pid")); err == nil {
			if pid, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil && pidAlive(pid) {
				continue
			}
		} else if now.Sub(fi.ModTime()) < staleAge {
			continue
		}
		if os.RemoveAll(p) == nil {
			gone = append(gone, p)
		}
	}
	return gone
}

func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
