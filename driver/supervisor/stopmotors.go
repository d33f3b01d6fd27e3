package supervisor

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/serialport"
)

// StopMotorsConfig configures StopMotors, the last-resort tool behind `rosorin-base stop-motors` (systemd's
// ExecStopPost). Zero values take the seed's figures.
type StopMotorsConfig struct {
	Device string
	// Wait bounds the retries (30 s: the 2026-09-28 USB drop test; a 1 s wait gave up while the board's USB
	// was still re-enumerating, an 8 s drop got its stop frame 7.6 s after the crash with 30 s).
	Wait time.Duration
	// Retry is the open retry period (0.2 s), WarnAfter when the first warning is printed (1 s).
	Retry, WarnAfter time.Duration
	// Frames is the number of stop frames written (3, the seed's count). More than one because whoever wrote
	// before (a driver that died mid-write) may have left a cut frame whose length byte swallows the first stop
	// frame in a parser that does not resynchronise (stopper.crash in stopper.go explains it).
	Frames int
	// Warn receives the one-time warning line (stderr); may be nil.
	Warn io.Writer
	// Clock times the retries (clock.Real{}).
	Clock clock.Full
}

// StopMotors opens the board without lock or exclusivity (it must not lock out the driver that systemd
// starts next), retrying while the device is missing or busy, and writes the stop frame Frames times. It
// returns how long it took from the first attempt. The error says why it gave up.
func StopMotors(ctx context.Context, c StopMotorsConfig) (time.Duration, error) {
	if c.Wait < 0 {
		c.Wait = 0
	}
	if c.Retry <= 0 {
		c.Retry = 200 * time.Millisecond
	}
	if c.WarnAfter <= 0 {
		c.WarnAfter = time.Second
	}
	if c.Frames <= 0 {
		c.Frames = 3
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	t0 := c.Clock.Now()
	warned := false
	for {
		f, err := serialport.OpenShared(c.Device, serialport.BoardBaud)
		if err == nil {
			defer f.Close()
			stop := board.StopFrame()
			// A wedged device must not hang systemd's stop job: the kill timeout would end us silently.
			_ = f.SetWriteDeadline(c.Clock.Now().Add(2 * time.Second))
			for i := 0; i < c.Frames; i++ {
				if _, err := f.Write(stop); err != nil {
					return c.Clock.Now().Sub(t0), fmt.Errorf("write stop frame %d/%d to %s: %w", i+1, c.Frames, c.Device, err)
				}
			}
			return c.Clock.Now().Sub(t0), nil
		}
		el := c.Clock.Now().Sub(t0)
		if el >= c.Wait {
			return el, fmt.Errorf("cannot open %s for %.0f s: %w", c.Device, c.Wait.Seconds(), err)
		}
		if !warned && el >= c.WarnAfter && c.Warn != nil {
			fmt.Fprintf(c.Warn, "stop-motors: %s unavailable (%v); retrying up to %.0f s\n", c.Device, err, c.Wait.Seconds())
			warned = true
		}
		select {
		case <-ctx.Done():
			return c.Clock.Now().Sub(t0), fmt.Errorf("stop-motors interrupted before %s opened: %w", c.Device, ctx.Err())
		case <-c.Clock.After(min(c.Retry, c.Wait-el)):
		}
	}
}
