package scanmatch

import (
	"time"

	"github.com/rosorin/rosorin/internal/cputime"
)

// threadCPU returns the CPU time of the calling OS thread, which does not count the time other processes on
// this shared machine take the core away.
func threadCPU() time.Duration { return cputime.Thread() }
