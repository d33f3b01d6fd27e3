//go:build !linux

package capture

import (
	"errors"
	"os"
)

// PTY is a pseudo-terminal published at a symlink; Linux only.
type PTY struct {
	Link, SlaveName string
	Master          *os.File
}

// OpenPTY is Linux only: elsewhere it says so.
func OpenPTY(link string, baud int) (*PTY, error) {
	return nil, errors.New("capture: ptys for tap and replay are only supported on Linux")
}

// Clients is 0.
func (p *PTY) Clients() int { return 0 }

// Close does nothing.
func (p *PTY) Close() error { return nil }
