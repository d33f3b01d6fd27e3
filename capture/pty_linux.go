package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/tty"
)

// PTY is a pseudo-terminal whose slave is published at a symlink, for a program that expects a serial
// device (capture tap's host side, capture replay's devices). It keeps its own slave descriptor open, so
// master reads never fail between clients and the slave's raw termios persists; the master is in Go's
// poller (reads park, Close wakes them).
type PTY struct {
	Link      string   // the published path
	SlaveName string   // /dev/pts/N
	Master    *os.File // what the client writes is read here; what is written here the client reads
	slave     *os.File
	once      sync.Once
}

// OpenPTY creates a pty with its slave raw at baud and points link at it (atomically: a rename over an
// existing link, so a client never sees a half-made device). link must not be an existing non-link file.
func OpenPTY(link string, baud int) (*PTY, error) {
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return nil, fmt.Errorf("%s exists and is not a symlink; pass another path (it is replaced by a link to the pty)", link)
	}
	m, s, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a pseudo-terminal: %w (is /dev/ptmx available?)", err)
	}
	// pty.Open's master is blocking (it used Fd()); a non-blocking duplicate goes to the poller.
	fd, err := unix.Dup(int(m.Fd()))
	m.Close()
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("dup pty master: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		s.Close()
		return nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	p := &PTY{Link: link, SlaveName: s.Name(), Master: os.NewFile(uintptr(fd), "ptmx"), slave: s}
	if err := tty.SetRaw(int(s.Fd()), baud); err != nil {
		p.Close()
		return nil, fmt.Errorf("pty slave raw mode: %w", err)
	}
	tmp := filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+".tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(p.SlaveName, tmp); err != nil {
		p.Close()
		return nil, fmt.Errorf("create device link: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		p.Close()
		return nil, fmt.Errorf("publish device link %s: %w", link, err)
	}
	return p, nil
}

// Close removes the link (if it still points at this pty) and closes both ends. It is idempotent.
func (p *PTY) Close() error {
	p.once.Do(func() {
		if t, err := os.Readlink(p.Link); err == nil && t == p.SlaveName {
			_ = os.Remove(p.Link)
		}
		_ = p.Master.Close()
		_ = p.slave.Close()
	})
	return nil
}
