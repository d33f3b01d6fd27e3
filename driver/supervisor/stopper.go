package supervisor

import (
	"fmt"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
)

// stopper writes stop frames to the board port, from whichever goroutine learns first that one is needed
// (the driver's waiter the instant wait4 returns, the loop on shutdown and reopen). The loop swaps the port in
// and out as the device comes and goes; the mutex is held only for one short write.
type stopper struct {
	mu     sync.Mutex
	f      boardPort // nil while the port is gone
	frame  []byte
	double []byte // the stop frame twice, back to back: the crash path's write (see crash)
	count  uint64
	last   string
	lastAt time.Time
	// onWrite, when set (--capture), is handed every stop frame written; it must not block.
	onWrite func(at time.Time, b []byte)
	clk     clock.Clock // stamps the stop frames (clock.Real{}; the supervisor's)
}

func newStopper() *stopper {
	f := board.StopFrame()
	return &stopper{clk: clock.Real{}, frame: f, double: append(append([]byte(nil), f...), f...)}
}

func (s *stopper) set(f boardPort) {
	s.mu.Lock()
	s.f = f
	s.mu.Unlock()
}

// stopWriteTimeout bounds one stop-frame write: at 1 Mbaud the frame takes 0.1 ms on the wire, so a write
// that cannot finish in this time means the device is not draining (wedged or going away).
const stopWriteTimeout = 200 * time.Millisecond

// write writes one stop frame and returns when it is in the tty's output queue. It fails when the port is
// gone: nothing can stop the wheels then, and the caller says so loudly.
func (s *stopper) write(reason string) error { return s.put(reason, s.frame, 1) }

// crash writes the stop frame twice, back to back in one write(2): the stop after a driver that died, hung
// or may have been cut off by anyone (the crash path, the watchdog, the supervisor's own start).
//
// Why twice: a process killed in the middle of a write can leave part of a motor frame on the wire (a tty
// write that waited for room in the output queue returns short when a fatal signal arrives). The reference
// asks a receiver to resynchronise after a bad checksum by dropping one byte; a firmware parser that instead
// trusts the cut frame's length byte takes up to 26 bytes of what follows as that frame's payload, which is
// the whole first stop frame (27 bytes, as long as a motor frame), and then finds the second one intact
// (TestCrashStopSurvivesACutFrame tries every cut that kept the length byte). Not covered: a cut inside the
// 4-byte header, where a stop frame's own AA becomes the length (170) or the function byte; such a parser
// would swallow both copies, and only the next frames (the restarted driver's stop frame, its refreshes
// every 0.2 s) reach it. stop-motors writes three for the same reason.
func (s *stopper) crash(reason string) error { return s.put(reason, s.double, 2) }

func (s *stopper) put(reason string, b []byte, frames uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return fmt.Errorf("board port gone: cannot write the stop frame (%s); the wheels keep their last speed until the device returns", reason)
	}
	_ = s.f.SetWriteDeadline(s.clk.Now().Add(stopWriteTimeout))
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("stop frame (%s): %w", reason, err)
	}
	s.count += frames
	s.last, s.lastAt = reason, s.clk.Now()
	if s.onWrite != nil {
		s.onWrite(s.lastAt, b)
	}
	return nil
}

func (s *stopper) stats() (count uint64, last string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count, s.last, s.lastAt
}
