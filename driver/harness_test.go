package driver

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// standBoard is the test's controller board: boardtest's streaming board behind a real pseudo-terminal. The
// driver gets the tty end (raw, as the supervisor configures the real port) as BoardIn and BoardOut; the board
// streams IMU frames at 110 Hz and battery reports, gamepad reports at 20 Hz while the pad is connected, sends
// gamepad and key frames on demand, and records every frame the driver writes with its arrival time, checking
// each one (standtest.MotorSpeeds): a frame that does not decode, or carries a non-finite or over-limit wheel
// speed, fails the test. It is the in-process target of the stand suite (ptyTarget, stand_test.go); the sim
// is the other. Its methods are the harness's names for the board's calls.
type standBoard struct{ *boardtest.Board }

// gotFrame is one motor frame the driver wrote, as the harness's tests read it.
type gotFrame struct {
	at  time.Time
	rps [4]float64
	raw []byte
}

func (f gotFrame) zero() bool { return f.rps == [4]float64{} }

func asGot(r boardtest.Received) gotFrame { return gotFrame{at: r.At, rps: r.Wheels, raw: r.Raw} }

func newFakeBoard(t testing.TB) standBoard {
	t.Helper()
	maxRPS := motion.DefaultLimits().MaxWheelRPS(kinematics.DefaultGeometry()) + 1e-6 // the largest wheel speed any frame may carry
	b := boardtest.OpenPTY(t, boardtest.Options{Check: func(f board.Frame) error {
		_, err := standtest.MotorSpeeds(f.Func, f.Payload, maxRPS)
		return err
	}})
	b.Stream(boardtest.Streams{IMU: true, IMUValue: board.IMU{Accel: [3]float32{0.01, -0.02, 1.0}, Gyro: [3]float32{-1.9, -2.2, 0.05}},
		BatteryMV: 12400, BatteryHz: 1})
	t.Cleanup(func() {
		b.Close() // stop reading first
		if bad := b.Bad(); len(bad) > 0 {
			t.Errorf("the driver wrote %d bad frames, first: %s", len(bad), fmt.Sprintf("frame % x: %v", bad[0].Raw, bad[0].Err))
		}
	})
	return standBoard{b}
}

func (b standBoard) pad(g board.Gamepad) { b.send(board.EncodeGamepad(g)) }

// send writes bytes to the driver (corrupted as the board's Corrupt says).
func (b standBoard) send(p []byte) { _ = b.Emit(p) }

// snapshot returns the frames received so far.
func (b standBoard) snapshot() []gotFrame { return b.since(0) }

// since returns the frames from index from on.
func (b standBoard) since(from int) []gotFrame {
	var out []gotFrame
	for _, r := range b.Since(from) {
		out = append(out, asGot(r))
	}
	return out
}

func (b standBoard) count() int { return b.Count() }

// waitFrame waits for the first frame from index from on that satisfies ok, returning it and its index. The
// waits of this harness (waitFrame, ctx, stop) are widened under -race (testkit.Bound); the bounds the tests
// assert are widened where they are defined.
func (b standBoard) waitFrame(from int, timeout time.Duration, ok func(gotFrame) bool) (gotFrame, int, bool) {
	r, i, found := b.Wait(from, testkit.Bound(timeout), func(r boardtest.Received) bool { return ok(asGot(r)) })
	if !found {
		return gotFrame{}, i, false
	}
	return asGot(r), i, true
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
	b      standBoard
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
	o := Options{Config: config.Default(), BoardIn: s.b.TTY(), BoardOut: s.b.TTY(), SocketPath: s.sock,
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
