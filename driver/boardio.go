package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
)

// boardBatch is what one read of the board's bytes produced: decoded values, in order, stamped with the
// read's return time, and the parser's counters after it.
type boardBatch struct {
	at        time.Time
	msgs      []any       // board.IMU, board.Battery, board.Gamepad, board.Key, ...
	imuAt     []time.Time // the stamp of each board.IMU in msgs, in order (board.IMUStamper: strictly increasing)
	frames    int         // valid frames, decoded or not (any valid frame proves the link alive)
	malformed uint64
	stats     board.Stats
}

// readBoard reads in until it fails, parsing with a board.Parser and handing each read's frames to the control
// loop. It owns the parser. It ends on a read error or EOF (reported on errc) or when ctx ends.
//
// The send to the loop blocks (bounded by ctx): a gamepad trip must not be lost, and while the loop is busy the
// bytes wait in the pipe or the tty buffer instead.
func readBoard(ctx context.Context, in io.Reader, clk clock.Timers, out chan<- boardBatch, errc chan<- error) {
	var p board.Parser
	var malformed uint64
	var imuStamps board.IMUStamper // one read can hold several IMU frames: each gets its own stamp
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			b := boardBatch{at: clk.Now()}
			p.Feed(buf[:n], func(f board.Frame) {
				b.frames++
				v, derr := board.Decode(f)
				switch {
				case derr == nil:
					b.msgs = append(b.msgs, v)
				case errors.Is(derr, board.ErrUnknownFunc):
					// A valid frame of a function this driver does not decode (servo replies, SBUS): not an error.
				default:
					malformed++
				}
			})
			b.malformed, b.stats = malformed, p.Stats()
			imus := 0
			for _, m := range b.msgs {
				if _, ok := m.(board.IMU); ok {
					imus++
				}
			}
			b.imuAt = imuStamps.Stamps(nil, b.at, imus)
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if err == io.EOF {
				err = errors.New("end of file")
			}
			select {
			case errc <- fmt.Errorf("board input ended (%v): the board is gone (USB drop?); the supervisor must reopen the port", err):
			case <-ctx.Done():
			}
			return
		}
	}
}

// unblockReader makes a blocked Read on in return, if in supports read deadlines (pipes and ptys as *os.File
// do). Run never closes BoardIn: whoever opened it closes it.
func unblockReader(in io.Reader) bool {
	type deadliner interface{ SetReadDeadline(time.Time) error }
	if d, ok := in.(deadliner); ok {
		return d.SetReadDeadline(time.Unix(1, 0)) == nil
	}
	return false
}

// boardWriter writes frames to the port from its own goroutine, so that a port whose write blocks (a hung USB
// device) never stops the control loop: the loop keeps publishing the state record that says so. It holds at
// most one pending frame and the newest wins (every motor frame sets all four wheels, so an older pending one
// is obsolete; a stop frame replaces a pending motor frame, never the reverse order).
//
// Every frame handed over gets a sequence number (send returns it; 1 is the first). writtenSeq is the number
// of the last frame the port accepted, and wrote() gives a channel closed at the next completed write: the
// latch persister (persist.go) writes the e-stop file only once the stop frame, or a frame queued after it,
// has reached the port.
//
// Times are read on the writer's own monotonic source (mono: time since the writer started, from Go's
// monotonic clock), never the wall clock: a wall clock step (NTP, a manual date) must neither fake a hung
// port nor hide one.
type boardWriter struct {
	w       io.Writer
	clk     clock.Full // its latencies and the stop wait; the persister's too
	ch      chan queuedFrame
	errc    chan error
	quit    chan struct{}
	done    chan struct{}
	stopped sync.Once
	mono    func() time.Duration // monotonic time since the writer started; replaced by tests

	busySince  atomic.Int64  // mono()+1 in nanoseconds when the current write began; 0 when idle
	queued     atomic.Uint64 // frames handed over by send (also the last sequence number given)
	replaced   atomic.Uint64 // of which dropped for a newer one
	written    atomic.Uint64 // of which written
	writtenSeq atomic.Uint64 // sequence number of the last frame written (0: none yet)
	lastWrite  atomic.Int64  // mono()+1 in nanoseconds at the last completed write; 0: none yet

	wmu   sync.Mutex
	wnext chan struct{} // closed at the next completed write; nil while nobody waits
}

// queuedFrame is a frame and its sequence number.
type queuedFrame struct {
	f   []byte
	seq uint64
}

func newBoardWriter(w io.Writer, clk clock.Full) *boardWriter {
	start := clk.Now()
	bw := &boardWriter{w: w, clk: clk, ch: make(chan queuedFrame, 1), errc: make(chan error, 1),
		quit: make(chan struct{}), done: make(chan struct{}),
		mono: func() time.Duration { return clk.Now().Sub(start) }}
	go bw.run()
	return bw
}

func (bw *boardWriter) run() {
	defer close(bw.done)
	for {
		// quit first, before every write: when both are ready a select picks at random, and a motor frame
		// written after stop() gave up waiting would follow the shutdown's final stop frames on the port.
		if bw.quitting() {
			return
		}
		select {
		case <-bw.quit:
			return
		case q := <-bw.ch:
			if bw.quitting() {
				bw.replaced.Add(1) // dropped, never written: idle() still balances
				return
			}
			bw.busySince.Store(int64(bw.mono()) + 1)
			_, err := bw.w.Write(q.f)
			bw.busySince.Store(0)
			if err != nil {
				bw.errc <- fmt.Errorf("write to the board: %w; the port is gone, the supervisor must reopen it", err)
				return
			}
			bw.written.Add(1)
			bw.lastWrite.Store(int64(bw.mono()) + 1)
			bw.writtenSeq.Store(q.seq)
			bw.wmu.Lock()
			if bw.wnext != nil {
				close(bw.wnext)
				bw.wnext = nil
			}
			bw.wmu.Unlock()
		}
	}
}

// wrote returns the sequence number of the last frame written and a channel closed when the next write
// completes (or never, once the writer has ended: select on done as well). Any goroutine may call it.
func (bw *boardWriter) wrote() (uint64, <-chan struct{}) {
	bw.wmu.Lock()
	defer bw.wmu.Unlock()
	if bw.wnext == nil {
		bw.wnext = make(chan struct{})
	}
	// Read under wmu, after the channel: a write that completes after this read closes this channel.
	return bw.writtenSeq.Load(), bw.wnext
}

func (bw *boardWriter) quitting() bool {
	select {
	case <-bw.quit:
		return true
	default:
		return false
	}
}

// send queues f, replacing a frame still pending, and returns its sequence number. Called only by the control
// loop (single producer).
func (bw *boardWriter) send(f []byte) uint64 {
	q := queuedFrame{f: f, seq: bw.queued.Add(1)}
	select {
	case bw.ch <- q:
		return q.seq
	default:
	}
	select {
	case <-bw.ch:
		bw.replaced.Add(1)
	default:
	}
	bw.ch <- q // the slot is free: only this goroutine fills it
	return q.seq
}

// idle reports whether no frame is pending or being written.
func (bw *boardWriter) idle() bool {
	return bw.written.Load()+bw.replaced.Load() == bw.queued.Load()
}

// busyFor returns how long the current write has been blocked (0 when idle), on the writer's monotonic
// source. The argument is not used (the caller's reading of the wall clock is what a clock step would bend);
// it stays for the state record's call.
func (bw *boardWriter) busyFor(time.Time) time.Duration {
	s := bw.busySince.Load()
	if s == 0 {
		return 0
	}
	return max(0, time.Duration(int64(bw.mono())+1-s))
}

// stop ends the writer goroutine, waiting up to wait for a write in progress. It reports whether the goroutine
// ended (false: a write is stuck in the kernel; it ends when the port's owner closes the port). A frame still
// pending is dropped, never written: the caller writes the final stop frames itself, and nothing of the
// writer's may follow them, even when the stuck write returns later. Called once the loop (the only sender)
// has ended.
func (bw *boardWriter) stop(wait time.Duration) bool {
	bw.stopped.Do(func() { close(bw.quit) })
	select {
	case <-bw.ch:
		bw.replaced.Add(1)
	default:
	}
	select {
	case <-bw.done:
		return true
	case <-bw.clk.After(wait):
		return false
	}
}

// writeStopNow writes the stop frame synchronously (start-up and shutdown paths).
func writeStopNow(w io.Writer) error {
	if _, err := w.Write(board.StopFrame()); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("write stop frame: port already closed: %w", err)
		}
		return fmt.Errorf("write stop frame: %w", err)
	}
	return nil
}
