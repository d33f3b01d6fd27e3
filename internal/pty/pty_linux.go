package pty

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/tty"
)

type native struct {
	rc      syscall.RawConn
	slave   *os.File
	ino     *os.File
	inoDone chan struct{} // closed when the inotify goroutine has exited
	clients atomic.Int32
	once    sync.Once
}

// Open creates a pty with its slave raw at baud and points link at it, replacing whatever link names (a
// caller that must not replace a file checks first).
func Open(link string, baud int) (*PTY, error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open a pseudo-terminal: %w (is /dev/ptmx available?)", err)
	}
	// pty.Open leaves the master in blocking mode (it used Fd()); take a non-blocking duplicate so the
	// runtime poller owns it: Read parks the goroutine and Close wakes it.
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
	p := &PTY{Link: link, SlaveName: s.Name(), Master: os.NewFile(uintptr(fd), "ptmx")}
	p.slave = s
	p.rc, err = p.Master.SyscallConn()
	if err == nil {
		if err = tty.SetRaw(int(s.Fd()), baud); err != nil {
			err = fmt.Errorf("pty slave raw mode: %w", err)
		}
	}
	if err == nil {
		err = p.watchClients()
	}
	if err == nil {
		err = publishLink(p.SlaveName, link)
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// publishLink points link at target atomically (a rename over the old link), so a client never sees a
// half-made device.
func publishLink(target, link string) error {
	tmp := filepath.Join(filepath.Dir(link), "."+filepath.Base(link)+".tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("create device link: %w", err)
	}
	if err := os.Rename(tmp, link); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("publish device link %s: %w", link, err)
	}
	return nil
}

// Clients is the number of open descriptors of the slave other than the PTY's own.
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

// TryWrite makes one write attempt on the master and never waits for room: a full pty takes part of b or
// none of it (n < len(b), or an error).
func (p *PTY) TryWrite(b []byte) (n int, err error) {
	var werr error
	if err := p.rc.Write(func(fd uintptr) bool {
		n, werr = unix.Write(int(fd), b)
		return true // one attempt: never wait for room
	}); err != nil {
		return 0, err
	}
	if n < 0 {
		n = 0
	}
	return n, werr
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
