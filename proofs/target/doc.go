// Package target is what the proofs drive and observe: the Target (a running driver reached through its
// control API, LiveTarget; or a simulated stand robot with the real driver started against it, SimTarget;
// or ROS2Target over either), split into the roles a proof asks for (Describer, StateReader, IMURecorder,
// Commander, Switcher, Killer, ServiceController, ButtonPresser; Target is all of them and Close), and the
// board's IMU read from below the driver. The proofs' loops over a target (the drive loop, the state poll,
// the state watcher) are proofs/internal/runcore's Engine. Beside it:
// the samples and their recordings (proofs/imu), the evidence log (proofs/evidence), the clock
// (package clock), the driver binary a simulation runs (proofs/basebin), a command's run (proofs/session) and
// its MCAP recording (proofs/proofrec).
//
// # Targets
//
// LiveTarget follows driver/api: state, config, the IMU stream, one cmd_vel stream per path (one publisher),
// e-stop, enable, reset; it kills the driver or the LiDAR reader by the pid in the state record (SIGKILL),
// stops and starts the service with shell commands (systemctl by default), and asks the operator for a gamepad
// button, timed by the first frame of the driver's gamepad stream that carries it.
//
// SimTarget starts package sim's stand robot in this process and `rosorin-base run` as a child against its
// pseudo-terminals, in a temporary folder. Inside the source tree that binary is always built from the tree
// (basebin.Find), so a proof never proves an installed copy by accident; it is named in the output and the
// record (DriverBinary). A service stop is what systemd does: SIGINT to the supervisor, wait, then
// `rosorin-base stop-motors` (the unit's ExecStopPost). Faults are applied at each trigger and cleared after
// the judge (Faulter), so the negative control ignore-motor breaks the stop and not the spin-up. With
// SimConfig.World "floor" the robot drives in a room (SimConfig.Room: sim.NamedRoom) instead.
//
// Optional abilities are roles found by type assertion, outside Target: ScanFollower (the driver's LiDAR
// scans, timed on receipt: the floor proof's odometry, corridor check and guard), Faulter, DriverBinary,
// OneShotEstopper (ROS 2's one-shot e-stop), ContactModer (the contact reflex's mode). A new action is a
// method on one role, or a role of its own, and its implementations (LiveTarget, SimTarget, ROS2Target,
// targettest.Fake; an optional role: only those that can play it).
//
// # From below the driver
//
// While the driver is gone nobody publishes the IMU. BoardIMU reads the board's own IMU frames: from the
// supervisor's raw socket (SOCKET.raw, served as long as the supervisor lives), else from the port itself,
// opened through serialport read-only, without lock or TIOCEXCL, in raw mode before the first read (a cooked
// tty would echo bytes to the board), its queued input flushed (it would be stamped late), and only while no
// process holds the port's advisory lock (/proc/locks); it lets go within 0.1 s of someone locking it (two
// readers of one tty split its bytes). The seed's raw_watch read the port directly.
//
// # Errata
//
//   - Every IMU sample (and the gamepad trigger) is timed on its receipt by the proof's clock, the triggers'
//     clock. The driver's stamps are wall-clock times that shift with a wall-clock step; they only measure
//     the delivery lag (imu.Lag), which each run reports.
//   - Root bypasses TIOCEXCL, so the direct reader relies on the supervisor's flock (serialport) to see that
//     the port is owned; a program that holds the port without a lock is invisible to it.
package target
