package clock

import (
	"context"
	"time"
)

// Clock reads the time and waits: all most code needs, and all the proofs take. Every package of the module
// gets its time through one of this package's interfaces (a field defaulting to Real{}), never from package
// time directly; internal/layers' TestClockCalls holds that. The proofs' tests run Real inside a
// testing/synctest bubble, where it, the context deadlines (the hard timeouts) and targettest's fake robot
// all share virtual time, so a proof of minutes runs in milliseconds.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, and returns ctx.Err() in that case.
	Sleep(ctx context.Context, d time.Duration) error
}

// Timers is a clock that makes tickers and precise timers: what the driver's control loop runs on
// (driver.Options.Clock). Its tests drive it tick by tick with a fake that has only these three methods.
type Timers interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
	// NewTimer returns a timer that is not armed; Real's fires within microseconds of its instant
	// (preciseTimer), for the gate's deadlines.
	NewTimer() Timer
}

// Full is everything Real does: the clock of a long-running component that waits in select loops (the
// supervisor, the LiDAR reader, the services) as well as reading the time.
type Full interface {
	Clock
	Timers
	// After is time.After on this clock: a channel that receives the time once, d from now. Unlike NewTimer
	// it is the runtime's ordinary timer (about 1 ms late when the process is idle, no spin), for timeouts
	// and back-offs.
	After(d time.Duration) <-chan time.Time
}

// Ticker is a running ticker.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Timer fires once, d after Reset(d); Reset and Stop discard a firing not yet received (Go 1.23 timers).
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// Real is the wall clock with its monotonic reading (every duration computed from its Now uses it, so a
// wall-clock step does not bend them). Inside a testing/synctest bubble it is the bubble's virtual clock,
// except NewTimer's timers, which spin until their instant and so must not run in a bubble.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// Sleep waits d or until ctx ends.
func (Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// After returns time.After(d).
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTicker returns a time.Ticker.
func (Real) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

// NewTimer returns a precise timer, not armed.
func (Real) NewTimer() Timer { return newPreciseTimer() }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }

var (
	_ Clock  = Real{}
	_ Timers = Real{}
	_ Full   = Real{}
)
