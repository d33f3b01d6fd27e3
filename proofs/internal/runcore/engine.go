package runcore

import (
	"context"
	"errors"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/target"
)

// ErrDone is what a Drive send or a Poll look returns to end its loop there without an error.
var ErrDone = errors.New("the loop is done")

// Engine is the proofs' one source of time and the two loops every proof runs on it: Drive, the only place
// that sends commands on a schedule, and Poll, the only place that reads the driver's state on a schedule.
// Every proof (stand, floor, characterize, the scan-gate check) and every trigger, take-over and watcher
// waits through these, so a change of rate, of bound or of clock is made once.
//
// An Engine is used by one goroutine. A goroutine of its own (a take-over's sender, the state watcher, a
// trigger's wait) uses an Engine of its own on the same clock, without TakeIn.
type Engine struct {
	Clock clock.Clock
	// TakeIn, when set, is the proof's work while the engine waits on the proof's goroutine: it runs before
	// each wait and at least every 20 ms meanwhile (the floor proof's scans, whose live rules must see each
	// scan as it comes). It is not a time seam: the time is Clock's.
	TakeIn func()
}

// takeInEvery bounds the wait between two TakeIn calls: two scans at the LiDAR's 10 Hz.
const takeInEvery = 20 * time.Millisecond

// Wait waits d on the clock, or until ctx ends (ctx's error then), taking in the proof's data meanwhile.
func (e Engine) Wait(ctx context.Context, d time.Duration) error {
	if e.TakeIn == nil {
		return e.Clock.Sleep(ctx, d)
	}
	end := e.Clock.Now().Add(d)
	for {
		e.TakeIn()
		left := end.Sub(e.Clock.Now())
		if left <= 0 {
			return nil
		}
		if err := e.Clock.Sleep(ctx, min(left, takeInEvery)); err != nil {
			return err
		}
	}
}

// Drive is the proofs' drive loop: send at once, then every period, until until (the last command at or
// after it; zero: no end). The wait before until is cut to until. send ends the loop: ErrDone ends it with
// nil, any other error is Drive's; a wait ended by ctx returns ctx's error.
func (e Engine) Drive(ctx context.Context, period time.Duration, until time.Time, send func(ctx context.Context) error) error {
	for {
		if err := send(ctx); err != nil {
			if errors.Is(err, ErrDone) {
				return nil
			}
			return err
		}
		d := period
		if !until.IsZero() {
			left := until.Sub(e.Clock.Now())
			if left <= 0 {
				return nil
			}
			d = min(d, left)
		}
		if err := e.Wait(ctx, d); err != nil {
			return err
		}
	}
}

// Poll is the proofs' state poll: read the driver's state once (bounded by readTimeout) and hand the answer
// or the error to look, then again every period until until (checked before each read; zero: no end). look
// ends the poll: ErrDone ends it with nil, any other error is Poll's. A wait ended by ctx returns ctx's error;
// the first read is made whatever ctx says (its error is look's to judge).
func (e Engine) Poll(ctx context.Context, s target.StateReader, period, readTimeout time.Duration, until time.Time,
	look func(st target.State, err error) error) error {
	for {
		if !until.IsZero() && !e.Clock.Now().Before(until) {
			return nil
		}
		qctx, cancel := context.WithTimeout(ctx, readTimeout)
		st, err := s.State(qctx)
		cancel()
		if err := look(st, err); err != nil {
			if errors.Is(err, ErrDone) {
				return nil
			}
			return err
		}
		if err := e.Wait(ctx, period); err != nil {
			return err
		}
	}
}
