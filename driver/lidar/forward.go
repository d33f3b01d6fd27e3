package lidar

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// ScanStream is one open delivery stream to the driver (*api.ScanSender).
type ScanStream interface {
	Send(api.Scan) error
	Close() (api.StreamResult, error)
}

var _ ScanStream = (*api.ScanSender)(nil)

// ToAPI converts an assembled revolution to the wire scan: angles counter-clockwise from 0 in bins of
// 360/Bins degrees (the assembler already flipped a clockwise sensor), stamped with the first ray.
func ToAPI(s coind6.Scan, frameID string) api.Scan {
	n := len(s.Ranges)
	inc := 2 * math.Pi / float64(max(n, 1))
	st := s.ScanTime.Seconds()
	return api.Scan{
		Stamp: s.Stamp, FrameID: frameID,
		ScanTime: st, TimeIncrement: st / float64(max(n, 1)),
		AngleMin: 0, AngleMax: inc * float64(n-1), AngleIncrement: inc,
		RangeMin: float64(s.RangeMin), RangeMax: float64(s.RangeMax),
		Ranges: api.Ranges(s.Ranges), Intensities: s.Intensities,
	}
}

// Forwarder delivers scans to the driver without ever blocking the reader: Offer leaves the newest scan in a
// one-slot mailbox (an older one not yet sent is dropped and counted), and Run sends from it, reconnecting
// every RetryEvery while the driver is down or restarting.
type Forwarder struct {
	// Open opens a stream (e.g. api.NewClient(socket).StreamScans).
	Open func(ctx context.Context) (ScanStream, error)
	// FrameID is the scans' frame ("laser").
	FrameID string
	// RetryEvery is the reconnect period (0.5 s); LogEvery repeats the "driver unreachable" warning (10 s).
	RetryEvery, LogEvery time.Duration
	Log                  *slog.Logger
	// Clock times the retries and the warnings (clock.Real{}).
	Clock clock.Clock

	mailbox                chan coind6.Scan
	sent, dropped, connect atomic.Uint64
}

// NewForwarder returns a forwarder using open.
func NewForwarder(open func(ctx context.Context) (ScanStream, error), frameID string, log *slog.Logger) *Forwarder {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Forwarder{Open: open, FrameID: frameID, RetryEvery: 500 * time.Millisecond, LogEvery: 10 * time.Second,
		Log: log, Clock: clock.Real{}, mailbox: make(chan coind6.Scan, 1)}
}

// Offer hands a scan over without blocking; the newest scan wins.
func (f *Forwarder) Offer(s coind6.Scan) {
	for {
		select {
		case f.mailbox <- s:
			return
		default:
		}
		select {
		case <-f.mailbox:
			f.dropped.Add(1)
		default:
		}
	}
}

// Counts returns scans sent, dropped (superseded or lost with a broken stream) and connections made.
func (f *Forwarder) Counts() (sent, dropped, connects uint64) {
	return f.sent.Load(), f.dropped.Load(), f.connect.Load()
}

// Run sends until ctx ends; it always returns nil then.
func (f *Forwarder) Run(ctx context.Context) error {
	var st ScanStream
	var lastWarn time.Time
	failing := false
	defer func() {
		if st != nil {
			_, _ = st.Close()
		}
	}()
	for {
		if st == nil {
			s, err := f.Open(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if !failing || f.Clock.Now().Sub(lastWarn) >= f.LogEvery {
					f.Log.Warn("driver unreachable; scans are dropped until it is back (its scan gate holds software commands meanwhile)",
						"err", err, "retry_every", f.RetryEvery)
					lastWarn = f.Clock.Now()
				}
				failing = true
				if f.Clock.Sleep(ctx, f.RetryEvery) != nil {
					return nil
				}
				continue
			}
			st = s
			if f.connect.Add(1) > 1 || failing {
				f.Log.Info("delivering scans to the driver again")
			}
			failing = false
		}
		var sc coind6.Scan
		select {
		case <-ctx.Done():
			return nil
		case sc = <-f.mailbox:
		}
		if err := st.Send(ToAPI(sc, f.FrameID)); err != nil {
			f.dropped.Add(1)
			res, cerr := st.Close()
			st = nil
			f.Log.Warn("scan stream to the driver broke; reconnecting", "err", err, "close", cerr, "accepted", res.Accepted)
			lastWarn = f.Clock.Now()
			failing = true
			if f.Clock.Sleep(ctx, f.RetryEvery) != nil {
				return nil
			}
			continue
		}
		f.sent.Add(1)
	}
}
