package supervisor

import (
	"sync"
	"sync/atomic"
)

// tee fans the board's bytes out from the pump to the driver child's pipe and to the raw socket's clients.
// The pump never blocks on a consumer: each sink has a bounded queue, and a full queue either drops the chunk
// (the driver: a hung driver must not stall telemetry for anyone else; the bytes are counted) or drops the
// sink (a slow raw client is disconnected and counted).
type tee struct {
	mu    sync.Mutex
	sinks map[*sink]struct{}

	bytes       atomic.Uint64 // board bytes read by the pump
	droppedRaw  atomic.Uint64 // raw clients disconnected for being slow
	rawSinks    atomic.Int64
	driverDrops atomic.Uint64 // board bytes the driver's queue could not take
}

type sink struct {
	ch      chan []byte
	raw     bool // overflow disconnects (raw client) instead of dropping the chunk (driver pipe)
	closed  bool // guarded by tee.mu
	dropped atomic.Uint64
}

func newTee() *tee { return &tee{sinks: make(map[*sink]struct{})} }

func (t *tee) add(queue int, raw bool) *sink {
	s := &sink{ch: make(chan []byte, queue), raw: raw}
	t.mu.Lock()
	t.sinks[s] = struct{}{}
	t.mu.Unlock()
	if raw {
		t.rawSinks.Add(1)
	}
	return s
}

// remove detaches s and closes its queue (once); the sink's writer drains what is left and ends.
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
	close(s.ch)
	if s.raw {
		t.rawSinks.Add(-1)
	}
}

// write hands chunk (which the caller no longer touches) to every sink without blocking.
func (t *tee) write(chunk []byte) {
	t.bytes.Add(uint64(len(chunk)))
	t.mu.Lock()
	defer t.mu.Unlock()
	for s := range t.sinks {
		select {
		case s.ch <- chunk:
		default:
			s.dropped.Add(uint64(len(chunk)))
			if s.raw {
				t.droppedRaw.Add(1)
				t.removeLocked(s)
			} else {
				t.driverDrops.Add(uint64(len(chunk)))
			}
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
