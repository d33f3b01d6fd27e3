package capture

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

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
	ino       *os.File
	inoDone   chan struct{}
	clients   atomic.Int32
}

// Clients is the number of open descriptors of the slave other than the PTY's own (an inotify watch
// counts opens and closes). Like cdc-acm, which delivers nothing while the tty is closed, writers skip
// the master while it is 0, so a program that opens the device later never reads stale bytes.
func (p *PTY) Clients() int { return int(p.clients.Load()) }

// watchClients counts opens and closes of the slave by others (our own open happened before the watch);
// a first client's open also flushes what slipped into the slave before it was counted.
func (p *PTY) watchClients() error {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	if _, err := unix.InotifyAddWatch(fd, p.SlaveName, unix.IN_OPEN|unix.IN_CLOSE_WRITE|unix.IN_CLOSE_NOWRITE); err != nil {
		unix.Close(fd)
		return fmt.Errorf("inotify watch %s: %w", p.SlaveName, err)
	}
	p.ino = os.NewFile(uintptr(fd), "inotify")
	p.inoDone = make(chan struct{})
	go func() {
		defer close(p.inoDone)
		buf := make([]byte, 4096)
		for {
			n, err := p.ino.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				mask := binary.NativeEndian.Uint32(buf[off+4:])
				off += unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(buf[off+12:]))
				switch {
				case mask&unix.IN_OPEN != 0:
					if p.clients.Add(1) == 1 {
						_ = unix.IoctlSetInt(int(p.slave.Fd()), unix.TCFLSH, unix.TCIFLUSH)
					}
				case mask&(unix.IN_CLOSE_WRITE|unix.IN_CLOSE_NOWRITE) != 0:
					if p.clients.Add(-1) < 0 {
						p.clients.Store(0)
					}
				}
			}
		}
	}()
	return nil
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
	if err := p.watchClients(); err != nil {
		p.Close()
		return nil, err
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
		if p.ino != nil {
			_ = p.ino.Close()
			<-p.inoDone
		}
		_ = p.Master.Close()
		_ = p.slave.Close()
	})
	return nil
}
