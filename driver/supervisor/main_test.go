package supervisor_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/testkit"
)

// rosorinBase is the rosorin-base binary the end-to-end tests run (built once, with -race under -race); opener
// is a copy of this test binary in the same mode-0755 directory, run as uid 65534 as the unprivileged second
// opener.
var rosorinBase, openerBin string

const openerEnv = "ROSORIN_TEST_OPENER"

func TestMain(m *testing.M) {
	if dev := os.Getenv(openerEnv); dev != "" {
		os.Exit(opener(dev))
	}
	if os.Getenv(supervisor.SpawnCapsEnv) != "" {
		os.Exit(supervisor.SpawnCapsChild())
	}
	os.Exit(run(m))
}

// opener is the second opener: it opens dev read-write the way any program would (no lock) and reports the
// result by exit code: 0 opened, 3 EBUSY, 4 other error.
func opener(dev string) int {
	fd, err := unix.Open(dev, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		fmt.Println("open:", err)
		if errors.Is(err, unix.EBUSY) {
			return 3
		}
		return 4
	}
	unix.Close(fd)
	fmt.Println("opened")
	return 0
}

func run(m *testing.M) int {
	defer testkit.RealTimeAlone()()
	defer testkit.Cleanup()
	os.Setenv("GORACE", testkit.QuickExitGORACE()) // the -race children exit as fast as normal ones
	var err error
	if rosorinBase, err = testkit.Binary("./cmd/rosorin-base"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	openerBin = filepath.Join(testkit.BinDir(), "opener")
	if err := testkit.CopyExecutable(os.Args[0], openerBin); err != nil {
		fmt.Fprintln(os.Stderr, "copy opener:", err)
		return 1
	}
	code := m.Run()
	if code != 0 {
		return code
	}
	// Every supervisor, fake board, sim and watcher the tests started must be gone (goleak retries while
	// goroutines are ending; the virtual-time tests are also checked by their synctest bubbles).
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goroutines left after the tests:", err)
		return 1
	}
	return 0
}
