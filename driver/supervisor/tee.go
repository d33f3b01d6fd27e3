package supervisor

import (
	"errors"
	"sync"
	"sync/atomic"
)

// tee fans the board's bytes out from the pump to the driver child's pipe and to the raw socket's clients.
// The pump never blocks on a consumer. The driver's pipe is written by the pump itself, without waiting
// (boardFeed.tryWrite: no goroutine hand-over per read, issue 21); a full pipe drops the chunk (a hung driver
// must not stall telemetry for anyone else; the bytes are counted). A raw client has a bounded queue and a
// goroutine of its own; a full queue drops the client (disconnected and counted).
type tee struct {
	mu    sync.Mutex
	sinks map[*sink]struct{}

	bytes       atomic.Uint64 // board bytes read by the pump
	droppedRaw  atomic.Uint64 // raw clients disconnected for being slow
	rawSinks    atomic.Int64
	driverDrops atomic.Uint64 // board bytes the driver's pipe could not take
}

// sink is one consumer: a raw client's queue (ch) or the driver's pipe (feed).
type sink struct {
	ch      chan []byte
	feed    boardFeed
	failed  bool // feed: the driver's end is gone (EPIPE); nothing more is written. Guarded by tee.mu.
	closed  bool // guarded by tee.mu
	dropped atomic.Uint64
}

// boardFeed is the supervisor's end of the driver's pipe of board bytes.
type boardFeed interface {
	// tryWrite writes all of chunk or nothing, without waiting: errFeedFull when the pipe has no room for it.
	tryWrite(chunk []byte) error
	Close() error
}

// maxChunk is the pump's largest read: PIPE_BUF on Linux, so that one read goes into the driver's pipe in one
// atomic write (pipe(7)), all or nothing.
const maxChunk = 4096

// errFeedFull: the driver's pipe is full (the driver is not reading: hung or stalled).
var errFeedFull = errors.New("driver pipe full")

func newTee() *tee { return &tee{sinks: make(map[*sink]struct{})} }

// addRaw adds a raw client with a queue of queue chunks, which its own goroutine drains.
func (t *tee) addRaw(queue int) *sink {
	s := &sink{ch: make(chan []byte, queue)}
	t.mu.Lock()
	t.sinks[s] = struct{}{}
	t.mu.Unlock()
	t.rawSinks.Add(1)
	return s
}

// addFeed adds the driver's pipe, which the pump writes itself; removing the sink closes f.
func (t *tee) addFeed(f boardFeed) *sink {
	s := &sink{feed: f}
	t.mu.Lock()
	t.sinks[s] = struct{}{}
	t.mu.Unlock()
	return s
}

// remove detaches s and closes its queue or its pipe (once); a raw client's writer drains what is left and
// ends.
func (t *tee) remove(s *sink) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeLocked(s)
}

func (t *tee) removeLocked(s *sink) {
	if s.closed {
		return
	}
	s.closed = true
	delete(t.sinks, s)
	if s.feed != nil {
		_ = s.feed.Close() // under t.mu: no write is under way on it
		return
	}
	close(s.ch)
	t.rawSinks.Add(-1)
}

// write hands chunk (which the caller no longer touches) to every sink without blocking.
func (t *tee) write(chunk []byte) {
	t.bytes.Add(uint64(len(chunk)))
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.sinks {
		if s.feed != nil {
			if s.failed {
				continue
			}
			switch err := s.feed.tryWrite(chunk); {
			case errors.Is(err, errFeedFull):
				s.dropped.Add(uint64(len(chunk)))
				t.driverDrops.Add(uint64(len(chunk)))
			case err != nil:
				s.failed = true // EPIPE: the driver is gone; its exit event removes the sink
			}
			continue
		}
		select {
		case s.ch <- chunk:
		default:
			s.dropped.Add(uint64(len(chunk)))
			t.droppedRaw.Add(1)
			t.removeLocked(s)
		}
	}
}

// closeAll detaches every sink (shutdown).
func (t *tee) closeAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.sinks {
		t.removeLocked(s)
	}
}
