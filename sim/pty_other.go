//go:build !linux

package sim

import (
	"fmt"
	"os"
	"runtime"
)

// port is a simulated serial device; only Linux has them (ptys, inotify, termios ioctls).
type port struct {
	master    *os.File
	slaveName string
}

func openPort(link string, baud int) (*port, error) {
	return nil, fmt.Errorf("cannot create %s: the simulated devices need Linux pseudo-terminals and inotify, not %s; run the sim on Linux (a VM or container will do)", link, runtime.GOOS)
}

func (p *port) write(b []byte) int { return noClient }

func (p *port) close(removeLink bool) {}
