package driver

import (
	"bytes"
	"sync"
	"testing"
	"time"

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
		bw := newBoardWriter(g)
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
	bw := newBoardWriter(g)
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
