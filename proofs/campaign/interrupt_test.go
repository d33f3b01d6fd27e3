package campaign

import (
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestInterruptsTwoStages: the first signal ends the taking of runs only, the second abandons the runs in
// progress; each is said. Control: without a signal neither context ends.
func TestInterruptsTwoStages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		var out lockedBuf
		in := WatchInterrupts(sigs, &out)
		defer in.Stop()
		synctest.Wait()
		if in.Take.Err() != nil || in.Run.Err() != nil {
			t.Fatal("a context ended without a signal")
		}
		sigs <- os.Interrupt
		synctest.Wait()
		if in.Take.Err() == nil || in.Run.Err() != nil {
			t.Fatalf("after one signal: take %v, run %v; want take ended, run going", in.Take.Err(), in.Run.Err())
		}
		if !strings.Contains(out.String(), "finishing the run(s) in progress") {
			t.Errorf("first stage not said: %q", out.String())
		}
		sigs <- os.Interrupt
		synctest.Wait()
		if in.Run.Err() == nil || !strings.Contains(out.String(), "abandoning") {
			t.Fatalf("after two signals: run %v, out %q", in.Run.Err(), out.String())
		}
	})
}

// TestInterruptsStop: Stop ends the watch and both contexts, and may be called twice.
func TestInterruptsStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := WatchInterrupts(make(chan os.Signal), &lockedBuf{})
		in.Stop()
		in.Stop()
		if in.Take.Err() == nil || in.Run.Err() == nil {
			t.Fatal("Stop left a context going")
		}
	})
}
