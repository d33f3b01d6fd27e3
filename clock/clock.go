package clock

import (
	"context"
	"time"
)

// Clock is the proofs' only source of time. The proofs' tests run Real inside a testing/synctest bubble,
// where it, the context deadlines (the hard timeouts) and targettest's fake robot all share virtual time, so a
// proof of minutes runs in milliseconds.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, and returns ctx.Err() in that case.
	Sleep(ctx context.Context, d time.Duration) error
}

// Real is the wall clock with its monotonic reading.
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

var _ Clock = Real{}
