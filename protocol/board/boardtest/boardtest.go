// Package boardtest is the board codec's test doubles, after periph's i2ctest. Board is the streaming fake
// board the tests use: it sends frames and garbage, streams the robot's unasked reports, records and parses
// every byte the host writes, and hangs up; in memory it is the host's io.ReadWriteCloser with read
// deadlines (the shape of driver.Options.BoardIn and BoardOut, usable inside a testing/synctest bubble), and
// OpenPTY puts it behind a real pseudo-terminal for code that opens a device path. Playback scripts and checks
// every byte of a conversation; Record, around a real port (the sim's board, a robot's), writes down a
// conversation as the script Playback plays back. It is imported only by tests.
package boardtest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
)

// Op is one step of a conversation: the bytes the code under test must write (W), then the bytes the board
// answers (R). R becomes readable once W and every earlier op's W are written in full; an op with no W
// answers as soon as the ops before it are written (a board that talks first: IMU frames, a key press).
type Op struct {
	W, R []byte
}

// Frame is one encoded board frame (board.EncodeFrame); it panics on what the codec refuses, a script bug.
func Frame(fn byte, payload []byte) []byte {
	b, err := board.EncodeFrame(fn, payload)
	if err != nil {
		panic(fmt.Sprintf("boardtest.Frame(%#02x, % x): %v", fn, payload, err))
	}
	return b
}

// Frames concatenates frames (an Op's W or R of several frames).
func Frames(frames ...[]byte) []byte { return bytes.Join(frames, nil) }

// Playback plays a script of Ops. Every written byte is compared with the script; the first that differs, and
// any byte past the script's end, fails the test (T.Errorf, with the byte's offset in the whole write stream
// and in its op) and the Write returns an error. Close fails the test if the script was not played in full.
// Safe for one reader and one writer goroutine at a time.
type Playback struct {
	// T is failed on a mismatch (Errorf: safe from any goroutine); nil only returns the errors.
	T   testing.TB
	Ops []Op
	// Clock is the read deadline's clock (nil: clock.Real{}, virtual in a testing/synctest bubble).
	Clock clock.Full

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change a blocked Read waits for
	wOff     int           // bytes written, an offset into the concatenated W of all Ops
	rOff     int           // bytes read, an offset into the concatenated R of all Ops
	closed   bool
	err      error // the first mismatch; later writes fail with it
	deadline time.Time
}

// clock is p.Clock, or clock.Real{}.
func (p *Playback) clock() clock.Full {
	if p.Clock == nil {
		return clock.Real{}
	}
	return p.Clock
}

var (
	_ io.ReadWriteCloser                            = (*Playback)(nil)
	_ interface{ SetReadDeadline(time.Time) error } = (*Playback)(nil)
)

func (p *Playback) String() string { return "boardtest.Playback" }

// wantLen is the length of the concatenated W; rLimit the bytes of R readable after wOff bytes were written.
func (p *Playback) wantLen() int {
	n := 0
	for _, op := range p.Ops {
		n += len(op.W)
	}
	return n
}

func (p *Playback) rLimit() int {
	w, r := 0, 0
	for _, op := range p.Ops {
		if w += len(op.W); w > p.wOff {
			break
		}
		r += len(op.R)
	}
	return r
}

// where names the op holding write offset off and off's place in it.
func (p *Playback) where(off int) (op, at int) {
	for i, o := range p.Ops {
		if off < len(o.W) {
			return i, off
		}
		off -= len(o.W)
	}
	return len(p.Ops), off
}

func (p *Playback) fail(err error) error {
	if p.err == nil {
		p.err = err
		if p.T != nil {
			p.T.Errorf("%v", err)
		}
	}
	return err
}

func (p *Playback) notify() {
	if p.changed != nil {
		close(p.changed)
	}
	p.changed = make(chan struct{})
}

// Write checks b against the script.
func (p *Playback) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, os.ErrClosed
	}
	if p.err != nil {
		return 0, p.err
	}
	want := make([]byte, 0, p.wantLen())
	for _, op := range p.Ops {
		want = append(want, op.W...)
	}
	for i, c := range b {
		off := p.wOff
		if off >= len(want) {
			p.notify()
			return i, p.fail(fmt.Errorf("boardtest: write byte %d (%#02x) is past the script's %d bytes; this write: % x", off, c, len(want), b))
		}
		if c != want[off] {
			op, at := p.where(off)
			p.notify()
			return i, p.fail(fmt.Errorf("boardtest: write byte %d (op %d, byte %d of its %d): got %#02x, want %#02x; op %d wants % x, this write: % x",
				off, op, at, len(p.Ops[op].W), c, want[off], op, p.Ops[op].W, b))
		}
		p.wOff++
	}
	p.notify()
	return len(b), nil
}

// Read returns the script's answers once their ops' writes are complete. It blocks until there is one, the
// read deadline passes (os.ErrDeadlineExceeded) or Close (io.EOF).
func (p *Playback) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.closed {
			return 0, io.EOF
		}
		if lim := p.rLimit(); p.rOff < lim {
			all := make([]byte, 0, lim)
			for _, op := range p.Ops {
				all = append(all, op.R...)
			}
			n := copy(b, all[p.rOff:lim])
			p.rOff += n
			return n, nil
		}
		if !p.deadline.IsZero() && !p.clock().Now().Before(p.deadline) {
			return 0, os.ErrDeadlineExceeded
		}
		if p.changed == nil {
			p.changed = make(chan struct{})
		}
		ch := p.changed
		var timeout <-chan time.Time
		if !p.deadline.IsZero() {
			clk := p.clock()
			timeout = clk.After(p.deadline.Sub(clk.Now()))
		}
		p.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
		}
		p.mu.Lock()
	}
}

// SetReadDeadline makes a blocked and every later Read return os.ErrDeadlineExceeded from t on (zero: never),
// as an *os.File does.
func (p *Playback) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deadline = t
	p.notify()
	return nil
}

// Written is the number of bytes written that matched the script.
func (p *Playback) Written() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.wOff
}

// Close ends the conversation: blocked reads return io.EOF. It fails the test, and returns an error, if a
// write failed or the script was not played in full (a byte not written, an answer not read). Later calls
// return nil.
func (p *Playback) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.notify()
	if p.err != nil {
		return p.err
	}
	wl, rl := p.wantLen(), 0
	for _, op := range p.Ops {
		rl += len(op.R)
	}
	if p.wOff != wl || p.rOff != rl {
		op, at := p.where(p.wOff)
		return p.fail(fmt.Errorf("boardtest: script not played in full: wrote %d of %d bytes (stopped in op %d at its byte %d), read %d of %d",
			p.wOff, wl, op, at, p.rOff, rl))
	}
	return nil
}

// Recorder wraps a real board port and records the conversation as Ops that a Playback can play back: each
// write is appended to the current op's W, each read to its R, and a write after a read begins a new op.
// Writes and reads from two goroutines are ordered by when each call returned. Recorder never closes Port.
type Recorder struct {
	Port io.ReadWriter

	mu  sync.Mutex
	ops []Op
}

var _ io.ReadWriter = (*Recorder)(nil)

func (r *Recorder) Write(b []byte) (int, error) {
	n, err := r.Port.Write(b)
	if n > 0 {
		r.mu.Lock()
		if len(r.ops) == 0 || len(r.ops[len(r.ops)-1].R) > 0 {
			r.ops = append(r.ops, Op{})
		}
		op := &r.ops[len(r.ops)-1]
		op.W = append(op.W, b[:n]...)
		r.mu.Unlock()
	}
	return n, err
}

func (r *Recorder) Read(b []byte) (int, error) {
	n, err := r.Port.Read(b)
	if n > 0 {
		r.mu.Lock()
		if len(r.ops) == 0 {
			r.ops = append(r.ops, Op{})
		}
		op := &r.ops[len(r.ops)-1]
		op.R = append(op.R, b[:n]...)
		r.mu.Unlock()
	}
	return n, err
}

// Ops returns a copy of the conversation so far.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Op, len(r.ops))
	for i, op := range r.ops {
		out[i] = Op{W: bytes.Clone(op.W), R: bytes.Clone(op.R)}
	}
	return out
}
