package driver

import (
	"time"

	"github.com/rosorin/rosorin/internal/cputime"
)

// threadCPU is the CPU time of the calling OS thread: the contact matcher's own cost, without what other
// processes take.
func threadCPU() time.Duration { return cputime.Thread() }
