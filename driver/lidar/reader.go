package lidar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/rawio"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/serialport"
)

// Port is what the reader needs from an open device: reads with a deadline (silence detection) and Close.
type Port interface {
	io.ReadCloser
	SetReadDeadline(t time.Time) error
}

// Config configures Run. Zero values take the defaults in parentheses.
type Config struct {
	// Device is the LiDAR's path (/dev/lidar, the udev symlink of deploy/60-rosorin-lidar.rules).
	Device string
	// Scan says how revolutions become scans (coind6.DefaultScanConfig: 400 bins, clockwise, 0.12-8 m).
	Scan coind6.ScanConfig
	// Silence reopens the port after this long without a byte (2 s); RetryEvery is the open retry period
	// (0.5 s); LogEvery repeats the "still cannot open" warning (10 s).
	Silence, RetryEvery, LogEvery time.Duration
	// Open opens the device (serialport.OpenLidar: read-only, exclusive, raw 230400).
	Open func(path string) (Port, error)
	// Clock stamps packet arrivals and times the retries (clock.Real{}).
	Clock clock.Clock
	// Record, when set, is handed every read's bytes (a copy it may keep) with their receive time; it must
	// not block (--capture: a segment.Queue).
	Record func(t time.Time, data []byte)
	// Log receives the reader's log (nil discards it).
	Log *slog.Logger
}

func (c *Config) defaults() {
	if c.Scan.Bins == 0 {
		c.Scan = coind6.DefaultScanConfig()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.Silence, 2*time.Second)
	def(&c.RetryEvery, 500*time.Millisecond)
	def(&c.LogEvery, 10*time.Second)
	if c.Open == nil {
		c.Open = func(p string) (Port, error) {
			f, err := serialport.OpenLidar(p)
			if err != nil {
				return nil, err
			}
			// Its reads as raw system calls (rawio: no sysmon wake-up per read); serialport opens it
			// non-blocking, so NewFile fails only on a descriptor Go's poller does not know.
			if rf, err := rawio.NewFile(f); err == nil {
				return rf, nil
			}
			return f, nil
		}
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Stats are the reader's counters since start.
type Stats struct {
	Opens, Reopens uint64
	Bytes          uint64
	Scans          uint64
	Parser         coind6.Stats // of the current parser (reset counters are kept)
	DecodeErrors   uint64       // packets with a valid checksum that did not decode
}

// Reader reads one LiDAR. Create it with New, run it with Run; Stats may be called from any goroutine.
type Reader struct {
	cfg Config

	opens, reopens, bytes, scans, decodeErrs atomic.Uint64
	packets, badSum, skipped                 atomic.Uint64
}

// New returns a reader for cfg.
func New(cfg Config) *Reader {
	cfg.defaults()
	return &Reader{cfg: cfg}
}

// Stats returns the counters so far.
func (r *Reader) Stats() Stats {
	return Stats{Opens: r.opens.Load(), Reopens: r.reopens.Load(), Bytes: r.bytes.Load(), Scans: r.scans.Load(),
		DecodeErrors: r.decodeErrs.Load(),
		Parser:       coind6.Stats{Packets: r.packets.Load(), BadChecksum: r.badSum.Load(), SkippedBytes: r.skipped.Load()}}
}

// ErrReadLoop wraps an unexpected failure of the read loop (a panic): the process must exit non-zero so the
// supervisor respawns it, instead of living on with a dead reader.
var ErrReadLoop = errors.New("lidar: read loop failed")

// Run reads until ctx ends (then it returns nil), reopening the device on end of file, read errors and
// silence, and calls deliver with every finished revolution. deliver must not block for long: the serial
// buffer fills meanwhile (use a Forwarder). An unexpected failure returns an error wrapping ErrReadLoop.
func (r *Reader) Run(ctx context.Context, deliver func(coind6.Scan)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: panic: %v\n%s", ErrReadLoop, p, debug.Stack())
		}
	}()
	c := &r.cfg
	var lastFail time.Time
	failing := false
	for ctx.Err() == nil {
		f, oerr := c.Open(c.Device)
		if oerr != nil {
			if !failing || c.Clock.Now().Sub(lastFail) >= c.LogEvery {
				c.Log.Warn("cannot open the LiDAR; retrying", "device", c.Device, "err", oerr, "every", c.RetryEvery)
				lastFail = c.Clock.Now()
			}
			failing = true
			if c.Clock.Sleep(ctx, c.RetryEvery) != nil {
				break
			}
			continue
		}
		if r.opens.Add(1) == 1 {
			c.Log.Info("reading the LiDAR (read-only)", "device", c.Device)
		} else {
			r.reopens.Add(1)
			c.Log.Info("LiDAR reopened", "device", c.Device)
		}
		failing = false
		opened := c.Clock.Now()
		why := r.readPort(ctx, f, deliver)
		f.Close()
		if ctx.Err() != nil {
			break
		}
		c.Log.Warn("LiDAR lost; reopening", "device", c.Device, "why", why)
		// Reopen at once, as the seed did (a silent descriptor may just need a fresh open); a device that
		// opens and fails at once is retried at RetryEvery, not in a tight loop.
		if c.Clock.Now().Sub(opened) < c.RetryEvery && c.Clock.Sleep(ctx, c.RetryEvery) != nil {
			break
		}
	}
	return nil
}

// readPort reads one open descriptor until it breaks, with a fresh parser and assembler (a reopen starts a new
// revolution: a half revolution across a gap is not a scan). It returns why it stopped.
func (r *Reader) readPort(ctx context.Context, f Port, deliver func(coind6.Scan)) string {
	c := &r.cfg
	stopWake := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	defer stopWake()
	var parser coind6.Parser
	asm := coind6.NewAssembler(c.Scan)
	var clk coind6.PacketClock // one read may hold two revolutions: each packet is stamped by its place in it
	var samples []coind6.Sample
	var last coind6.Stats
	buf := make([]byte, 4096)
	for {
		if err := f.SetReadDeadline(c.Clock.Now().Add(c.Silence)); err != nil {
			return "set read deadline: " + err.Error()
		}
		n, err := f.Read(buf)
		if n > 0 {
			now := c.Clock.Now()
			r.bytes.Add(uint64(n))
			if c.Record != nil {
				c.Record(now, append([]byte(nil), buf[:n]...))
			}
			parser.FeedTail(buf[:n], func(pkt []byte, tail int) {
				p, derr := coind6.DecodeInto(pkt, samples)
				if derr != nil {
					r.decodeErrs.Add(1)
					return
				}
				samples = p.Samples
				if sc, ok := asm.Add(p, clk.At(now, tail)); ok {
					r.scans.Add(1)
					deliver(sc)
				}
			})
			st := parser.Stats()
			r.packets.Add(st.Packets - last.Packets)
			r.badSum.Add(st.BadChecksum - last.BadChecksum)
			r.skipped.Add(st.SkippedBytes - last.SkippedBytes)
			last = st
		}
		switch {
		case ctx.Err() != nil:
			return "shutdown"
		case err == nil && n == 0, errors.Is(err, io.EOF):
			return "end of file (device gone)"
		case errors.Is(err, os.ErrDeadlineExceeded):
			return fmt.Sprintf("no data for %.0f s", c.Silence.Seconds())
		case err != nil:
			return "read error: " + err.Error()
		}
	}
}
