package sim

import "github.com/rosorin/rosorin/internal/pty"

// port is one simulated serial device: a pty whose slave is published at a stable symlink (internal/pty:
// the sim's own slave fd keeps termios and master reads alive between clients; an inotify watch counts the
// clients). The sim writes it with one attempt and never blocks its clock.
type port struct{ *pty.PTY }

// openPort creates a pty with its slave in raw mode at the given baud and points link at it.
func openPort(link string, baud int) (*port, error) {
	p, err := pty.Open(link, baud)
	if err != nil {
		return nil, err
	}
	return &port{p}, nil
}

// Results of port.write.
const (
	wrote    = iota
	noClient // nobody has the device open: dropped, as a closed USB tty would
	full     // the pty buffer is full (a stalled client): dropped, never waited for
)

// write sends b to the client without ever blocking and returns how it went: like cdc-acm and ch341, which
// deliver nothing while the tty is closed, nothing is written while no client is there, so a new client
// never reads seconds-old data.
func (p *port) write(b []byte) int {
	if p.Clients() <= 0 {
		return noClient
	}
	if n, err := p.TryWrite(b); err != nil || n < len(b) {
		return full
	}
	return wrote
}
