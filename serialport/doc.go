// Package serialport opens the robot's serial devices the way the driver needs them: the controller board read-write
// and exclusive, the LiDAR read-only and exclusive, and the board again without any lock for the last-resort
// stop-motors tool. Every port is raw 8N1 (no echo, no line editing, no CR/LF translation), read returns as
// soon as one byte is there (VMIN 1, VTIME 0), and the returned *os.File is non-blocking under Go's poller, so
// Close interrupts a blocked Read and SetReadDeadline works (the LiDAR reader's silence detection).
//
// Exclusivity has two layers because one is not enough (chapter 11, board_driver.py):
//   - TIOCEXCL: the kernel refuses any further open(2) of the tty with EBUSY, but root bypasses it;
//   - flock(LOCK_EX|LOCK_NB) on the open file: advisory, and root does not bypass it, so a second
//     `rosorin-base run` started by root (or by systemd while a stray copy runs) still fails.
//
// A refused open returns a *BusyError naming the holders found in /proc/*/fd (only those this user may see).
//
// Spec: chapter 11 (board: O_RDWR|O_NOCTTY, TIOCEXCL, raw, B1000000, VMIN 1) and chapter 14 (LiDAR: O_RDONLY,
// TIOCEXCL, raw, B230400, VMIN 1); stop_motors opens without TIOCEXCL on purpose, so that it never locks out
// the driver that systemd restarts after it.
//
// Errata: on a pseudo-terminal the baud rate is accepted and ignored. A USB serial device that disappears
// hangs up the tty: Read returns io.EOF (or EIO) and Write returns EIO; the caller must close and reopen by
// path. TIOCEXCL is cleared when the last descriptor of the tty closes, so it never outlives its owner; the
// flock is released when the last descriptor of the open file closes, which includes copies inherited by
// child processes.
//
// Platform code lives in port_linux.go behind unexported native* functions, the raw termios in internal/tty
// (shared with the simulator); other systems get ErrUnsupported.
package serialport
