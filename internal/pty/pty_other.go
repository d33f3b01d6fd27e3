//go:build !linux

package pty

import (
	"fmt"
	"runtime"
)

type native struct{}

// Open is Linux only: elsewhere it says so.
func Open(link string, baud int) (*PTY, error) {
	return nil, fmt.Errorf("cannot create %s: the device needs Linux pseudo-terminals and inotify, not %s; run this on Linux (a VM or container will do)", link, runtime.GOOS)
}

// Clients is 0.
func (p *PTY) Clients() int { return 0 }

// TryWrite writes nothing.
func (p *PTY) TryWrite(b []byte) (int, error) {
	return 0, fmt.Errorf("pty: not supported on %s", runtime.GOOS)
}

// Close does nothing.
func (p *PTY) Close() error { return nil }
