package evidence

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// Log is the run's evidence log: every state line, every command, every IMU sample count and every
// verdict, one timestamped line each. The seed kept docs/evidence/stop_proof_stand_<time>.log; a run that
// failed is only worth something if this file says what was sent and what was seen. Safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	w     *bufio.Writer
	f     *os.File
	clock clock.Clock
	start time.Time
	path  string
	err   error
	tap   func(at time.Time, line string) // SetTap: the proof recording's copy of every line
}

// Name is the file name for a run that started at t: stop_proof_stand_<UTC time>.log.
func Name(kind string, t time.Time) string {
	return fmt.Sprintf("%s_%s.log", kind, t.UTC().Format("20060102_150405"))
}

// Create creates dir (and parents) and the log file in it.
func Create(dir, name string, clock clock.Clock) (*Log, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("evidence folder %s: %w (pass --evidence-dir to put it elsewhere)", dir, err)
	}
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("evidence log: %w", err)
	}
	return &Log{w: bufio.NewWriter(f), f: f, clock: clock, start: clock.Now(), path: path}, nil
}

// New writes the log to w (tests, or no file). w may be nil: the log is then discarded.
func New(w io.Writer, clock clock.Clock) *Log {
	if w == nil {
		w = io.Discard
	}
	return &Log{w: bufio.NewWriter(w), clock: clock, start: clock.Now()}
}

// Start is the time the log counts its seconds from; the proofs use it as the start of their timeline, so
// the seconds in the log and in the result lines are the same seconds.
func (e *Log) Start() (time.Time, bool) {
	if e == nil {
		return time.Time{}, false
	}
	return e.start, true
}

// Path is the file's path ("" when not a file).
func (e *Log) Path() string {
	if e == nil {
		return ""
	}
	return e.path
}

// Logf appends one line: UTC wall time, seconds since the start of the run, the text.
func (e *Log) Logf(format string, args ...any) {
	if e == nil {
		return
	}
	line := fmt.Sprintf(format, args...)
	e.mu.Lock()
	now := e.clock.Now() // under the lock: the file's lines are in time order whoever logs them
	if _, err := fmt.Fprintf(e.w, "%s %9.3f %s\n", now.UTC().Format("15:04:05.000"), now.Sub(e.start).Seconds(), line); err != nil && e.err == nil {
		e.err = err
	}
	tap := e.tap
	e.mu.Unlock()
	if tap != nil {
		tap(now, line)
	}
}

// Flush writes buffered lines out; call it at checkpoints so a crash loses little.
func (e *Log) Flush() error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.w.Flush(); err != nil && e.err == nil {
		e.err = err
	}
	return e.err
}

// Close flushes and closes the file. Idempotent.
func (e *Log) Close() error {
	if e == nil {
		return nil
	}
	err := e.Flush()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.f != nil {
		if cerr := e.f.Close(); cerr != nil && err == nil {
			err = cerr
		}
		e.f = nil
	}
	return err
}
