// Package pty publishes a pseudo-terminal at a symlink for a program that expects a serial device: the
// one implementation behind the simulator's devices (sim) and capture's pty (capture tap, capture replay).
//
// Hygiene, and why:
//   - The PTY keeps its own slave descriptor open, so master reads never return EIO between clients and the
//     slave's termios (raw, the device's baud; internal/tty) persists.
//   - The master is non-blocking and in Go's poller: Read parks the goroutine, Close wakes it. TryWrite makes
//     one write attempt (a full pty refuses the bytes, it never blocks the caller's clock); Master.Write
//     waits for room like a device's own buffer.
//   - An inotify watch counts the clients that have the slave open (Clients). Like cdc-acm and ch341, which
//     deliver nothing while the tty is closed, writers skip the master while it is 0, and a first client's
//     open flushes what slipped into the slave before it was counted, so a new client never reads stale
//     bytes.
//   - The link is published atomically (a rename over the old link), so a client never sees a half-made
//     device; Close removes it only if it still points at this pty.
//
// Linux only (ptys, inotify, termios ioctls): elsewhere Open says so.
package pty
