package scanmatch

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time of the calling OS thread (getrusage RUSAGE_THREAD), which does not count
// the time other processes on this shared machine take the core away.
func threadCPU() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
