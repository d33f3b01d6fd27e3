// Package pprofenv writes a CPU profile of the process when asked through the environment, off by default:
// the footprint work (issue 21, docs/footprint.md) profiles each process of the service, which are started by
// the supervisor and have no flags of their own for it.
//
//	ROSORIN_PPROF_DIR    where DIR/NAME-PID.cpu.pprof is written (unset: nothing is profiled)
//	ROSORIN_PPROF_AFTER  the profile starts this long after the process (5s: past the start-up)
//	ROSORIN_PPROF_FOR    and lasts this long (20s)
//
// A profile of a fixed window does not depend on the process's exit path: the children of `rosorin-base run`
// end by a signal or SIGKILL.
package pprofenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/rosorin/rosorin/clock"
)

const (
	EnvDir   = "ROSORIN_PPROF_DIR"
	EnvAfter = "ROSORIN_PPROF_AFTER"
	EnvFor   = "ROSORIN_PPROF_FOR"
)

// Start schedules the CPU profile of this process, named name, when ROSORIN_PPROF_DIR is set; a bad setting
// is reported on stderr and nothing is profiled.
func Start(name string) { start(name, clock.Real{}) }

// start is Start with the clock that times the window.
func start(name string, c clock.Clock) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return
	}
	after, err1 := duration(EnvAfter, 5*time.Second)
	span, err2 := duration(EnvFor, 20*time.Second)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "pprofenv:", err1, err2, "(no profile)")
		return
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.cpu.pprof", name, os.Getpid()))
	go func() {
		_ = c.Sleep(context.Background(), after) // no context ends it: the window is the process's
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pprofenv:", err)
			return
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "pprofenv:", err)
			f.Close()
			return
		}
		_ = c.Sleep(context.Background(), span)
		pprof.StopCPUProfile()
		f.Close()
	}()
}

func duration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q is not a duration", name, v)
	}
	return d, nil
}
