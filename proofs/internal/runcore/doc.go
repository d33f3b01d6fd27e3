// Package runcore is the proofs' one engine: the stand proof (proofs/stand), the floor proof
// (proofs/floor), characterize (proofs/stand) and the scan-gate check (proofs/scangate) run on it.
//
// Engine is the one clock and the two loops: Engine.Drive, the only place that sends commands on a schedule
// (every path's drive, hold and release, a trigger's wait, a take-over's zero commands, characterize's
// phases), and Engine.Poll, the only place that reads the driver's state on a schedule (the guards' wait,
// WaitDriver, the state watcher, the end state, the contact reflex's wait, the scan-gate check's settle and
// watch).
//
// On top of it, the part of a stop proof's run that the stand and the floor proof share: the run's set-up
// and its record's common fields (Head, States, Ending), the guards before anything is sent, the driver waits, one path's step skeleton (Path.Run: wait, reset,
// record, publish, enable, drive, fault, trigger, hold, judge, release), its trigger side (Path, the
// stoppath.Firing both proofs hand to chapter 19's triggers) and its clean-up, the teardown that disables
// the wheels, and the summary's last lines.
//
// It is a package of its own, not part of proofs/target, because it is proof policy, not the robot:
// proofs/target says what can be done to a driver (enable, e-stop, record), this package says in which order
// a proof does it and what it writes down, the same for every proof. It is internal: its users are the proofs
// under proofs/.
//
// Where the two proofs differ on purpose, the caller says how: the guards' words (Guards), a step's words
// and hooks (Leg: the floor's checks before the publisher, each proof's drive, hold and judge), the work
// the engine does while it waits on the proof's goroutine (Engine.TakeIn: the floor proof's scans; the time
// is the clock's alone), the abort's error (Run.ErrAborted), what a path lets go of before its recordings
// close (Path.OnClose). Everything else is one code path: a change here
// changes both proofs.
package runcore
