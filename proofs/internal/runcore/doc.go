// Package runcore is the part of a stop proof's run that the stand proof (proofs/stand) and the floor
// proof (proofs/floor) share: the run's set-up and its record's common fields (Head, States, Ending),
// the guards before anything is sent, the driver waits, one path's step skeleton (Path.Run: wait, reset,
// record, publish, enable, drive, fault, trigger, hold, judge, release), its trigger side (Path, the
// stoppath.Firing both proofs hand to chapter 19's triggers) and its clean-up, the teardown that disables
// the wheels, and the summary's last lines.
//
// It is a package of its own, not part of proofs/target, because it is proof policy, not the robot:
// proofs/target says what can be done to a driver (enable, e-stop, record), this package says in which order
// a proof does it and what it writes down, the same for both proofs. It is internal because its shape follows
// those two runners (the scan-gate check takes only DriverBin); a third proof that needs more should move it
// out.
//
// Where the two proofs differ on purpose, the caller says how: the guards' words (Guards), a step's words
// and hooks (Leg: the floor's checks before the publisher, each proof's drive, hold and judge), the sleep
// that takes in the floor proof's scans between polls (Run.Sleep), the abort's error (Run.Aborted), what a
// path lets go of before its recordings close (Path.OnClose). Everything else is one code path: a change here
// changes both proofs.
package runcore
