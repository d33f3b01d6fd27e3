package supervisor

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/internal/rawio"
)

// The board port: the pump that reads it, and what happens when it is lost and comes back.

func (s *supervisor) startPump() {
	done := make(chan error, 1)
	s.pumpDone = done
	var f io.Reader = s.port
	if pf, ok := s.port.(*os.File); ok {
		// The port's reads as raw system calls (rawio: no sysmon wake-up per read); a port not in
		// non-blocking mode keeps os.File's reads.
		if rf, err := rawio.NewFile(pf); err == nil {
			f = rf
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		buf := make([]byte, maxChunk)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				chunk := append([]byte(nil), buf[:n]...)
				if s.capture != nil {
					s.capture.Put(capRx, s.clk.Now(), chunk) // never blocks (segment.Queue)
				}
				s.tee.write(chunk)
			}
			if err == nil && n == 0 {
				err = io.EOF
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
}

// removeStaleSocket removes the dead driver's control socket so the next one can listen (a SIGKILLed
// process cannot unlink its socket).
func removeStaleSocket(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		_ = os.Remove(path)
	}
}

// portLost handles a read error or EOF on the board: USB drop. The old descriptor is dead for good.
func (s *supervisor) portLost(err error) {
	s.portDropped = true // the next driver starts latched (restartLatch)
	s.stop.set(nil)
	s.port.Close()
	s.port = nil
	s.portState, s.portSince = PortGone, s.clk.Now()
	s.goneLogged = s.clk.Now()
	s.log.Error("BOARD PORT LOST: the wheels keep their last speed and nothing can stop them until it returns; "+
		"stopping the driver, reopening", "device", s.cfg.Device, "err", err, "every", s.cfg.ReopenEvery)
	if s.driver != nil {
		_ = s.driver.p.signal(syscall.SIGTERM)
	}
}

// tryReopen opens the vanished board again; on success the stop frame goes out before anything else.
func (s *supervisor) tryReopen() bool {
	f, err := s.sys.openBoard(s.cfg.Device)
	if err != nil {
		if s.clk.Now().Sub(s.goneLogged) >= s.cfg.GoneLogEvery {
			s.goneLogged = s.clk.Now()
			s.log.Error("BOARD PORT STILL GONE: the wheels keep their last speed and nothing can stop them",
				"device", s.cfg.Device, "gone_for", s.clk.Now().Sub(s.portSince).Round(time.Second), "err", err)
		}
		return false
	}
	gone := s.clk.Now().Sub(s.portSince)
	s.setPort(f)
	if err := s.stop.crash("board port returned"); err != nil {
		s.log.Error("board port back but the stop frame failed", "device", s.cfg.Device, "err", err)
	} else {
		s.log.Warn("board port back; stop frame written", "device", s.cfg.Device, "gone_for", gone.Round(time.Millisecond))
	}
	s.startPump()
	return true
}
