package simtest_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/internal/testkit"
)

// binPath is the rosorin-base binary built once by TestMain (with -race under -race).
var binPath string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	defer testkit.RealTimeAlone()()
	defer testkit.Cleanup()
	os.Setenv("GORACE", testkit.QuickExitGORACE()) // the -race children exit as fast as normal ones
	var err error
	// ROSORIN_SIMTEST_BIN runs the suite against another build (an older one, for the side-by-side stop
	// latencies of docs/footprint.md); unset, the tree's.
	if binPath = os.Getenv("ROSORIN_SIMTEST_BIN"); binPath != "" {
		fmt.Fprintln(os.Stderr, "simtest: rosorin-base", binPath, "(ROSORIN_SIMTEST_BIN), not the tree's")
	} else if binPath, err = testkit.Binary("./cmd/rosorin-base"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	closeShared()
	// No goroutine of the tests' own (publishers, clients, waiters) may outlive them.
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			return 1
		}
	}
	return code
}
