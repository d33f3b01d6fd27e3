package boardtest

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/pty"
	"github.com/rosorin/rosorin/protocol/board"
)

// OpenPTY returns a Board behind a real pseudo-terminal (internal/pty), raw at board.Baud and published at
// o.Link (Path), for code under test that opens a device path or needs a tty. The Board reads the master from
// a goroutine of its own and writes to it in Emit; it keeps its own descriptor of the slave open (TTY) from the
// start, so the pty's first-client flush is behind it before OpenPTY returns: every byte emitted from then on
// waits in the slave's queue for a reader, as on a real port that nobody reads. It skips the test where there
// are no pseudo-terminals, and closes at the test's end.
func OpenPTY(t testing.TB, o Options) *Board {
	t.Helper()
	if o.Link == "" {
		o.Link = filepath.Join(t.TempDir(), "ttyACM0")
	}
	p, err := pty.Open(o.Link, board.Baud)
	if err != nil {
		t.Skipf("no pseudo-terminal for the fake board: %v", err)
	}
	tty, err := os.OpenFile(p.SlaveName, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		p.Close()
		t.Fatal(ptyError("open the pty's slave", err))
	}
	clk := o.clk()
	for end := clk.Now().Add(5 * time.Second); p.Clients() < 1; _ = clk.Sleep(context.Background(), time.Millisecond) {
		if clk.Now().After(end) {
			tty.Close()
			p.Close()
			t.Fatal(ptyError("open "+p.SlaveName, os.ErrDeadlineExceeded))
		}
	}
	b := New(o)
	b.pty, b.tty = p, tty
	b.wg.Add(1)
	go b.ptyReadLoop()
	t.Cleanup(func() { b.Close() })
	return b
}
