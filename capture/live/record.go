package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/serialport"
)

// RecordOptions say what `capture record` records.
type RecordOptions struct {
	Device string
	Baud   int // 0: the device kind's own rate (board 1,000,000, COIN-D6 230,400)
	Kind   capture.Kind
	Out    string        // the MCAP file; OUT.part while recording
	Until  time.Duration // stop after this long; 0: until the context ends or the device closes
	Log    io.Writer     // progress and the final line; nil: discarded
	Clock  clock.Clock   // stamps the reads and times Until; clock.Real{} when nil
}

// RecordResult is what a recording took.
type RecordResult struct {
	Bytes, Reads uint64
	Unrecorded   uint64 // reads the full recording queue did not take (0 unless the disk stalled)
	Why          string // why it stopped: "signal", "duration reached", "device closed (...)"
}

// recordQueueLen is the reads a passive recording may hold while the disk is slow (seconds at 1 Mbaud).
const recordQueueLen = 8192

// RecordMain is the `capture record` process: it records until SIGINT or SIGTERM (or the duration, or the
// device closing) and finishes the file. It is a separate function so the command stays flag wiring.
func RecordMain(o RecordOptions) (RecordResult, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RecordSerial(ctx, o)
}

// RecordSerial records o.Device passively into a crash-safe MCAP file: the device is opened read-only with a
// shared lock (serialport.Options.Listen), so a port an owner holds exclusively is refused with the holder named,
// and nothing is ever written to it. Every read is one message on /serial/KIND/rx; what the bytes hold also
// goes on the decoded channels (capture.DecodedChannels: /imu, /battery, /joy from a board, /scan from a LiDAR).
func RecordSerial(ctx context.Context, o RecordOptions) (RecordResult, error) {
	var res RecordResult
	dp := port{Device: o.Device, Baud: o.Baud, Kind: o.Kind, Out: o.Out, Log: o.Log}
	if err := dp.check(); err != nil {
		return res, err
	}
	log := dp.Log
	f, err := dp.open(serialport.Options{ReadOnly: true, Listen: true,
		KeepInput: true}, // a recorder keeps what already waits in the tty: it is part of the stream
		func(err error) error {
			return fmt.Errorf("%w: it is held exclusively (flock or TIOCEXCL) and capture record only listens. "+
				"Record through its owner instead: `rosorin-base run --capture DIR` records every board byte both ways, "+
				"and the supervisor's raw tee socket (the control socket + \".raw\") streams what the board sends; "+
				"or stop the owner and start it on `capture tap --device %s --link PATH --out FILE`", err, o.Device)
		})
	if err != nil {
		return res, err
	}
	defer f.Close()
	var werr atomic.Pointer[error]
	q, err := dp.record(recordQueueLen, map[string]string{"recorder": "capture record (passive)"},
		[]segment.ChannelSpec{segment.Raw(o.Kind, capture.FromDevice)}, func(err error) { werr.Store(&err) })
	if err != nil {
		return res, err
	}
	o.Baud = dp.Baud
	clk := orReal(o.Clock)
	var deadline time.Time
	if o.Until > 0 {
		deadline = clk.Now().Add(o.Until)
	}
	fmt.Fprintf(log, "capture record: %s at %d baud -> %s (%s while recording)\n", o.Device, o.Baud, o.Out, o.Out+mcapfile.PartSuffix)
	buf := make([]byte, 4096)
	res.Why = "stopped"
	for werr.Load() == nil {
		if ctx.Err() != nil {
			res.Why = "signal"
			break
		}
		if !deadline.IsZero() && !clk.Now().Before(deadline) {
			res.Why = "duration reached"
			break
		}
		// Wake at least every 100 ms to see a signal or the deadline (the port is in Go's poller, whose
		// deadline is on the wall clock, clock.Real, whatever o.Clock is).
		_ = f.SetReadDeadline(clock.Real{}.Now().Add(100 * time.Millisecond))
		n, err := f.Read(buf)
		if n > 0 {
			if !q.Put(0, clk.Now(), append([]byte(nil), buf[:n]...)) {
				res.Unrecorded++
			}
			res.Bytes += uint64(n)
			res.Reads++
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			res.Why = "device closed (" + err.Error() + ")"
			break
		}
	}
	cerr := q.Close() // the queue's error when recording stopped, else finishing the file's
	p := werr.Load()
	if p != nil {
		fmt.Fprintf(log, "capture record: RECORDING STOPPED: %v\n", *p)
	} else if cerr != nil {
		return res, cerr
	}
	fmt.Fprintf(log, "capture record: %s; %d bytes in %d reads written to %s\n", res.Why, res.Bytes, res.Reads, o.Out)
	if p != nil {
		return res, *p
	}
	return res, nil
}
