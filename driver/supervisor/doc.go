// Package supervisor is the process layer of rosorin-base: the supervisor that owns the board's serial port,
// runs the driver and the LiDAR reader as child processes of the same binary and writes a stop frame whenever
// the driver dies or hangs; the child-side helpers (ChildBoard, ChildHeartbeat, HaltWriter); and StopMotors,
// the last-resort tool for systemd's ExecStopPost.
//
// # Why a supervisor
//
// The board has no motor watchdog: it keeps the last wheel speed forever. The seed's stop frame after a
// driver crash came from a second program started by whoever noticed the death: 0.127-0.138 s through
// ros2 launch's OnProcessExit, 1.17 s through systemd's ExecStopPost alone (chapter 19). Here the process
// that notices is the one that already holds the port:
//
//	rosorin-base run (supervisor)     open O_RDWR|O_NOCTTY, flock + TIOCEXCL, raw 8N1 1 Mbaud, stop frame
//	 ├─ pump goroutine                 the port's only reader: bytes -> driver pipe (fd 3) and SOCKET.raw
//	 ├─ driver child (fd 3 in, fd 4 = the port, for writing, fd 5 = heartbeat pipe; PR_SET_PDEATHSIG = SIGTERM)
//	 │     waiter goroutine: wait4 returns -> stop frame (twice) at once, then restart (latched) 0.5 s later
//	 │     watcher goroutine: no control-loop heartbeat for 150 ms -> SIGKILL, stop frame at once, and again
//	 │       when the waiter reaps it (watchdog.go)
//	 └─ lidar-reader child (opens /dev/lidar itself; respawned 2 s after any exit)
//
// Measured on a 2-core test machine (tests in this package): SIGKILL of the driver to the stop frame at the
// board about 1 ms median, under 12 ms p99 over 20-25 kills, against a pty and against the sim with the wheels
// turning; SIGKILL of the supervisor to the child's parent-death stop frame 1-5 ms; SIGINT to exit 0 with no
// process left in about 10 ms. SIGSTOP of the driver (alive but hung) while the wheels turn, to the stop frame
// at the sim: median 138-140 ms, max 143-154 ms in four sets of 10 (one during a full compile of the module);
// that is the default 150 ms timeout counted from the last heartbeat, which came 0-20 ms before the SIGSTOP
// (the supervisor's measured silence: 150-151 ms). The replacement driver starts latched. No false trip in
// 20 s against the sim with half a core of extra load (and once a full compile) and 20 freezes of 80 ms:
// longest heartbeat gap 22-26 ms under load alone, about 100 ms with the freezes.
//
// # Rules it follows
//
//   - Every exit of the driver child (wait4 returns, for any reason) is followed by a stop frame from the
//     waiter goroutine, before logging and before the control loop hears of it; written twice back to back,
//     in one write, because a driver killed mid-write can leave a cut frame that a parser trusting its length
//     byte would complete with the first copy (stopper.crash).
//   - A driver whose control loop goes silent (no heartbeat on fd 5 for WatchdogTimeout, 150 ms; 5 s before
//     its first one; StopTimeout after it said it is stopping) is hung: SIGKILL, a stop frame at once, a second
//     after the reap (so no frame of the dead driver can follow the last stop frame: watchdog.go explains the
//     order), logged at ERROR, restarted latched like any dead driver. --driver-watchdog 0 turns it off.
//   - A restarted driver starts with its e-stop latched (StartLatchedEnv; restartLatch in supervisor.go), so
//     that enable needs a reset after a crash, a kill, a hang or a USB drop, and an e-stop latched before the
//     restart survives it: the reason is the previous driver's own latch (its final heartbeat word), else
//     "board port reopened after USB drop", else "driver restarted after <how it ended>". Not latched: the
//     first driver of the service, and the successor of a driver that exited cleanly (status 0 after its
//     final word) and unlatched. Status.DriverStartLatched shows it.
//   - The children are forked from one goroutine locked to its OS thread for the supervisor's lifetime:
//     PR_SET_PDEATHSIG fires when the forking *thread* exits (golang/go#27505), and it must mean "the
//     supervisor is gone". Signals go through pidfds (no recycled-pid accidents).
//   - The driver child halts its output on SIGTERM/SIGINT (HaltWriter): the stop frame it writes then is the
//     last thing the board hears from it. When the supervisor dies, the driver learns it twice: from its
//     parent-death signal, and from its board pipe's end of file (the supervisor held the only write end);
//     either stops the wheels in about 1-2 ms (tests take each away with the hidden run flags
//     --test-no-pdeathsig and --test-driver-holds-board-eof; with both away the wheels turn on until the
//     driver's scan gate holds them, the reader having died with the supervisor).
//   - USB drop (the pump's read ends): close, SIGTERM the driver, reopen every 10 ms; the instant it opens,
//     a stop frame, then the driver restarts. While the port is gone nothing can stop the wheels: it is logged
//     at ERROR (then every 10 s) and StatusPath(socket) says so.
//   - SIGINT/SIGTERM: SIGINT to the children, wait up to 3 s (then SIGKILL), two stop frames, exit 0.
//   - The pump never blocks on a consumer: a hung driver loses bytes (counted), a slow raw client is
//     disconnected (counted).
//
// # The driver watchdog (--driver-watchdog, default 150 ms)
//
// What it covers: a driver that is alive but no longer deciding, which the crash path cannot see because
// nothing exits: a deadlock, a control loop stuck or spinning inside one tick, a SIGSTOPped or paged-out
// driver. The heartbeat comes from the control loop itself after every tick (driver/heartbeat.go), so a
// driver whose other goroutines run on while its loop is stuck is still caught. 150 ms is 7.5 ticks: a GC
// pause or a busy 2-core machine costs a few tens of ms (longest gap measured under load 22-26 ms), and a
// hung driver's wheels still stop in about half the deadman's 0.3 s. Measured SIGSTOP to stop frame: median
// 138-140 ms, max 143-154 ms. 0 turns it off.
//
// What it cannot do: stop wheels whose port write is stuck in the kernel (wedged USB, firmware that stopped
// draining). The driver's writes go through their own goroutine, so its loop goes on ticking and beating and
// the watchdog sees it alive, rightly: killing it would not help, since the supervisor's stop frame would
// block on the same port. The driver's state record says so ("board write blocked ..."), as it says a
// silent board; the power switch is the remedy. See also the errata below.
//
// Files next to the driver's control socket S: S.raw (every board byte, mode 0660, any number of clients;
// served while the driver is dead) and S.status (Status as JSON, rewritten on every change and every second;
// it includes the watchdog's trips and the driver's heartbeat count, age and longest gap).
//
// Spec: issue 4; chapter 11 (stop_motors.py: no lock, retry 0.2 s, warn after 1 s, three frames; the unit's
// KillSignal=SIGINT, KillMode=mixed, ExecStopPost, Restart=always), chapter 14 (the reader's respawn),
// chapter 19 (the crash-path times to beat).
//
// Errata and limits:
//   - The watchdog sees the control loop, not the board writer: a driver whose loop ticks while its write to
//     the port is stuck in the kernel (wedged USB) is not killed (killing it would not help; the supervisor's
//     own stop frame would block on the same port). The driver's state record says so ("board write blocked").
//   - A kill cannot finish while the driver is in uninterruptible sleep (D state); the immediate stop frame
//     goes out regardless, the post-reap one only when the kernel lets the driver die.
//   - While the supervisor itself is frozen nothing watches; when it resumes, heartbeats that waited in the
//     pipe count (the poller reports a passed deadline without reading: watchHeartbeat reads once more). When
//     the whole machine stalled (the supervisor woke more than 10 ms past its deadline), the driver gets 50 ms
//     of running time to beat before it is judged, up to 5 times in a row: one false trip of a healthy driver
//     (silent "175 ms", the supervisor 25 ms late) was seen on the 2-core test VM under other jobs' load
//     before this rule. A hung driver's stop can so be delayed by the stall plus 50 ms.
//   - stop-motors cannot open the port while a non-root supervisor owns it (TIOCEXCL), by design; as root
//     it can (root bypasses TIOCEXCL and stop-motors takes no flock).
//   - creack/pty's Open leaves the master in blocking mode (it calls Fd()): a goroutine blocked reading it keeps
//     it open through Close, so the slave never hangs up. The test fixture re-polls a CLOEXEC duplicate.
//   - The supervisor exits at start when the device is missing (systemd restarts it after 3 s); once running
//     it waits for a vanished device forever.
package supervisor
