package footprint

import (
	"os"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

func TestMain(m *testing.M) {
	if runSkeleton() { // a re-executed test binary playing a skeleton process (skeleton_test.go)
		os.Exit(0)
	}
	code := m.Run()
	testkit.Cleanup()
	os.Exit(code)
}
