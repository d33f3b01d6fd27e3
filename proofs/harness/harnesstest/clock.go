package harnesstest

import (
	"context"
	"time"

	"github.com/rosorin/rosorin/proofs/harness"
)

// ScaledClock runs Scale times faster than real time, so a proof's seconds of spin-up and hold pass in
// milliseconds while every goroutine still sees one consistent, monotonic time. Context deadlines stay in
// real time: that is what the hard timeouts are about.
type ScaledClock struct {
	base     time.Time // the clock's time at realBase
	realBase time.Time
	scale    float64
}

// NewScaledClock starts at a fixed date, so logs and records from tests are reproducible in shape.
func NewScaledClock(scale float64) *ScaledClock {
	return &ScaledClock{base: time.Date(2026, 10, 2, 17, 16, 0, 0, time.UTC), realBase: time.Now(), scale: scale}
}

// Now is the scaled time.
func (c *ScaledClock) Now() time.Time {
	return c.base.Add(time.Duration(float64(time.Since(c.realBase)) * c.scale))
}

// Sleep waits d of scaled time.
func (c *ScaledClock) Sleep(ctx context.Context, d time.Duration) error {
	return harness.RealClock{}.Sleep(ctx, time.Duration(float64(d)/c.scale))
}

var _ harness.Clock = (*ScaledClock)(nil)
