package imu

import (
	"context"
	"sync"
)

// Recorder is a Recording fed by one goroutine running a stream function. The samples slice is the only
// shared state and is guarded by mu; the stream goroutine is the only writer.
type Recorder struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	samples []Sample
	err     error
	closed  bool
}

// StartRecorder runs stream in a goroutine until it returns or ctx ends; every sample it emits is kept.
// stream must return when its context ends.
func StartRecorder(ctx context.Context, stream func(ctx context.Context, emit func(Sample)) error) *Recorder {
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		err := stream(ctx, r.add)
		r.mu.Lock()
		if !r.closed { // a closed recording ended because it was asked to
			r.err = err
		}
		r.mu.Unlock()
	}()
	return r
}

func (r *Recorder) add(s Sample) {
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
}

// Samples returns a copy of the samples so far.
func (r *Recorder) Samples() []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Sample(nil), r.samples...)
}

// Err says why the stream ended; nil while it runs and after Close.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Done is closed when the stream goroutine has returned.
func (r *Recorder) Done() <-chan struct{} { return r.done }

// Close stops the stream and waits for its goroutine. Idempotent.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	<-r.done
	return nil
}

var _ Recording = (*Recorder)(nil)
