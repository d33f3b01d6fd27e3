// Package harness is the machinery the proofs share: the Target a proof drives (a running driver, or a
// simulated stand robot with the real driver against it), IMU recordings, the board's IMU read from below
// the driver, the state watcher, the evidence log and the proofs' clock.
//
// # Targets
//
// LiveTarget talks to a running rosorin-base through its control socket (driver/api): state, config, the
// IMU stream, one cmd_vel stream per path (one publisher), e-stop, enable, reset; it kills the driver or the
// LiDAR reader by the pid in the state record (SIGKILL), stops and starts the service with shell commands
// (systemctl by default), and asks the operator for a gamepad button, taking the trigger time from the first
// frame of the driver's gamepad stream that carries it.
//
// SimTarget makes a temporary folder, starts package sim's stand robot in this process, and the real
// `rosorin-base run` as a child process against its pseudo-terminals. Inside the source tree that binary is
// always built from the tree into the folder (FindBaseBin), so a proof never proves an installed copy by
// accident; the binary, its version and digest are printed, logged and recorded (DriverBinary). A service stop is what systemd does:
// SIGINT to the supervisor, wait for it, then `rosorin-base stop-motors` (the unit's ExecStopPost). The
// gamepad button is pressed on the simulated pad. --sim-fault faults are applied at each trigger and cleared
// after the judge (Faulter), so the negative control ignore-motor breaks the stop and not the spin-up.
//
// # From below the driver
//
// While the driver is gone (kill, service) nobody publishes the IMU. BoardIMU reads the board's own IMU
// frames: from the supervisor's raw socket (SOCKET.raw, every byte the board sends, served as long as the
// supervisor lives, so a driver kill does not interrupt it), else from the port itself, opened through
// driver/port read-only with no lock and no TIOCEXCL, in raw mode before the first read (a cooked tty would
// echo bytes back to the board) and with the input queued before the open flushed (it would be stamped on
// receipt, at the wrong time), and only while no process holds the port's advisory lock (read from /proc/locks, which takes no
// lock itself). It lets the port go within 0.1 s of someone locking it: two readers of one tty split its
// bytes. The seed's raw_watch read the port directly; the result line says which source was used.
//
// # Errata
//
//   - Every IMU sample (and the gamepad trigger) is timed on its receipt by the proof's clock, the clock the
//     triggers are taken on. The driver's stamps are wall-clock times and shift with a wall-clock step; they
//     are kept only to measure the delivery lag (Lag), which each run reports.
//   - Root bypasses TIOCEXCL, so the direct reader relies on the supervisor's flock (driver/port) to see that
//     the port is owned; a program that holds the port without a lock is invisible to it.
package harness
