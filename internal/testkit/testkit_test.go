package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestQuantile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	d := ms(5, 1, 4, 2, 3) // unsorted on purpose
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 3 * time.Millisecond}, {0.99, 5 * time.Millisecond}, {1, 5 * time.Millisecond}, {0.2, time.Millisecond}} {
		if got := Quantile(d, tc.p); got != tc.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", d, tc.p, got, tc.want)
		}
	}
	if Quantile(nil, 0.5) != 0 {
		t.Error("Quantile of nothing is not 0")
	}
	if d[0] != 5*time.Millisecond {
		t.Error("Quantile sorted its input")
	}
}

func TestBound(t *testing.T) {
	want := time.Second
	if RaceEnabled {
		want *= RaceFactor
	}
	if got := Bound(time.Second); got != want {
		t.Fatalf("Bound(1s) = %v, want %v (race %v)", got, want, RaceEnabled)
	}
}

func TestLockedBuffer(t *testing.T) {
	var b LockedBuffer
	done := make(chan struct{})
	go func() {
		for range 100 {
			b.Write([]byte("x"))
		}
		close(done)
	}()
	for b.Len() < 100 {
		_ = b.String()
	}
	<-done
	if b.Len() != 100 {
		t.Fatalf("Len %d", b.Len())
	}
}

func TestModuleRootAndEventually(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := Eventually(time.Second, func() error {
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := Eventually(30*time.Millisecond, func() error { return errors.New("never") }); err == nil {
		t.Fatal("Eventually of a never-true condition returned nil")
	}
}

func TestEventuallyAbort(t *testing.T) {
	final := errors.New("gone")
	n := 0
	start := time.Now()
	err := Eventually(time.Minute, func() error {
		n++
		if n == 3 {
			return Abort(final)
		}
		return errors.New("not yet")
	})
	if err != final || n != 3 || time.Since(start) > 10*time.Second {
		t.Fatalf("Eventually = %v after %d calls (%v), want the aborting error after 3", err, n, time.Since(start))
	}
	if err := Eventually(30*time.Millisecond, func() error { return errors.New("never") }); err == nil || err.Error() != "after 30ms: never" {
		t.Fatalf("Eventually on a timeout = %v", err)
	}
}

func TestBuildCacheKey(t *testing.T) {
	a, b := buildCache("/src/one"), buildCache("/src/two")
	if a == "" {
		t.Skip("no user cache directory")
	}
	if a == b || a != buildCache("/src/one") {
		t.Fatalf("cache dirs %q and %q: want one per module root, stable", a, b)
	}
	if want := map[bool]string{false: "-norace", true: "-race"}[RaceEnabled]; !strings.HasSuffix(a, want) {
		t.Fatalf("cache dir %q does not name the race mode (%s)", a, want)
	}
}

// TestLockFileExcludes: a second holder waits until the first releases the lock (test packages build the
// same binary from parallel processes).
func TestLockFileExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	unlock, err := lockFile(path)
	if err != nil {
		t.Skip(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := lockFile(path)
		if err != nil {
			t.Error(err)
		} else {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second lock was granted while the first was held")
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the second lock was not granted after the release")
	}
}

func TestAlways(t *testing.T) {
	n := 0
	start := time.Now()
	if err := Always(50*time.Millisecond, func() error { n++; return nil }); err != nil || time.Since(start) < 50*time.Millisecond || n < 2 {
		t.Fatalf("Always on a holding condition = %v after %d calls in %v", err, n, time.Since(start))
	}
	n = 0
	broke := errors.New("moved")
	err := Always(time.Minute, func() error {
		if n++; n == 3 {
			return broke
		}
		return nil
	})
	if !errors.Is(err, broke) || n != 3 {
		t.Fatalf("Always = %v after %d calls, want the breaking error at the third", err, n)
	}
}
