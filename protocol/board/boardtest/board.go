package boardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/pty"
	"github.com/rosorin/rosorin/protocol/board"
)

// Board is the controller board as a stream, after periph's i2ctest: it sends what a test tells it to (Emit:
// frames built with protocol/board's encoders, or raw garbage; Stream: the robot's unasked IMU, battery and
// gamepad reports), keeps every byte the host wrote (HostBytes, Writes, Master), parses them into frames as the
// firmware does (Received, Wait) with the wheel speeds the board would now hold (the firmware keeps the last
// speed forever), and can hang up like a USB device that vanished (HangUp).
//
// New makes it an in-memory port: the Board itself is the host's io.ReadWriteCloser, with read deadlines (the
// shape of driver.Options.BoardIn and BoardOut and of the supervisor's port). OpenPTY puts it behind a real
// pseudo-terminal for code that opens a device path or needs a tty: the host opens Path (or uses TTY).
//
// Every wait in the in-memory Board is a channel or a timer, so it works inside a testing/synctest bubble when
// created there.
type Board struct {
	o Options

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every change a waiter waits for
	rx       []byte        // in memory: emitted, not yet read by the host
	eof      bool          // in memory: the board's stream ended (EOF)
	hung     bool
	closed   bool
	deadline time.Time // in memory: the host's read deadline
	wdl      time.Time // in memory: the host's write deadline (kept, never enforced: the Board never blocks)
	writes   [][]byte
	host     []byte
	parser   board.Parser
	got      []Received
	bad      []Received
	wheels   [4]float64
	corrupt  float64
	rng      *rand.Rand
	streams  Streams
	stream   bool // the stream goroutine runs

	// on a pty
	pty     *pty.PTY
	tty     *os.File
	wmu     sync.Mutex // serialises writes to the master
	ptyOnce sync.Once

	stop chan struct{}
	wg   sync.WaitGroup
}

// Options are a Board's hooks, fixed for its life.
type Options struct {
	// Check, if set, judges every frame the host writes (called with the Board's lock held: it must not call
	// the Board). A frame it refuses goes to Bad, not Received.
	Check func(board.Frame) error
	// OnWrite, if set, sees every host write as it happens, in order: in memory each Write call (before it is
	// recorded; an error fails that Write and nothing is recorded), on a pty each read of the master (the
	// error is ignored).
	OnWrite func(p []byte) error
	// OnClose, if set, is called once, when the Board is first closed.
	OnClose func()
	// Link is where OpenPTY publishes the device ("": ttyACM0 in a t.TempDir()). Unused by New.
	Link string
	// Clock times the streams, the deadlines and the waits (nil: clock.Real{}, virtual in a bubble).
	Clock clock.Full
}

// clk is o.Clock, or clock.Real{}.
func (o Options) clk() clock.Full {
	if o.Clock == nil {
		return clock.Real{}
	}
	return o.Clock
}

// Received is one frame the host wrote, as the board parsed it.
type Received struct {
	At     time.Time   // when it arrived: the Write call in memory, the master read's return on a pty
	Write  int         // the host write (in memory) or master read (pty) it arrived in, from 0
	Raw    []byte      // the frame's bytes
	Frame  board.Frame // function and payload
	Wheels [4]float64  // the wheel speeds (rps, by motor id) the board holds once it has obeyed this frame
	Err    error       // Check's verdict (frames in Bad only)
}

// IsStop reports whether r is the stop frame (all four motors at 0, board.StopFrame).
func (r Received) IsStop() bool { return board.IsStopFrame(r.Raw) }

// Stopped reports whether the board holds every wheel still after r.
func (r Received) Stopped() bool { return r.Wheels == [4]float64{} }

// Streams is what the board sends unasked, as the robot does; the zero value sends nothing. Every tick
// (board.IMUPeriod, 110 Hz) carries an IMU frame, the battery report when one is due and the gamepad report
// when one is due, in one write.
type Streams struct {
	IMU       bool          // an IMU frame every tick
	IMUValue  board.IMU     // what it says
	BatteryMV uint16        // the battery report's voltage
	BatteryHz float64       // battery reports per second (0: none)
	Pad       bool          // a gamepad is connected: a report every PadPeriod
	PadValue  board.Gamepad // what it says
}

// PadPeriod is the gamepad's report period while connected (about 20 Hz, board-protocol.md).
const PadPeriod = 50 * time.Millisecond

// streamWriteTimeout bounds one stream write on a pty: a stream never waits more than this for room (the
// host stopped reading); the write is dropped.
const streamWriteTimeout = time.Second

var (
	_ io.ReadWriteCloser                             = (*Board)(nil)
	_ interface{ SetReadDeadline(time.Time) error }  = (*Board)(nil)
	_ interface{ SetWriteDeadline(time.Time) error } = (*Board)(nil)
	_ io.ReadWriter                                  = (*MasterEnd)(nil)
)

// ErrHungUp is what Emit returns once the board hung up or was closed.
var ErrHungUp = errors.New("boardtest: the board hung up")

// New returns an in-memory board: the Board is the host's port.
func New(o Options) *Board {
	return &Board{o: o, changed: make(chan struct{}), stop: make(chan struct{}), rng: rand.New(rand.NewPCG(1, 2))}
}

func (b *Board) String() string {
	if b.pty != nil {
		return "boardtest.Board(" + b.o.Link + ")"
	}
	return "boardtest.Board"
}

func (b *Board) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Write is the host writing to the board (in memory): the bytes are recorded and parsed. It fails with
// os.ErrClosed after Close and syscall.EIO after HangUp, as a serial port does. It never blocks.
func (b *Board) Write(p []byte) (int, error) {
	if b.pty != nil {
		return 0, errors.New("boardtest: the host of a pty board writes to its device (Path, TTY)")
	}
	b.mu.Lock()
	closed, hung := b.closed, b.hung
	b.mu.Unlock()
	switch {
	case closed:
		return 0, os.ErrClosed
	case hung:
		return 0, syscall.EIO
	}
	if b.o.OnWrite != nil {
		if err := b.o.OnWrite(p); err != nil {
			return 0, err
		}
	}
	b.mu.Lock()
	b.received(b.o.clk().Now(), p)
	b.mu.Unlock()
	return len(p), nil
}

// received records and parses host bytes that arrived at at; b.mu is held.
func (b *Board) received(at time.Time, p []byte) {
	i := len(b.writes)
	b.writes = append(b.writes, bytes.Clone(p))
	b.host = append(b.host, p...)
	b.parser.Feed(p, func(f board.Frame) {
		raw, _ := f.Bytes()
		r := Received{At: at, Write: i, Raw: raw, Frame: board.Frame{Func: f.Func, Payload: bytes.Clone(f.Payload)}}
		if b.o.Check != nil {
			if r.Err = b.o.Check(r.Frame); r.Err != nil {
				b.bad = append(b.bad, r)
				return
			}
		}
		if f.Func == board.FuncMotor {
			if c, err := board.DecodeMotor(f.Payload); err == nil {
				b.wheels = Obey(b.wheels, c)
			}
		}
		r.Wheels = b.wheels
		b.got = append(b.got, r)
	})
	b.notify()
}

// Obey returns the wheel speeds a board holding w holds after the motor command c, as the firmware obeys it:
// set commands change the wheels they name (ids 0..3; the firmware ignores others here), stop commands zero
// theirs, and every other wheel keeps its speed (there is no watchdog).
func Obey(w [4]float64, c board.MotorCommand) [4]float64 {
	switch c.Kind {
	case board.MotorSetOne, board.MotorSetMany:
		for _, s := range c.Speeds {
			if int(s.ID) < len(w) {
				w[s.ID] = float64(s.RPS)
			}
		}
	case board.MotorStopOne, board.MotorStopMask:
		for i := range w {
			if c.Mask&(1<<i) != 0 {
				w[i] = 0
			}
		}
	}
	return w
}

// Read is the host reading what the board emitted (in memory). It blocks until there are bytes, the read
// deadline passes (os.ErrDeadlineExceeded), the stream ends or the board hangs up (io.EOF; a hang-up drops
// what was not read yet), or Close (os.ErrClosed).
func (b *Board) Read(p []byte) (int, error) {
	if b.pty != nil {
		return 0, errors.New("boardtest: the host of a pty board reads its device (Path, TTY)")
	}
	if len(p) == 0 {
		return 0, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		switch {
		case b.closed:
			return 0, os.ErrClosed
		case b.hung:
			return 0, io.EOF
		case len(b.rx) > 0:
			n := copy(p, b.rx)
			b.rx = b.rx[n:]
			return n, nil
		case b.eof:
			return 0, io.EOF
		case !b.deadline.IsZero() && !b.o.clk().Now().Before(b.deadline):
			return 0, os.ErrDeadlineExceeded
		}
		ch := b.changed
		var timeout <-chan time.Time
		if !b.deadline.IsZero() {
			clk := b.o.clk()
			timeout = clk.After(b.deadline.Sub(clk.Now()))
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
		}
		b.mu.Lock()
	}
}

// SetReadDeadline makes a blocked and every later Read return os.ErrDeadlineExceeded from t on (zero:
// never), as an *os.File does.
func (b *Board) SetReadDeadline(t time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deadline = t
	b.notify()
	return nil
}

// SetWriteDeadline is accepted and kept: an in-memory Write never blocks.
func (b *Board) SetWriteDeadline(t time.Time) error {
	b.mu.Lock()
	b.wdl = t
	b.mu.Unlock()
	return nil
}

// Emit sends bytes to the host: encoded frames (board.EncodeIMU, EncodeBattery, Frame, ...) or raw garbage,
// concatenated, corrupted as Corrupt says. In memory it never blocks; on a pty it waits for room as a device's
// own buffer does. It fails with ErrHungUp after HangUp or Close, and in memory after EOF.
func (b *Board) Emit(p ...[]byte) error {
	return b.emit(bytes.Join(p, nil), time.Time{})
}

func (b *Board) emit(p []byte, deadline time.Time) error {
	b.mu.Lock()
	if b.corrupt > 0 {
		p = bytes.Clone(p)
		for i := range p {
			if b.rng.Float64() < b.corrupt {
				p[i] ^= byte(1 + b.rng.IntN(255))
			}
		}
	}
	if b.closed || b.hung || b.eof {
		b.mu.Unlock()
		return ErrHungUp
	}
	if b.pty == nil {
		b.rx = append(b.rx, p...)
		b.notify()
		b.mu.Unlock()
		return nil
	}
	b.mu.Unlock()
	b.wmu.Lock()
	defer b.wmu.Unlock()
	_ = b.pty.Master.SetWriteDeadline(deadline)
	_, err := b.pty.Master.Write(p)
	return err
}

// Corrupt makes every later emitted byte flip to a random other value with probability p (a noisy line; the
// same bytes every run: the generator has a fixed seed).
func (b *Board) Corrupt(p float64) {
	b.mu.Lock()
	b.corrupt = p
	b.mu.Unlock()
}

// EOF ends the board's stream: once the host has read what was emitted, its Read returns io.EOF; its writes
// still land (a pipe whose write end closed). On a pty, which has no end of file, it is HangUp.
func (b *Board) EOF() {
	if b.pty != nil {
		b.HangUp()
		return
	}
	b.mu.Lock()
	b.eof = true
	b.notify()
	b.mu.Unlock()
}

// HangUp is the board vanishing (a USB drop): in memory the host's reads return io.EOF at once and its writes
// fail with syscall.EIO; on a pty the device path is removed and the pty closed, so the host's tty hangs up.
// Received and the host's bytes stay readable. Idempotent.
func (b *Board) HangUp() {
	b.mu.Lock()
	b.hung = true
	b.notify()
	b.mu.Unlock()
	b.hangUpPTY()
}

func (b *Board) hangUpPTY() {
	if b.pty == nil {
		return
	}
	b.ptyOnce.Do(func() {
		_ = b.tty.Close()
		_ = b.pty.Close()
	})
}

// Close closes the board: in memory it is the host closing its port (later reads and writes fail with
// os.ErrClosed); on a pty it hangs up. It stops the streams, waits for the Board's goroutines, and calls
// Options.OnClose the first time. Idempotent; always nil.
func (b *Board) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.notify()
	b.mu.Unlock()
	close(b.stop)
	if b.pty != nil {
		_ = b.pty.Master.SetWriteDeadline(b.o.clk().Now()) // a stream write waiting for room gives up
		b.hangUpPTY()
	}
	b.wg.Wait()
	if b.o.OnClose != nil {
		b.o.OnClose()
	}
	return nil
}

// Stream starts sending s (see Streams) from a goroutine of the Board's, until Close; SetStreams changes what
// it sends. A second call only replaces s.
func (b *Board) Stream(s Streams) {
	b.mu.Lock()
	b.streams = s
	start := !b.stream && !b.closed
	b.stream = true
	b.mu.Unlock()
	if start {
		b.wg.Add(1)
		go b.streamLoop()
	}
}

// SetStreams changes the streams under the Board's lock (fn must not call the Board).
func (b *Board) SetStreams(fn func(*Streams)) {
	b.mu.Lock()
	fn(&b.streams)
	b.mu.Unlock()
}

// Streams returns what the board streams now.
func (b *Board) Streams() Streams {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.streams
}

func (b *Board) streamLoop() {
	defer b.wg.Done()
	tk := b.o.clk().NewTicker(board.IMUPeriod)
	defer tk.Stop()
	var lastBat, lastPad time.Time
	for {
		select {
		case <-b.stop:
			return
		case now := <-tk.C():
			s := b.Streams()
			var out []byte
			if s.IMU {
				out = append(out, board.EncodeIMU(s.IMUValue)...)
			}
			if s.BatteryHz > 0 && now.Sub(lastBat) >= time.Duration(float64(time.Second)/s.BatteryHz) {
				lastBat = now
				out = append(out, board.EncodeBattery(board.Battery{MilliVolts: s.BatteryMV})...)
			}
			if s.Pad && now.Sub(lastPad) >= PadPeriod {
				lastPad = now
				out = append(out, board.EncodeGamepad(s.PadValue)...)
			}
			if len(out) > 0 {
				_ = b.emit(out, b.o.clk().Now().Add(streamWriteTimeout))
			}
		}
	}
}

// Received returns the frames the host wrote that passed Check, in order.
func (b *Board) Received() []Received { return b.Since(0) }

// Since returns the received frames from index from on.
func (b *Board) Since(from int) []Received {
	b.mu.Lock()
	defer b.mu.Unlock()
	if from >= len(b.got) {
		return nil
	}
	return append([]Received(nil), b.got[max(from, 0):]...)
}

// Count is the number of received frames.
func (b *Board) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}

// Bad returns the frames Check refused, with its verdict in Err.
func (b *Board) Bad() []Received {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Received(nil), b.bad...)
}

// Wheels is what the board holds now: the wheel speeds (rps, by motor id) of the frames received so far.
func (b *Board) Wheels() [4]float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wheels
}

// Writes returns the host's writes as they arrived: each Write call in memory, each master read on a pty.
func (b *Board) Writes() [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([][]byte, len(b.writes))
	for i, w := range b.writes {
		out[i] = bytes.Clone(w)
	}
	return out
}

// HostBytes returns every byte the host wrote, in order.
func (b *Board) HostBytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.host)
}

// Wait returns the first received frame from index from on that satisfies ok, and its index, waiting up to
// timeout for it; on timeout, ok false and the number of frames received. ok runs without the Board's lock.
func (b *Board) Wait(from int, timeout time.Duration, ok func(Received) bool) (Received, int, bool) {
	expire := b.o.clk().After(timeout)
	for expired := false; ; {
		b.mu.Lock()
		var fresh []Received
		if from < len(b.got) {
			fresh = append(fresh, b.got[max(from, 0):]...)
		}
		n, ch := len(b.got), b.changed
		b.mu.Unlock()
		for i, r := range fresh {
			if ok(r) {
				return r, max(from, 0) + i, true
			}
		}
		from = n
		if expired {
			return Received{}, n, false
		}
		select {
		case <-ch:
		case <-expire:
			expired = true // one last look: a frame may have come with the timer
		}
	}
}

// Master returns the board's end of the line as raw bytes, what a pty master is: Write emits (Emit), Read
// returns the bytes the host wrote, from the first, blocking until there are more, the deadline passes
// (os.ErrDeadlineExceeded), or the board hangs up or closes (io.EOF once all are read). For byte-level tests
// (a relay, a recorder); each call returns a new end, reading from the host's first byte.
func (b *Board) Master() *MasterEnd { return &MasterEnd{b: b} }

// MasterEnd is the board's end of the line as raw bytes (Board.Master).
type MasterEnd struct {
	b        *Board
	off      int
	deadline time.Time // guarded by b.mu
}

// Write emits p (Board.Emit).
func (r *MasterEnd) Write(p []byte) (int, error) {
	if err := r.b.Emit(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *MasterEnd) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		switch {
		case r.off < len(b.host):
			n := copy(p, b.host[r.off:])
			r.off += n
			return n, nil
		case b.hung || b.closed:
			return 0, io.EOF
		case !r.deadline.IsZero() && !b.o.clk().Now().Before(r.deadline):
			return 0, os.ErrDeadlineExceeded
		}
		ch := b.changed
		var timeout <-chan time.Time
		if !r.deadline.IsZero() {
			clk := b.o.clk()
			timeout = clk.After(r.deadline.Sub(clk.Now()))
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
		}
		b.mu.Lock()
	}
}

// SetReadDeadline makes a blocked and every later Read return os.ErrDeadlineExceeded from t on (zero: never).
func (r *MasterEnd) SetReadDeadline(t time.Time) error {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	r.deadline = t
	r.b.notify()
	return nil
}

// Path is the device path of a pty board (where the host opens it); "" in memory.
func (b *Board) Path() string {
	if b.pty == nil {
		return ""
	}
	return b.pty.Link
}

// SlaveName is the pty's own name (/dev/pts/N); "" in memory.
func (b *Board) SlaveName() string {
	if b.pty == nil {
		return ""
	}
	return b.pty.SlaveName
}

// TTY is the Board's own open descriptor of its pty's slave (raw, at board.Baud, in Go's poller: read
// deadlines work), for a host in the test's process (driver.Options.BoardIn, BoardOut) or a test that locks the
// device. The Board closes it when it hangs up. nil in memory.
func (b *Board) TTY() *os.File { return b.tty }

func (b *Board) ptyReadLoop() {
	defer b.wg.Done()
	buf := make([]byte, 64<<10)
	for {
		n, err := b.pty.Master.Read(buf)
		at := b.o.clk().Now()
		if n > 0 {
			if b.o.OnWrite != nil {
				_ = b.o.OnWrite(buf[:n])
			}
			b.mu.Lock()
			b.received(at, buf[:n])
			b.mu.Unlock()
		}
		if err != nil {
			b.mu.Lock()
			done := b.hung || b.closed
			b.mu.Unlock()
			if !done && errors.Is(err, syscall.EIO) { // no slave open at this instant
				_ = b.o.clk().Sleep(context.Background(), 2*time.Millisecond)
				continue
			}
			return
		}
	}
}

// ptyError is what OpenPTY failed on.
func ptyError(what string, err error) error { return fmt.Errorf("boardtest: %s: %w", what, err) }
