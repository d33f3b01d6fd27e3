package sim

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

// port is one simulated serial device: a pty whose slave is published at a stable symlink.
//
// Hygiene, and why:
//   - The sim keeps its own slave fd open, so master reads never return EIO between clients and the
//     slave's termios (raw, the device's baud) persists.
//   - The master is non-blocking and written with one write attempt: a full pty drops the bytes (counted),
//     it never blocks the sim's clock.
//   - An inotify watch counts the clients that have the slave open. Like cdc-acm and ch341, which deliver
//     nothing while the tty is closed, nothing is written while no client is there, so a new client never
//     reads seconds-old data.
type port struct {
	link      string // DIR/ttyACM0
	slaveName string // /dev/pts/N
	master    *os.File
	rc        syscall.RawConn
	slave     *os.File
	ino       *os.File
	clients   atomic.Int32

	closeOnce sync.Once
	done      chan struct{} // closed when the inotify goroutine has exited
}

// openPort creates a pty with its slave in raw mode at the given baud and points link at it.
func openPort(link string, baud int) (*port, error) {
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
	p := &port{link: link, slaveName: s.Name(), slave: s, master: os.NewFile(uintptr(fd), "ptmx"), done: make(chan struct{})}
	p.rc, err = p.master.SyscallConn()
	if err == nil {
		if err = tty.SetRaw(int(s.Fd()), baud); err != nil {
			err = fmt.Errorf("pty slave raw mode: %w", err)
		}
	}
	if err == nil {
		err = p.watchClients()
	}
	if err == nil {
		err = publishLink(p.slaveName, link)
	}
	if err != nil {
		p.close(false)
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

// watchClients counts opens and closes of the slave by others (our own open happened before the watch).
func (p *port) watchClients() error {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	if _, err := unix.InotifyAddWatch(fd, p.slaveName, unix.IN_OPEN|unix.IN_CLOSE_WRITE|unix.IN_CLOSE_NOWRITE); err != nil {
		unix.Close(fd)
		return fmt.Errorf("inotify watch %s: %w", p.slaveName, err)
	}
	p.ino = os.NewFile(uintptr(fd), "inotify")
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := p.ino.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				mask := binary.NativeEndian.Uint32(buf[off+4:])
				nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
				off += unix.SizeofInotifyEvent + nameLen
				switch {
				case mask&unix.IN_OPEN != 0:
					if p.clients.Add(1) == 1 {
						// A new client: drop anything that slipped in before it was counted.
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

// write sends b to the client without ever blocking and returns how it went.
func (p *port) write(b []byte) int {
	if p.clients.Load() <= 0 {
		return noClient
	}
	var n int
	var werr error
	err := p.rc.Write(func(fd uintptr) bool {
		n, werr = unix.Write(int(fd), b)
		return true // one attempt: never wait for room
	})
	if err != nil || werr != nil || n < len(b) {
		return full
	}
	return wrote
}

// close tears the device down; removeLink also deletes the symlink if it still points at this pty
// (a USB drop: the device disappears).
func (p *port) close(removeLink bool) {
	p.closeOnce.Do(func() {
		if removeLink {
			if t, err := os.Readlink(p.link); err == nil && t == p.slaveName {
				_ = os.Remove(p.link)
			}
		}
		if p.ino != nil {
			_ = p.ino.Close()
			<-p.done
		}
		_ = p.master.Close()
		_ = p.slave.Close()
	})
}
