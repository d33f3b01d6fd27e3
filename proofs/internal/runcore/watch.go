package runcore

import (
	"context"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/target"
)

// StateWatcher polls the driver's state record for the whole run: every line goes to the evidence log, and
// the proofs read the history (the scan-loss path follows scan_age and blocked through it). One goroutine
// polls; the history is guarded by mu.
type StateWatcher struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	hist    []target.State
	errs    int
	lastErr error
}

// maxHistory bounds the history (10 Hz for an hour and a half); the oldest half is dropped beyond it.
const maxHistory = 1 << 16

// Watch starts polling s every period (Engine.Poll, on a goroutine and an engine of its own) until ctx ends
// or Close.
func Watch(ctx context.Context, s target.StateReader, clk clock.Clock, ev *evidence.Log, period time.Duration) *StateWatcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &StateWatcher{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		if ctx.Err() != nil {
			return
		}
		var lastErr string
		Engine{Clock: clk}.Poll(ctx, s, period, 2*time.Second, time.Time{}, func(st target.State, err error) error {
			w.mu.Lock()
			if err != nil {
				w.errs++
				w.lastErr = err
			} else {
				if len(w.hist) >= maxHistory {
					w.hist = append(w.hist[:0], w.hist[len(w.hist)/2:]...)
				}
				w.hist = append(w.hist, st)
			}
			w.mu.Unlock()
			switch {
			case err != nil && ctx.Err() == nil:
				// A driver that is gone answers with the same error 10 times a second: log it once per change.
				if err.Error() != lastErr {
					ev.Logf("state: %v", err)
					lastErr = err.Error()
				}
			case err == nil:
				lastErr = ""
				ev.Logf("state: %s", target.Compact(st.Raw))
			}
			return nil
		})
	}()
	return w
}

// Latest returns the newest state, if any arrived.
func (w *StateWatcher) Latest() (target.State, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.hist) == 0 {
		return target.State{}, false
	}
	return w.hist[len(w.hist)-1], true
}

// Since returns the states received at or after t.
func (w *StateWatcher) Since(t time.Time) []target.State {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := len(w.hist)
	for i > 0 && !w.hist[i-1].At.Before(t) {
		i--
	}
	return append([]target.State(nil), w.hist[i:]...)
}

// Errors returns how many polls failed and the last error.
func (w *StateWatcher) Errors() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errs, w.lastErr
}

// Close stops polling and waits for the goroutine. Idempotent.
func (w *StateWatcher) Close() {
	w.cancel()
	<-w.done
}
