package live

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/serialport"
)

// TapOptions say what `capture tap` relays and records.
type TapOptions struct {
	Device string // the real device, opened exclusively
	Link   string // where the pty's slave is published for the program
	Out    string // the MCAP file; OUT.part while recording
	Baud   int    // 0: the kind's own rate
	Kind   capture.Kind
	Log    io.Writer // progress and the final line; nil: discarded
	// Queue is the number of reads each relay direction and the recorder may hold (default 4096: seconds
	// at 1 Mbaud).
	Queue int
	Clock clock.Clock // stamps the reads; clock.Real{} when nil
}

// TapResult is what a tap relayed and recorded.
type TapResult struct {
	ToHost, ToDevice      uint64 // bytes read from each side (ToHost includes NoProgram)
	ReadsRx, ReadsTx      uint64 // reads each way (one message each)
	Unrecorded            uint64 // reads the full recorder queue did not record (0 unless the disk stalled)
	NoProgram             uint64 // device bytes recorded, not relayed: no program had the link open
	Why                   string // why it stopped
	RecordErr             error  // the recorder's error (a full disk): relaying went on without it
	FirstRelay, LastRelay time.Time
	DecodedRx, DecodedTx  uint64
	SummaryRx, SummaryTx  capture.Summary
}

// TapMain is the `capture tap` process: it relays and records until SIGINT or SIGTERM (or the device
// closing) and finishes the file.
func TapMain(o TapOptions) (TapResult, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Tap(ctx, o)
}

// Tap is a pty man-in-the-middle: it opens o.Device exclusively (as its owner would), publishes a pty at
// o.Link for the program that would have opened the device, relays bytes both ways and records both
// directions (capture.RawTopic(kind, FromDevice) and capture.RawTopic(kind, ToDevice)) with their decoded channels.
//
// Four relay goroutines (device reader, pty writer, pty reader, device writer) pass reads over bounded
// queues; a segment.Queue records (its writer goroutine owns the file and the decoders). A relay never waits
// for the disk: Put never blocks (a stalled disk costs recording, counted in Unrecorded, never relaying). A relay
// does wait for the other side: a program that stops reading fills the pty, then the queue, then the
// device reader stops reading and the device's own buffer fills, as without the tap (cdc-acm throttles a
// reader that does not keep up); nothing is dropped inside the tap. While no program has the link open the
// device's bytes are recorded and not relayed (NoProgram), so a program that opens it later never reads
// stale bytes.
func Tap(ctx context.Context, o TapOptions) (TapResult, error) {
	var res TapResult
	dp := port{Device: o.Device, Baud: o.Baud, Kind: o.Kind, Out: o.Out, Log: o.Log}
	if err := dp.check(); err != nil {
		return res, err
	}
	o.Baud = dp.Baud
	log := dp.Log
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	clk := orReal(o.Clock)
	dev, err := dp.open(serialport.Options{Exclusive: true}, func(err error) error {
		return fmt.Errorf("%w: capture tap must own the device; stop its owner and start that program on --link instead", err)
	})
	if err != nil {
		return res, err
	}
	defer dev.Close()
	p, err := OpenPTY(o.Link, o.Baud)
	if err != nil {
		return res, err
	}
	defer p.Close()
	var recErr atomic.Pointer[error]
	q, err := dp.record(o.Queue, map[string]string{"recorder": "capture tap (pty man-in-the-middle)", "link": o.Link},
		[]segment.ChannelSpec{segment.Raw(o.Kind, capture.FromDevice), segment.Raw(o.Kind, capture.ToDevice)},
		func(err error) {
			recErr.Store(&err)
			fmt.Fprintf(log, "capture tap: RECORDING STOPPED (relaying goes on): %v\n", err)
		})
	if err != nil {
		return res, err
	}
	fmt.Fprintf(log, "capture tap: %s at %d baud <-> %s (%s) -> %s (%s while recording)\n",
		o.Device, o.Baud, o.Link, p.SlaveName, o.Out, o.Out+mcapfile.PartSuffix)

	toHost := make(chan []byte, o.Queue)
	toDev := make(chan []byte, o.Queue)
	var mu sync.Mutex // guards res's relay counters and stop reason
	stopOnce := sync.Once{}
	done := make(chan struct{})
	stop := func(why string) {
		stopOnce.Do(func() {
			mu.Lock()
			res.Why = why
			mu.Unlock()
			close(done)
		})
	}
	var readers, writers sync.WaitGroup
	// reader reads f and hands each read to out (the other side's writer) and to the recorder.
	reader := func(f *os.File, dir capture.Direction, out chan []byte, n, reads *uint64) {
		defer readers.Done()
		buf := make([]byte, 16<<10)
		for {
			k, err := f.Read(buf)
			if k > 0 {
				t := clk.Now()
				b := append([]byte(nil), buf[:k]...)
				q.Put(int(dir), t, b) // channel dir: Channels are rx, tx
				select {
				case out <- b:
				case <-done:
				}
				mu.Lock()
				*n += uint64(k)
				*reads++
				if res.FirstRelay.IsZero() {
					res.FirstRelay = t
				}
				res.LastRelay = t
				mu.Unlock()
			}
			if err != nil {
				select {
				case <-done: // closed by us
				default:
					if dir == capture.FromDevice {
						stop("device closed (" + err.Error() + ")")
					} else {
						stop("pty read failed (" + err.Error() + ")")
					}
				}
				return
			}
		}
	}
	var noProgram atomic.Uint64
	writer := func(f *os.File, in chan []byte, skip func() bool) {
		defer writers.Done()
		for b := range in {
			if skip != nil && skip() {
				noProgram.Add(uint64(len(b))) // as cdc-acm delivers nothing while the tty is closed
				continue
			}
			if _, err := f.Write(b); err != nil {
				select {
				case <-done:
				default:
					stop("write failed (" + err.Error() + ")")
				}
				for range in { // drain until the reader is gone
				}
				return
			}
		}
	}
	readers.Add(2)
	writers.Add(2)
	go reader(dev, capture.FromDevice, toHost, &res.ToHost, &res.ReadsRx)
	go reader(p.Master, capture.ToDevice, toDev, &res.ToDevice, &res.ReadsTx)
	go writer(p.Master, toHost, func() bool { return p.Clients() == 0 })
	go writer(dev, toDev, nil)
	select {
	case <-ctx.Done():
		stop("signal")
	case <-done:
	}
	// Closing the files wakes the readers (and any writer blocked on a full pty).
	dev.Close()
	p.Master.Close()
	readers.Wait()
	close(toHost)
	close(toDev)
	writers.Wait()
	res.Unrecorded = q.Status().Dropped
	cerr := q.Close() // the recording's error, else finishing the file's
	res.NoProgram = noProgram.Load()
	rx, tx := q.Decoded(0), q.Decoded(1)
	res.DecodedRx, res.DecodedTx = rx.Written, tx.Written
	res.SummaryRx, res.SummaryTx = rx.Summary(), tx.Summary()
	if e := recErr.Load(); e != nil {
		res.RecordErr = *e
	} else if cerr != nil {
		return res, cerr
	}
	fmt.Fprintf(log, "capture tap: %s; %d bytes from the device (%d reads, %d of the bytes while no program had the link open), %d to the device (%d reads), unrecorded reads %d; written to %s\n",
		res.Why, res.ToHost, res.ReadsRx, res.NoProgram, res.ToDevice, res.ReadsTx, res.Unrecorded, o.Out)
	if res.RecordErr != nil {
		return res, res.RecordErr
	}
	return res, nil
}
