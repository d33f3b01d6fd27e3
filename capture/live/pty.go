package live

import (
	"fmt"
	"os"

	"github.com/rosorin/rosorin/internal/pty"
)

// PTY is a pseudo-terminal whose slave is published at a symlink, for a program that expects a serial
// device (capture tap's host side, capture replay's devices); internal/pty is the implementation, shared
// with the simulator. Writers skip Master while Clients is 0, so a program that opens the device later
// never reads stale bytes.
type PTY = pty.PTY

// OpenPTY creates a pty with its slave raw at baud and points link at it (atomically: a rename over an
// existing link, so a client never sees a half-made device). Unlike the simulator's devices, which live in
// a directory the sim owns, link is a path the user named: it must not be an existing non-link file.
func OpenPTY(link string, baud int) (*PTY, error) {
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return nil, fmt.Errorf("%s exists and is not a symlink; pass another path (it is replaced by a link to the pty)", link)
	}
	return pty.Open(link, baud)
}
