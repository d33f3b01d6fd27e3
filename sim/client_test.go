package sim

// Real-time end-to-end tests over ptys; under -race their waits are widened with testkit.Bound.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.bug.st/serial"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/protocol/board"
)

// startSim starts a sim in a temp dir and closes it at the end of the test.
//
// Tests that run a real-time sim must not call t.Parallel: each asserts rates (IMU 100-120 Hz, 10 scans/s)
// and vibration bands (+-15 %) measured in wall time, and on a loaded 2-core CI machine a dozen sims in
// parallel starve each other and those assertions fail for reasons that are not the sim's.
func startSim(t *testing.T, cfg Config) *Sim {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

type boardFrame struct {
	t   time.Time
	fn  byte
	val any
	raw []byte // the payload bytes as received (a copy)
}

// boardClient is a test driver: it opens the board device like the real driver (go.bug.st/serial at
// 1,000,000 baud) and decodes everything the board sends.
type boardClient struct {
	t      *testing.T
	port   serial.Port
	mu     sync.Mutex
	frames []boardFrame
	stats  board.Stats
	bytes  int
	rdErr  error
	done   chan struct{}
}

func openBoard(t *testing.T, path string) *boardClient {
	t.Helper()
	p, err := serial.Open(path, &serial.Mode{BaudRate: BoardBaud})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	c := &boardClient{t: t, port: p, done: make(chan struct{})}
	go c.loop()
	t.Cleanup(c.close)
	return c
}

// readLoop reads port until it fails (a zero-byte read is an end of file) and hands each chunk with its
// arrival time to handle, under mu; the error is stored in *rdErr, under mu, and done is closed.
func readLoop(port serial.Port, mu *sync.Mutex, rdErr *error, done chan struct{}, handle func(now time.Time, chunk []byte)) {
	defer close(done)
	buf := make([]byte, 4096)
	for {
		n, err := port.Read(buf)
		now := time.Now()
		mu.Lock()
		if err != nil || n == 0 {
			if err == nil {
				err = errors.New("EOF")
			}
			*rdErr = err
			mu.Unlock()
			return
		}
		handle(now, buf[:n])
		mu.Unlock()
	}
}

func (c *boardClient) loop() {
	var parser board.Parser
	readLoop(c.port, &c.mu, &c.rdErr, c.done, func(now time.Time, chunk []byte) {
		c.bytes += len(chunk)
		parser.Feed(chunk, func(f board.Frame) {
			v, err := board.Decode(f)
			if err != nil {
				v = err
			}
			c.frames = append(c.frames, boardFrame{now, f.Func, v, append([]byte(nil), f.Payload...)})
		})
		c.stats = parser.Stats()
	})
}

func (c *boardClient) close() {
	c.port.Close()
	<-c.done
}

func (c *boardClient) write(b []byte) {
	c.t.Helper()
	if _, err := c.port.Write(b); err != nil {
		c.t.Fatalf("write to board: %v", err)
	}
}

// since returns the frames of function fn (all if fn is 0xff) that arrived at or after t0.
func (c *boardClient) since(t0 time.Time, fn byte) []boardFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []boardFrame
	for _, f := range c.frames {
		if !f.t.Before(t0) && (fn == 0xff || f.fn == fn) {
			out = append(out, f)
		}
	}
	return out
}

func (c *boardClient) parserStats() board.Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *boardClient) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rdErr
}

// gyro returns the IMU samples for the stand judge (rad/s) with arrival times relative to t0, from t0 on.
func (c *boardClient) gyro(t0 time.Time) []vibration.Sample {
	var out []vibration.Sample
	for _, f := range c.since(t0, board.FuncIMU) {
		m, ok := f.val.(board.IMU)
		if !ok {
			continue
		}
		out = append(out, vibration.SampleFromBoard(f.t.Sub(t0).Seconds(), m.Gyro))
	}
	return out
}

// waitUntil polls cond every 10 ms until it holds or d passes.
func waitUntil(d time.Duration, cond func() bool) bool {
	return testkit.Eventually(d, func() error {
		if !cond() {
			return errNotYet
		}
		return nil
	}) == nil
}

var errNotYet = errors.New("not yet")

func wheelFrame(t *testing.T, v [3]float64) []byte {
	t.Helper()
	b, err := board.EncodeWheelRPS(WheelRPS(v))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
