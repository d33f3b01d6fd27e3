package driver

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
)

// gateWriter records every write; the first one blocks until release (a USB write stuck in the kernel). A
// write is recorded when it begins: a tty queues a write's bytes in order, so a later write from anyone (the
// final stop frame) reaches the device after the stuck one, never before.
type gateWriter struct {
	mu      sync.Mutex
	writes  [][]byte
	entered chan struct{} // closed when the first write has begun
	release chan struct{}
	first   sync.Once
}

func newGateWriter() *gateWriter {
	return &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (g *gateWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.writes = append(g.writes, append([]byte(nil), p...))
	g.mu.Unlock()
	blocked := false
	g.first.Do(func() { blocked = true })
	if blocked {
		close(g.entered)
		<-g.release
	}
	return len(p), nil
}

func (g *gateWriter) snapshot() [][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([][]byte(nil), g.writes...)
}

// TestBoardWriterNoFrameAfterTimedOutStop: a motor frame's write is stuck; a newer motor frame is pending; the
// shutdown's stop() times out and the final stop frame is written to the port. When the stuck write
// completes, the writer goroutine must end without writing the pending motor frame: nothing may follow the
// final stop frame. Repeated, because before the fix the goroutine picked quit or the pending frame at random
// (Go's select), so one run passed half the time.
func TestBoardWriterNoFrameAfterTimedOutStop(t *testing.T) {
	stuck, err := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := board.EncodeWheelRPS([4]float64{2, 2, -2, -2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		g := newGateWriter()
		bw := newBoardWriter(g, clock.Real{})
		bw.send(stuck)
		<-g.entered
		bw.send(pending)
		if bw.stop(5 * time.Millisecond) {
			t.Fatal("stop reported the writer ended while its write was still blocked")
		}
		// Run's shutdown writes the final stop frame itself, to the same port.
		if _, err := g.Write(board.StopFrame()); err != nil {
			t.Fatal(err)
		}
		close(g.release)
		select {
		case <-bw.done:
		case <-time.After(2 * time.Second):
			t.Fatal("writer goroutine did not end after its stuck write returned")
		}
		w := g.snapshot()
		last := w[len(w)-1]
		if !board.IsStopFrame(last) {
			t.Fatalf("run %d: the last frame on the port is % x, after the final stop frame; writes %d", i, last, len(w))
		}
		for _, f := range w {
			if bytes.Equal(f, pending) {
				t.Fatalf("run %d: the pending motor frame was written after stop()", i)
			}
		}
		if !bw.idle() {
			t.Fatalf("run %d: writer not idle after stop: queued %d written %d replaced %d", i,
				bw.queued.Load(), bw.written.Load(), bw.replaced.Load())
		}
	}
}

// TestBoardWriterStopWaitsForAWriteInProgress: a write that completes within the wait is waited for, and a
// pending frame behind it is dropped, not written.
func TestBoardWriterStopWaitsForAWriteInProgress(t *testing.T) {
	f1, _ := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	f2, _ := board.EncodeWheelRPS([4]float64{2, 2, -2, -2})
	g := newGateWriter()
	bw := newBoardWriter(g, clock.Real{})
	bw.send(f1)
	<-g.entered
	bw.send(f2)
	go func() { time.Sleep(20 * time.Millisecond); close(g.release) }()
	if !bw.stop(2 * time.Second) {
		t.Fatal("stop timed out although the write completed")
	}
	if w := g.snapshot(); len(w) != 1 || !bytes.Equal(w[0], f1) {
		t.Fatalf("writes after stop: %d, want only the one in progress", len(w))
	}
}

// TestBoardWriterSequence: send numbers frames from 1; wrote reports the last one written and its channel
// closes at the next write; a frame replaced while pending is never reported, the newer one is.
func TestBoardWriterSequence(t *testing.T) {
	f1, _ := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	g := newGateWriter()
	bw := newBoardWriter(g, clock.Real{})
	defer func() { bw.stop(time.Second) }()
	if seq, _ := bw.wrote(); seq != 0 {
		t.Fatalf("written seq %d before any write", seq)
	}
	s1 := bw.send(f1)
	<-g.entered
	seq, next := bw.wrote()
	if s1 != 1 || seq != 0 {
		t.Fatalf("first frame seq %d, written %d while its write is blocked", s1, seq)
	}
	s2 := bw.send(board.StopFrame()) // pending behind the blocked write
	s3 := bw.send(board.StopFrame()) // replaces it
	if s2 != 2 || s3 != 3 {
		t.Fatalf("seqs %d %d", s2, s3)
	}
	select {
	case <-next:
		t.Fatal("write notification before the write completed")
	default:
	}
	close(g.release)
	<-next
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		if seq, _ := bw.wrote(); seq == s3 {
			break
		}
		if time.Now().After(end) {
			seq, _ := bw.wrote()
			t.Fatalf("written seq %d, want %d (the newest frame)", seq, s3)
		}
	}
	if bw.replaced.Load() != 1 || bw.written.Load() != 2 {
		t.Fatalf("replaced %d written %d", bw.replaced.Load(), bw.written.Load())
	}
}

// TestBoardWriterBusyIsMonotonic: how long a write has been blocked comes from the writer's monotonic source,
// not from the wall clock the caller passes: a wall clock step of an hour neither fakes a hung port nor hides
// one.
func TestBoardWriterBusyIsMonotonic(t *testing.T) {
	f1, _ := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	g := newGateWriter()
	var mono atomic.Int64
	mono.Store(int64(5 * time.Second))
	bw := &boardWriter{w: g, clk: clock.Real{}, ch: make(chan queuedFrame, 1), errc: make(chan error, 1),
		quit: make(chan struct{}), done: make(chan struct{}),
		mono: func() time.Duration { return time.Duration(mono.Load()) }}
	go bw.run()
	defer func() { close(g.release); bw.stop(time.Second) }()
	if d := bw.busyFor(time.Now()); d != 0 {
		t.Fatalf("idle writer busy for %v", d)
	}
	bw.send(f1)
	<-g.entered
	mono.Add(int64(200 * time.Millisecond))
	for _, wall := range []time.Time{time.Now(), time.Now().Add(time.Hour), time.Now().Add(-time.Hour), time.Now().Round(0).Add(time.Hour)} {
		if d := bw.busyFor(wall); d != 200*time.Millisecond {
			t.Fatalf("busy for %v with the wall clock at %v, want 200ms", d, wall)
		}
	}
}
