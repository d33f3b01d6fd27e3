//go:build linux

package supervisor

// In-memory fakes of the supervisor's operating system (osys, sys.go) for the virtual-time tests
// (virtual_test.go): a board port that can be unplugged and plugged back, children that beat, hang, crash,
// ignore SIGINT or die on SIGKILL as scripted, and a heartbeat pipe with read deadlines. Every wait in them is
// a channel or a timer, so inside a testing/synctest bubble time moves only when the whole bubble is waiting
// and every timestamp is exact.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// vevent is one thing the fakes saw, at its virtual time.
type vevent struct {
	at   time.Time
	what string // "start driver 2", "signal driver 2 SIGKILL", "exit driver 2", "stop x2", "open", ...
}

// script is how a fake child behaves.
type script struct {
	beat      time.Duration // heartbeat period (0: no heartbeats at all)
	beatFor   time.Duration // stop beating (hang) this long after the start; 0: never
	exitAfter time.Duration // exit by itself (exitCode) this long after the start; 0: never
	exitCode  int
	finalAt   time.Duration // write the final word (stopping) this long after the start, then hang; 0: never
	ignoreInt bool          // SIGINT and SIGTERM do nothing (only SIGKILL ends it)
	latch     string        // the e-stop latch its final word reports
}

type fakeSys struct {
	mu      sync.Mutex
	t0      time.Time
	present bool
	port    *boardtest.Board
	opens   int // successful opens
	tries   int // openBoard calls
	pid     int
	events  []vevent
	drivers []*fakeChild
	readers []*fakeChild
	// failStarts makes that many driver starts fail (fork refused: out of memory, out of pids).
	failStarts int
	// driverScript and readerScript give each new child its behaviour (n counts from 1).
	driverScript func(n int) script
	readerScript func(n int) script
}

var _ osys = (*fakeSys)(nil)

func newFakeSys() *fakeSys {
	return &fakeSys{t0: time.Now(), present: true, pid: 100,
		driverScript: func(int) script { return script{beat: 20 * time.Millisecond} },
		readerScript: func(int) script { return script{} }}
}

func (f *fakeSys) record(format string, a ...any) {
	f.mu.Lock()
	f.events = append(f.events, vevent{time.Now(), fmt.Sprintf(format, a...)})
	f.mu.Unlock()
}

// since is the virtual time of e from the bubble's start.
func (f *fakeSys) since(t time.Time) time.Duration { return t.Sub(f.t0) }

// find returns the events whose text is what, in order.
func (f *fakeSys) find(what string) []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Duration
	for _, e := range f.events {
		if e.what == what {
			out = append(out, f.since(e.at))
		}
	}
	return out
}

func (f *fakeSys) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b bytes.Buffer
	for _, e := range f.events {
		fmt.Fprintf(&b, "%8v %s\n", f.since(e.at), e.what)
	}
	return b.String()
}

func (f *fakeSys) openBoard(string) (boardPort, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if !f.present {
		return nil, syscall.ENOENT
	}
	f.opens++
	f.port = f.newPort()
	f.events = append(f.events, vevent{time.Now(), "open"})
	return f.port, nil
}

// unplug makes the device vanish: the open port's reads end, its writes fail, opens fail.
func (f *fakeSys) unplug() {
	f.mu.Lock()
	f.present = false
	p := f.port
	f.events = append(f.events, vevent{time.Now(), "unplug"})
	f.mu.Unlock()
	if p != nil {
		p.HangUp()
	}
}

// plug brings the device back: the next openBoard succeeds.
func (f *fakeSys) plug() {
	f.mu.Lock()
	f.present = true
	f.events = append(f.events, vevent{time.Now(), "plug"})
	f.mu.Unlock()
}

func (f *fakeSys) newChild(name string, n int, s script, env []string) *fakeChild {
	f.mu.Lock()
	f.pid++
	c := &fakeChild{sys: f, name: fmt.Sprintf("%s %d", name, n), pid: f.pid, s: s, env: env,
		sigs: make(chan syscall.Signal, 8), exited: make(chan struct{})}
	f.events = append(f.events, vevent{time.Now(), "start " + c.name})
	f.mu.Unlock()
	return c
}

func (f *fakeSys) startDriver(_, env []string, _ boardPort, _ bool, _ syscall.Signal) (driverIO, error) {
	f.mu.Lock()
	n := len(f.drivers) + 1
	if f.failStarts > 0 {
		f.failStarts--
		f.events = append(f.events, vevent{time.Now(), "start driver failed"})
		f.mu.Unlock()
		return driverIO{}, syscall.EAGAIN
	}
	f.mu.Unlock()
	c := f.newChild("driver", n, f.driverScript(n), env)
	c.hb = newFakePipe()
	f.mu.Lock()
	f.drivers = append(f.drivers, c)
	f.mu.Unlock()
	go c.run()
	return driverIO{p: c, pid: c.pid, board: nopFeed{}, heartbeat: c.hb}, nil
}

func (f *fakeSys) startReader(_, env []string) (process, int, error) {
	f.mu.Lock()
	n := len(f.readers) + 1
	f.mu.Unlock()
	c := f.newChild("reader", n, f.readerScript(n), env)
	f.mu.Lock()
	f.readers = append(f.readers, c)
	f.mu.Unlock()
	go c.run()
	return c, c.pid, nil
}

func (f *fakeSys) close() { f.record("close") }

func (f *fakeSys) driver(n int) *fakeChild {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n > len(f.drivers) {
		return nil
	}
	return f.drivers[n-1]
}

type nopFeed struct{}

func (nopFeed) tryWrite([]byte) error { return nil }
func (nopFeed) Close() error          { return nil }

// newPort is one open of the board, boardtest's in-memory board: it sends nothing, so reads block until the
// device vanishes (unplug: io.EOF, and writes fail with EIO) or the port is closed; writes are recorded as
// events ("stop x2" for the crash path's double stop frame, "stop x1", "frame"), and so is the close.
func (f *fakeSys) newPort() *boardtest.Board {
	stop := board.StopFrame()
	return boardtest.New(boardtest.Options{
		OnWrite: func(b []byte) error {
			switch {
			case bytes.Equal(b, stop):
				f.record("stop x1")
			case bytes.Equal(b, append(append([]byte(nil), stop...), stop...)):
				f.record("stop x2")
			default:
				f.record("frame")
			}
			return nil
		},
		OnClose: func() { f.record("close port") },
	})
}

// fakeChild is a scripted child process.
type fakeChild struct {
	sys    *fakeSys
	name   string
	pid    int
	s      script
	env    []string
	hb     *fakePipe // driver only
	sigs   chan syscall.Signal
	exited chan struct{}
	ws     syscall.WaitStatus

	mu       sync.Mutex
	released bool
	done     bool
	lastBeat time.Time
}

var _ process = (*fakeChild)(nil)

func (c *fakeChild) signal(sig syscall.Signal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		return errReaped
	}
	c.sys.record("signal %s %s", c.name, unix.SignalName(sig))
	if !c.done {
		c.sigs <- sig
	}
	return nil
}

func (c *fakeChild) wait() (syscall.WaitStatus, error) {
	<-c.exited
	return c.ws, nil
}

func (c *fakeChild) release() {
	c.mu.Lock()
	c.released = true
	c.mu.Unlock()
}

// startLatched is the latch reason the supervisor started c with ("" for none).
func (c *fakeChild) startLatched() string {
	for _, e := range c.env {
		if v, ok := strings.CutPrefix(e, childproc.StartLatchedEnv+"="); ok {
			return v
		}
	}
	return ""
}

func (c *fakeChild) beatOnce() {
	if c.hb == nil {
		return
	}
	c.hb.write([]byte{heartbeat.Tick})
	c.mu.Lock()
	c.lastBeat = time.Now()
	c.mu.Unlock()
}

func (c *fakeChild) last() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastBeat
}

func (c *fakeChild) run() {
	var tick <-chan time.Time
	if c.s.beat > 0 {
		c.beatOnce()
		tk := time.NewTicker(c.s.beat)
		defer tk.Stop()
		tick = tk.C
	}
	after := func(d time.Duration) <-chan time.Time {
		if d <= 0 {
			return nil
		}
		return time.After(d)
	}
	hang, exit, final := after(c.s.beatFor), after(c.s.exitAfter), after(c.s.finalAt)
	for {
		select {
		case <-tick:
			c.beatOnce()
		case <-hang:
			tick = nil
		case <-final:
			tick = nil
			if c.hb != nil {
				c.hb.write(heartbeat.FinalWord(c.s.latch))
			}
		case <-exit:
			c.end(syscall.WaitStatus(c.s.exitCode<<8), fmt.Sprintf("exit %s status %d", c.name, c.s.exitCode))
			return
		case sig := <-c.sigs:
			switch {
			case sig == syscall.SIGKILL:
				c.end(syscall.WaitStatus(syscall.SIGKILL), "exit "+c.name+" killed")
				return
			case (sig == syscall.SIGINT || sig == syscall.SIGTERM) && !c.s.ignoreInt:
				if c.hb != nil {
					c.hb.write(heartbeat.FinalWord(c.s.latch))
				}
				c.end(0, "exit "+c.name+" status 0")
				return
			}
		}
	}
}

func (c *fakeChild) end(ws syscall.WaitStatus, what string) {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
	if c.hb != nil {
		c.hb.closeWrite()
	}
	c.sys.record("%s", what)
	c.ws = ws
	close(c.exited)
}

// fakePipe is a heartbeat pipe: unbounded, with a read deadline.
type fakePipe struct {
	mu       sync.Mutex
	buf      []byte
	wclosed  bool
	rclosed  bool
	notify   chan struct{}
	deadline time.Time
}

var _ heartbeatSource = (*fakePipe)(nil)

func newFakePipe() *fakePipe { return &fakePipe{notify: make(chan struct{})} }

func (p *fakePipe) wake() {
	close(p.notify)
	p.notify = make(chan struct{})
}

func (p *fakePipe) write(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wclosed || p.rclosed {
		return
	}
	p.buf = append(p.buf, b...)
	p.wake()
}

func (p *fakePipe) closeWrite() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wclosed = true
	p.wake()
}

func (p *fakePipe) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	p.deadline = t
	p.mu.Unlock()
	return nil
}

func (p *fakePipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.rclosed {
			p.mu.Unlock()
			return 0, os.ErrClosed
		}
		if len(p.buf) > 0 {
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			p.mu.Unlock()
			return n, nil
		}
		if p.wclosed {
			p.mu.Unlock()
			return 0, io.EOF
		}
		ch, dl := p.notify, p.deadline
		p.mu.Unlock()
		if dl.IsZero() {
			<-ch
			continue
		}
		d := time.Until(dl)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		tm := time.NewTimer(d)
		select {
		case <-ch:
			tm.Stop()
		case <-tm.C:
			return 0, os.ErrDeadlineExceeded
		}
	}
}

func (p *fakePipe) readNow(b []byte) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		n := copy(b, p.buf)
		p.buf = p.buf[n:]
		return n, false
	}
	return 0, p.wclosed || p.rclosed
}

func (p *fakePipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rclosed = true
	p.wake()
	return nil
}

// vrun is one supervisor under test in a bubble: run on fs with cfg (Device, Socket and DriverArgs filled in).
type vrun struct {
	fs     *fakeSys
	cancel context.CancelFunc
	done   chan error
	socket string
	log    *testkit.LockedBuffer
}

func startVirtual(t *testing.T, fs *fakeSys, cfg Config) *vrun {
	t.Helper()
	v := &vrun{fs: fs, done: make(chan error, 1), log: &testkit.LockedBuffer{}}
	cfg.Device = "/dev/fake-board"
	v.socket = filepath.Join(t.TempDir(), "base.sock")
	cfg.Socket = v.socket
	cfg.DriverArgs = []string{"driver"}
	cfg.Log = slog.New(slog.NewTextHandler(v.log, nil))
	cfg.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	go func() { v.done <- run(ctx, cfg, fs, false) }()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("events:\n%s\nsupervisor log:\n%s", fs.log(), v.log.String())
		}
	})
	return v
}

// stop cancels the run and waits for it to return.
func (v *vrun) stop(t *testing.T) {
	t.Helper()
	v.cancel()
	if err := <-v.done; err != nil {
		t.Fatal(err)
	}
}

var errNoEvent = errors.New("no such event")

// first returns the virtual time of the first event what at or after from.
func (f *fakeSys) first(what string, from time.Duration) (time.Duration, error) {
	for _, d := range f.find(what) {
		if d >= from {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%w: %q after %v", errNoEvent, what, from)
}
