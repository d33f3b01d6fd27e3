package driver

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/internal/tty"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

// fakeBoard is the test's controller board behind a real pseudo-terminal: the driver gets the tty end (raw,
// as the supervisor configures the real port) as BoardIn and BoardOut; the board end streams IMU frames at
// 110 Hz and battery reports, gamepad reports at 20 Hz while the pad is connected, sends gamepad and key frames
// on demand, and records every frame the driver writes with its arrival time, checking each one
// (standtest.MotorSpeeds): a frame that does not decode, or carries a non-finite or over-limit wheel speed,
// fails the test. It is the in-process target of the stand suite (ptyTarget, stand_test.go); the sim is the
// other.
type fakeBoard struct {
	t      testing.TB
	master *os.File
	tty    *os.File

	maxRPS float64 // the largest wheel speed any frame may carry

	mu      sync.Mutex
	frames  []gotFrame
	bad     []string
	corrupt float64 // probability of flipping each byte sent to the driver
	rng     *rand.Rand
	imuGyro [3]float32
	imuOn   bool
	batMV   uint16
	batHz   float64
	padOn   bool // a connected gamepad: a report every 50 ms
	padLY   int8 // the left stick's forward axis in every report

	wmu  sync.Mutex // serialises writes to the master
	stop chan struct{}
	wg   sync.WaitGroup
}

type gotFrame struct {
	at  time.Time
	rps [4]float64
	raw []byte
}

func (f gotFrame) zero() bool { return f.rps == [4]float64{} }

func newFakeBoard(t testing.TB) *fakeBoard {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	// pty.Open made the master blocking (Fd); a non-blocking duplicate reads with the runtime poller.
	fd, err := unix.Dup(int(m.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	master := os.NewFile(uintptr(fd), "ptmx")
	if err := makeRaw(tty); err != nil {
		t.Fatalf("raw mode on the pty: %v", err)
	}
	b := &fakeBoard{t: t, master: master, tty: tty, stop: make(chan struct{}), imuOn: true,
		imuGyro: [3]float32{-1.9, -2.2, 0.05}, batMV: 12400, batHz: 1,
		rng:    rand.New(rand.NewPCG(1, 2)),
		maxRPS: motion.DefaultLimits().MaxWheelRPS(kinematics.DefaultGeometry()) + 1e-6,
	}
	b.wg.Add(2)
	go b.readLoop()
	go b.sendLoop()
	t.Cleanup(b.close)
	return b
}

// makeRaw puts the pty raw as serialport puts the robot's port (internal/tty, at the board's 1 Mbaud),
// through SyscallConn (f.Fd would make the tty blocking and lose read deadlines).
func makeRaw(f *os.File) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := sc.Control(func(fd uintptr) { ierr = tty.SetRaw(int(fd), 1000000) }); err != nil {
		return err
	}
	return ierr
}

func (b *fakeBoard) close() {
	select {
	case <-b.stop:
		return
	default:
	}
	close(b.stop)
	b.tty.Close()
	b.master.SetReadDeadline(time.Now())
	b.wg.Wait()
	b.master.Close()
	if len(b.bad) > 0 {
		b.t.Errorf("the driver wrote %d bad frames, first: %s", len(b.bad), b.bad[0])
	}
}

func (b *fakeBoard) readLoop() {
	defer b.wg.Done()
	var p board.Parser
	buf := make([]byte, 4096)
	for {
		n, err := b.master.Read(buf)
		at := time.Now()
		if n > 0 {
			p.Feed(buf[:n], func(f board.Frame) {
				raw, _ := f.Bytes()
				b.check(at, f, raw)
			})
		}
		if err != nil {
			return
		}
	}
}

// check decodes one frame the driver wrote and records it; anything but a finite, in-limit four-motor set
// frame is a failure.
func (b *fakeBoard) check(at time.Time, f board.Frame, raw []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	rps, err := standtest.MotorSpeeds(f.Func, f.Payload, b.maxRPS)
	if err != nil {
		b.bad = append(b.bad, fmt.Sprintf("frame % x: %v", raw, err))
		return
	}
	b.frames = append(b.frames, gotFrame{at: at, rps: rps, raw: raw})
}

// sendLoop streams IMU at 110 Hz, battery reports at batHz and gamepad reports at 20 Hz while padOn.
func (b *fakeBoard) sendLoop() {
	defer b.wg.Done()
	tk := time.NewTicker(time.Second / 110)
	defer tk.Stop()
	var lastBat, lastPad time.Time
	for {
		select {
		case <-b.stop:
			return
		case now := <-tk.C:
			b.mu.Lock()
			on, gyro, mv, hz, pad, ly := b.imuOn, b.imuGyro, b.batMV, b.batHz, b.padOn, b.padLY
			b.mu.Unlock()
			var out []byte
			if on {
				out = append(out, board.EncodeIMU(board.IMU{Accel: [3]float32{0.01, -0.02, 1.0}, Gyro: gyro})...)
			}
			if hz > 0 && now.Sub(lastBat) >= time.Duration(float64(time.Second)/hz) {
				lastBat = now
				out = append(out, board.EncodeBattery(board.Battery{MilliVolts: mv})...)
			}
			if pad && now.Sub(lastPad) >= 50*time.Millisecond {
				lastPad = now
				out = append(out, board.EncodeGamepad(board.Gamepad{LY: ly})...)
			}
			if len(out) > 0 {
				b.send(out)
			}
		}
	}
}

// send writes bytes to the driver, corrupting each byte with probability b.corrupt.
func (b *fakeBoard) send(p []byte) {
	b.mu.Lock()
	if b.corrupt > 0 {
		p = bytes.Clone(p)
		for i := range p {
			if b.rng.Float64() < b.corrupt {
				p[i] ^= byte(1 + b.rng.IntN(255))
			}
		}
	}
	b.mu.Unlock()
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.master.SetWriteDeadline(time.Now().Add(time.Second))
	b.master.Write(p)
}

func (b *fakeBoard) set(fn func(b *fakeBoard)) {
	b.mu.Lock()
	fn(b)
	b.mu.Unlock()
}

func (b *fakeBoard) pad(g board.Gamepad) { b.send(board.EncodeGamepad(g)) }

// snapshot returns the frames received so far.
func (b *fakeBoard) snapshot() []gotFrame { return b.since(0) }

// since returns the frames from index from on.
func (b *fakeBoard) since(from int) []gotFrame {
	b.mu.Lock()
	defer b.mu.Unlock()
	if from >= len(b.frames) {
		return nil
	}
	return slices.Clone(b.frames[max(from, 0):])
}

func (b *fakeBoard) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.frames)
}

// waitFrame waits for the first frame from index from on that satisfies ok, returning it and its index. The
// waits of this harness (waitFrame, ctx, stop) are widened under -race (testkit.Bound); the bounds the tests
// assert are widened where they are defined.
func (b *fakeBoard) waitFrame(from int, timeout time.Duration, ok func(gotFrame) bool) (gotFrame, int, bool) {
	end := time.Now().Add(testkit.Bound(timeout))
	for {
		b.mu.Lock()
		for i := from; i < len(b.frames); i++ {
			if ok(b.frames[i]) {
				f := b.frames[i]
				b.mu.Unlock()
				return f, i, true
			}
		}
		n := len(b.frames)
		b.mu.Unlock()
		from = n
		if time.Now().After(end) {
			return gotFrame{}, n, false
		}
		time.Sleep(500 * time.Microsecond)
	}
}

func moving(f gotFrame) bool  { return !f.zero() }
func stopped(f gotFrame) bool { return f.zero() }

// logSink collects the driver's log lines.
type logSink struct {
	mu    sync.Mutex
	lines []string
	tb    testing.TB
	ended bool // the test is over: t.Log would panic
}

func (s *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (s *logSink) Handle(_ context.Context, r slog.Record) error {
	var sb strings.Builder
	sb.WriteString(r.Level.String() + " " + r.Message)
	r.Attrs(func(a slog.Attr) bool { sb.WriteString(" " + a.String()); return true })
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, sb.String())
	if testing.Verbose() && !s.ended {
		s.tb.Log(sb.String())
	}
	return nil
}
func (s *logSink) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

func (s *logSink) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s *logSink) WithGroup(string) slog.Handler      { return s }

func (s *logSink) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, l := range s.lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// stand is one running driver on a fake board with a client on its socket.
type stand struct {
	t      testing.TB
	b      *fakeBoard
	cl     *api.Client
	sock   string
	dir    string
	logs   *logSink
	cancel context.CancelFunc
	done   chan error
	r      *loopState
}

type standOpt func(*Options)

// shortTempDir: unix socket paths are limited to 108 bytes; t.TempDir can be longer.
func shortTempDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "drv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func newStand(t testing.TB, opts ...standOpt) *stand {
	t.Helper()
	b := newFakeBoard(t)
	dir := shortTempDir(t)
	s := &stand{t: t, b: b, dir: dir, sock: filepath.Join(dir, "base.sock"), logs: &logSink{tb: t}}
	t.Cleanup(s.logs.end) // registered first: runs last, after the driver stopped
	s.start(opts...)
	return s
}

func (s *stand) start(opts ...standOpt) {
	// SupervisorPID 0: no supervisor, so the test process itself may feed scans (feedScans); the rule for a
	// supervised driver is tested in scanauth_test.go.
	o := Options{Config: config.Default(), BoardIn: s.b.tty, BoardOut: s.b.tty, SocketPath: s.sock,
		StateDir: filepath.Join(s.dir, "state"), Log: slog.New(s.logs)}
	for _, f := range opts {
		f(&o)
	}
	r, err := start(o)
	if err != nil {
		s.t.Fatalf("driver start: %v", err)
	}
	s.r = r
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.done = make(chan error, 1)
	go func() { s.done <- r.run(ctx) }()
	s.cl = api.NewClient(s.sock)
	s.t.Cleanup(s.stop)
}

// stop cancels the driver and waits for Run to return.
func (s *stand) stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Errorf("driver returned %v on cancel", err)
		}
	case <-time.After(testkit.Bound(3 * time.Second)):
		s.t.Errorf("driver did not stop within %v of cancel", testkit.Bound(3*time.Second))
	}
	s.cl.CloseIdle()
}

func (s *stand) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	s.t.Cleanup(cancel)
	return ctx
}

func (s *stand) state() api.State {
	s.t.Helper()
	st, err := s.cl.State(s.ctx())
	if err != nil {
		s.t.Fatalf("state: %v", err)
	}
	return st
}

func (s *stand) enable(on bool) api.Reply {
	s.t.Helper()
	r, err := s.cl.Enable(s.ctx(), on)
	if err != nil {
		s.t.Fatalf("enable(%v): %v", on, err)
	}
	return r
}

// scans feeds scans at 10 Hz over one stream until stopped.
type scanFeeder struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	last time.Time
	n    int
}

func (s *stand) feedScans() *scanFeeder {
	s.t.Helper()
	snd, err := s.cl.StreamScans(context.Background())
	if err != nil {
		s.t.Fatalf("scan stream: %v", err)
	}
	f := &scanFeeder{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer snd.Close()
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			sc := api.Scan{Stamp: time.Now(), FrameID: "laser", ScanTime: 0.1, AngleMin: 0, AngleMax: 2 * math.Pi,
				AngleIncrement: 2 * math.Pi / 400, RangeMin: 0.12, RangeMax: 8, Ranges: make(api.Ranges, 400)}
			for i := range sc.Ranges {
				sc.Ranges[i] = 1.5
			}
			sc.Ranges[7] = float32(math.Inf(1))
			if err := snd.Send(sc); err != nil {
				return
			}
			f.mu.Lock()
			f.last, f.n = time.Now(), f.n+1
			f.mu.Unlock()
			select {
			case <-f.stop:
				return
			case <-tk.C:
			}
		}
	}()
	s.t.Cleanup(func() { f.halt() })
	return f
}

// halt stops the feeder and returns when its last scan went out.
func (f *scanFeeder) halt() time.Time {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// publisher streams one twist at 20 Hz over one stream (standtest.Publisher); halt closes the stream and
// returns the time of the last command sent.
type publisher struct{ *standtest.Publisher }

func (s *stand) publish(tw api.Twist) publisher {
	s.t.Helper()
	return publisher{standtest.Publish(s.t, s.cl, tw)}
}

func (p publisher) halt() time.Time { return p.Close() }
