package childproc

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rosorin/rosorin/protocol/board"
)

// ErrHalted is returned by HaltWriter.Write after Halt: nothing but stop frames reaches the board any more.
var ErrHalted = errors.New("board output halted: only stop frames pass")

// HaltWriter guards the driver child's board output. Halt writes the stop frame and latches: every later write
// except a stop frame is refused. So the stop frame written on SIGTERM/SIGINT (the supervisor's death signal,
// or shutdown) is the last thing the board hears, even if the control loop was about to send one more motor
// frame before it noticed the cancellation.
type HaltWriter struct {
	mu     sync.Mutex
	w      io.Writer
	halted bool
	stop   []byte
}

var _ io.Writer = (*HaltWriter)(nil)

// NewHaltWriter wraps w, which the caller keeps owning.
func NewHaltWriter(w io.Writer) *HaltWriter { return &HaltWriter{w: w, stop: board.StopFrame()} }

// Write passes p on, unless halted (then only a stop frame passes).
func (h *HaltWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.halted && !board.IsStopFrame(p) {
		return 0, ErrHalted
	}
	return h.w.Write(p)
}

// Halt writes the stop frame and refuses every later non-stop write. It may be called more than once (each
// call writes the frame again).
func (h *HaltWriter) Halt() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.halted = true
	if _, err := h.w.Write(h.stop); err != nil {
		return fmt.Errorf("stop frame: %w", err)
	}
	return nil
}

// Halted reports whether Halt was called.
func (h *HaltWriter) Halted() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.halted
}
