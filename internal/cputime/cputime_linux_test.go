package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestThread: a busy loop shows up as thread CPU time, a sleep does not.
func TestThread(t *testing.T) {
	runtime.LockOSThread() // both readings of a difference from the same thread
	defer runtime.UnlockOSThread()
	c0 := Thread()
	if c0 <= 0 {
		t.Fatalf("thread CPU %v at the start: getrusage failed?", c0)
	}
	w0 := time.Now()
	x := 0
	for time.Since(w0) < 30*time.Millisecond {
		x++
	}
	busy := Thread() - c0
	if busy <= 0 {
		t.Errorf("30 ms of busy loop (%d turns) cost %v of thread CPU", x, busy)
	}
	c1 := Thread()
	time.Sleep(50 * time.Millisecond)
	if slept := Thread() - c1; slept > 25*time.Millisecond {
		t.Errorf("a 50 ms sleep cost %v of thread CPU: not the thread's own time", slept)
	}
}
