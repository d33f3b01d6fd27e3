package cputime

import (
	"syscall"
	"time"
)

// Thread is the CPU time (user + system) the calling OS thread has used, or 0 when getrusage fails. Lock
// the goroutine to its thread (runtime.LockOSThread) around a measurement, or take both readings close
// together in one goroutine that does not block.
func Thread() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD; package syscall does not name it
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
