// Package supervisor is the process layer of rosorin-base: the supervisor that owns the board's serial port,
// runs the driver and the LiDAR reader as child processes of the same binary and writes a stop frame whenever
// the driver dies or hangs; and StopMotors, the last-resort tool for systemd's ExecStopPost. The board has no
// motor watchdog, so the process that notices a dead driver is the one that already holds the port. The
// contract with the children (descriptors, environment, tx tap, the child's side) is driver/childproc; what
// the supervisor asks of the kernel is one interface (sys.go), so its timing is tested in virtual time.
//
//	rosorin-base run (supervisor)     open O_RDWR|O_NOCTTY, flock + TIOCEXCL, raw 8N1 1 Mbaud, stop frame
//	 ├─ pump goroutine                 the port's only reader: bytes -> driver pipe (fd 3) and SOCKET.raw
//	 ├─ driver child (fd 3 in, fd 4 = the port, for writing, fd 5 = heartbeat pipe; PR_SET_PDEATHSIG = SIGTERM)
//	 │     waiter: wait4 returns -> two stop frames in one write at once, restart latched RestartDelay later
//	 │     watcher: no control-loop heartbeat for WatchdogTimeout -> SIGKILL, stop frame, again after the reap
//	 └─ lidar-reader child (opens /dev/lidar itself; respawned ReaderRespawnDelay after any exit)
//
// Rules (the reasons, with the measured times, are in docs/supervisor.md):
//   - Every exit of the driver child is followed by a stop frame from the waiter, written twice in one write
//     (a driver killed mid-write can leave a cut frame: stopper.crash), before logging and restarting.
//   - A driver whose control loop goes silent on fd 5 for WatchdogTimeout (150 ms; WatchdogStartGrace 5 s
//     before its first heartbeat; StopTimeout after its final word "stopping") is hung: SIGKILL, a stop frame
//     at once and one after the reap (watchdog.go), logged at ERROR, restarted latched. --driver-watchdog 0
//     turns it off.
//   - A restarted driver starts with its e-stop latched (childproc.StartLatchedEnv, restartLatch): the reason is the
//     previous driver's own latch, else "board port reopened after USB drop", else "driver restarted after
//     <how it ended>". Not latched: the first driver, and the successor of one that exited cleanly unlatched.
//     A driver that exits by itself or hangs within 2 s of its start doubles the restart delay (up to 5 s):
//     a crash loop must not spin.
//   - Children are forked from one goroutine locked to its OS thread for the supervisor's lifetime
//     (PR_SET_PDEATHSIG follows the forking thread, golang/go#27505); signals go through pidfds.
//   - The driver child halts its output on SIGTERM/SIGINT (childproc.HaltWriter). It learns of the supervisor's death
//     twice: its parent-death signal and its board pipe's end of file (hidden test flags
//     --test-no-pdeathsig and --test-driver-holds-board-eof take each away).
//   - USB drop (the pump's read ends): close, SIGTERM the driver, reopen every ReopenEvery (10 ms); the instant
//     it opens, a stop frame, then the driver restarts. While the port is gone it is logged at ERROR (then every
//     GoneLogEvery, 10 s) and the status says so.
//   - SIGINT/SIGTERM: SIGINT to the children, wait up to StopTimeout (3 s; then SIGKILL), two stop frames,
//     exit 0.
//   - The pump never blocks on a consumer: a hung driver loses bytes (counted), a slow raw client is
//     disconnected (counted).
//
// Recording (Config.Capture, `run --capture DIR`; capture.go, driver/childproc txtap.go): the pump's reads go to
// /serial/board/rx, the driver's writes (copied after each write through a non-blocking tap pipe, fd 6) and the
// supervisor's own stop frames to /serial/board/tx, all through a segment.Queue that never blocks and drops
// (counted) when full; a full disk stops recording, loudly, and nothing else. Figures: docs/capture.md.
//
// Files next to the driver's control socket S: S.raw (every board byte, mode 0660, any number of clients;
// served while the driver is dead) and S.status (Status as JSON, rewritten on every change and every second,
// with the watchdog's trips and the driver's heartbeat count, age and longest gap).
//
// Spec: issue 4; chapter 11 (stop_motors.py: no lock, retry 0.2 s, warn after 1 s, three frames; the unit's
// KillSignal=SIGINT, KillMode=mixed, ExecStopPost, Restart=always), chapter 14 (the reader's respawn),
// chapter 19 (the crash-path times to beat).
//
// Errata and limits:
//   - The watchdog sees the control loop, not the board writer: a driver whose loop ticks while its write to
//     the port is stuck in the kernel (wedged USB, firmware that stopped draining) is not killed; killing it
//     would not help, since the supervisor's stop frame would block on the same port. The driver's state record
//     says so ("board write blocked"); the power switch is the remedy.
//   - A kill cannot finish while the driver is in uninterruptible sleep (D state); the immediate stop frame
//     goes out regardless, the post-reap one only when the kernel lets the driver die.
//   - While the supervisor itself is frozen nothing watches. When it resumes, heartbeats that waited in the
//     pipe count; when it woke more than 10 ms past its deadline, the driver gets 50 ms of running time to beat
//     before it is judged, up to 5 times in a row, so a hung driver's stop can be delayed by the stall plus
//     50 ms.
//   - stop-motors cannot open the port while a non-root supervisor owns it (TIOCEXCL), by design; as root it
//     can (root bypasses TIOCEXCL and stop-motors takes no flock).
//   - The supervisor exits at start when the device is missing (systemd restarts it after 3 s); once running
//     it waits for a vanished device forever.
package supervisor
