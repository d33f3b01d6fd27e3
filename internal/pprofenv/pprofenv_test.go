package pprofenv

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestStart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	t.Setenv(EnvAfter, "0s")
	t.Setenv(EnvFor, "100ms")
	Start("x")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		m, _ := filepath.Glob(filepath.Join(dir, "x-*.cpu.pprof"))
		if len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 0 {
				time.Sleep(200 * time.Millisecond) // the profile has been stopped
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no profile written")
}
