package clock

import (
	"runtime"
	"sync"
	"time"
)

// preciseTimer is the real clock's Timer, for the gate's deadlines (the deadman, hand-overs, the scan gate):
// it fires within microseconds of its instant instead of the Go runtime's about 1 ms. A Go timer on Linux
// sleeps in epoll with a millisecond timeout and fires up to 1 ms late when the process is idle (measured:
// median 0.73 ms); the deadman's stop frame must follow cmd_timeout by at most 1 ms (issue 18).
//
// So a Go timer wakes a goroutine spinMargin early, and that goroutine waits out the rest yielding the
// processor (runtime.Gosched) until the instant, then delivers. The spin costs at most spinMargin of CPU per
// firing, and firings are rare: a command stream that keeps coming moves the deadline before it is reached.
//
// A firing may come after a Reset or Stop that raced with it (the goroutine was already delivering): the
// loop treats every firing as "look at the time now", never as "the deadline has passed".
type preciseTimer struct {
	c chan time.Time

	mu  sync.Mutex
	gen uint64      // bumped by every Reset and Stop: an older wake-up delivers nothing
	t   *time.Timer // the coarse wake-up
}

// spinMargin is how early the coarse Go timer wakes: above its lateness when the process is idle.
const spinMargin = 2 * time.Millisecond

func newPreciseTimer() *preciseTimer { return &preciseTimer{c: make(chan time.Time, 1)} }

func (p *preciseTimer) C() <-chan time.Time { return p.c }

// Reset arms the timer to fire d from now, replacing any pending firing.
func (p *preciseTimer) Reset(d time.Duration) {
	at := time.Now().Add(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	gen := p.gen
	p.t = time.AfterFunc(d-spinMargin, func() { p.fire(gen, at) })
}

// Stop disarms the timer.
func (p *preciseTimer) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
}

func (p *preciseTimer) stopLocked() {
	p.gen++
	if p.t != nil {
		p.t.Stop()
		p.t = nil
	}
	select { // a firing not yet received is discarded
	case <-p.c:
	default:
	}
}

// fire waits until at (unless the timer was reset or stopped meanwhile) and delivers the time.
func (p *preciseTimer) fire(gen uint64, at time.Time) {
	for {
		now := time.Now()
		if !now.Before(at) {
			break
		}
		if at.Sub(now) > spinMargin { // woken far too early (not expected): sleep again
			time.Sleep(at.Sub(now) - spinMargin)
			continue
		}
		runtime.Gosched()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return
	}
	select {
	case p.c <- time.Now():
	default: // one pending firing is enough: the loop reads the time when it handles it
	}
}
