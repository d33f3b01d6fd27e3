package simtest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// binPath is the rosorin-base binary built once by TestMain (with -race under -race).
var binPath string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	defer testkit.Cleanup()
	os.Setenv("GORACE", testkit.QuickExitGORACE()) // the -race children exit as fast as normal ones
	var err error
	if binPath, err = testkit.Binary("./cmd/rosorin-base"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer closeShared()
	return m.Run()
}
