package supervisor

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// stopper writes stop frames to the board port, from whichever goroutine learns first that one is needed
// (the driver's waiter the instant wait4 returns, the loop on shutdown and reopen). The loop swaps the port in
// and out as the device comes and goes; the mutex is held only for one short write.
type stopper struct {
	mu     sync.Mutex
	f      *os.File // nil while the port is gone
	frame  []byte
	count  uint64
	last   string
	lastAt time.Time
}

func newStopper() *stopper { return &stopper{frame: board.StopFrame()} }

func (s *stopper) set(f *os.File) {
	s.mu.Lock()
	s.f = f
	s.mu.Unlock()
}

// stopWriteTimeout bounds one stop-frame write: at 1 Mbaud the frame takes 0.1 ms on the wire, so a write
// that cannot finish in this time means the device is not draining (wedged or going away).
const stopWriteTimeout = 200 * time.Millisecond

// write writes one stop frame and returns when it is in the tty's output queue. It fails when the port is
// gone: nothing can stop the wheels then, and the caller says so loudly.
func (s *stopper) write(reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return fmt.Errorf("board port gone: cannot write the stop frame (%s); the wheels keep their last speed until the device returns", reason)
	}
	_ = s.f.SetWriteDeadline(time.Now().Add(stopWriteTimeout))
	if _, err := s.f.Write(s.frame); err != nil {
		return fmt.Errorf("stop frame (%s): %w", reason, err)
	}
	s.count++
	s.last, s.lastAt = reason, time.Now()
	return nil
}

func (s *stopper) stats() (count uint64, last string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count, s.last, s.lastAt
}
