package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// rawQueue is the per-client queue in reads: at 1 Mbaud a read returns a few frames, so this is seconds of
// data for a client that keeps up at all.
const rawQueue = 1024

// rawServer accepts clients on the raw socket and feeds each from the tee.
type rawServer struct {
	ln   net.Listener
	tee  *tee
	clk  clock.Full
	wg   sync.WaitGroup
	once sync.Once
}

// listenRaw creates the raw socket at path with mode 0660 (only the service's user and group may listen to
// the board). A stale socket file is removed first: the caller holds the board's flock, so no other
// supervisor of this board can be serving it.
func listenRaw(path string, t *tee, clk clock.Full) (*rawServer, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("raw socket %s exists and is not a socket; remove it or pass another --socket", path)
		}
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("raw socket: %w", err)
	}
	if err := os.Chmod(path, 0o660); err != nil {
		ln.Close()
		return nil, fmt.Errorf("raw socket: %w", err)
	}
	r := &rawServer{ln: ln, tee: t, clk: clk}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *rawServer) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			_ = r.clk.Sleep(context.Background(), 10*time.Millisecond) // EMFILE and the like: do not spin
			continue
		}
		s := r.tee.addRaw(rawQueue)
		r.wg.Add(1)
		go r.serve(c, s)
	}
}

func (r *rawServer) serve(c net.Conn, s *sink) {
	defer r.wg.Done()
	defer c.Close()
	failed := false
	for chunk := range s.ch {
		if failed {
			continue // drain until remove closes the queue
		}
		_ = c.SetWriteDeadline(r.clk.Now().Add(2 * time.Second))
		if _, err := c.Write(chunk); err != nil {
			failed = true
			r.tee.remove(s)
		}
	}
}

// Close stops accepting, disconnects every client and waits for their goroutines.
func (r *rawServer) Close() {
	r.once.Do(func() {
		r.ln.Close()
		r.tee.closeAll()
		r.wg.Wait()
	})
}
