package driver

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling OS thread (getrusage RUSAGE_THREAD): the contact matcher's own
// cost, without what other processes take.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
