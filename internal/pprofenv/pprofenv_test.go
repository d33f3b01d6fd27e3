package pprofenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

func TestStart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	t.Setenv(EnvAfter, "0s")
	t.Setenv(EnvFor, "100ms")
	Start("x")
	if err := testkit.Eventually(5*time.Second, func() error {
		m, _ := filepath.Glob(filepath.Join(dir, "x-*.cpu.pprof"))
		if len(m) != 1 {
			return fmt.Errorf("%d profiles in %s, want 1", len(m), dir)
		}
		if fi, err := os.Stat(m[0]); err != nil || fi.Size() == 0 {
			return fmt.Errorf("no profile written yet: %v", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the profile has been stopped
}
