// Package stand runs the stand stop proof of chapter 19 (scripts/stop_proof.py prove and characterize) over a
// target.Target and judges each path with package vibration (judge/vibration). The paths are a table (Paths, one stoppath.Spec
// each); docs/safety-case.md has what they were measured to do.
//
// # A path (the seed's)
//
// Wait for a driver that answers and has finished its gyro calibration; record the IMU (and, for a path that
// kills the driver, the board's IMU from below it); open one command publisher; enable; spin up for Spin at
// the path's motion; apply the simulator's fault if any; trigger; keep publishing the drive command for Hold
// after the trigger (silence for the deadman); judge; then clean up on a context of its own (close the
// publisher, clear the fault, start a stopped service again, wait for a new driver after a kill, reset,
// disable, settle 0.5 s). A path with Rule.ScanGate is held and judged by the scan gate's rule (see Rule).
//
// # Guards and teardown (the seed's)
//
// No driver state within StateTimeout, the charger believed plugged in (unless AllowPlugged), another
// velocity-command publisher, or an e-stop latched: ABORT, nothing sent. Wheels left enabled are disabled
// first. Each path has a hard timeout (a real-time context deadline): past it the path is TIMEOUT, not FAIL,
// and says what it was doing. The teardown runs after failures, timeouts and Ctrl-C, on its own timeout, and
// disables the wheels (the e-stop as the last resort). The guards, a path's skeleton (runcore.Path.Run, with this
// proof's hooks in step.go), its trigger side and clean-up, and the teardown are package runcore's
// (proofs/internal/runcore), shared with the floor proof.
//
// # Output
//
// A progress line per path, the seed's result line (stand.Verdict.Line), for the paths that kill the driver the
// line naming the IMU's source, the IMU timing line, the table of stop times (path x motion), "RESULT: N/M
// passed" and the end state. The Report is the --json record: every measurement beside its limit.
//
// With Options.Record every judge call is recorded with the samples it read (JudgeInput); Rejudge calls the
// same judges on a recording and compares each line with the live one (docs/reports.md).
//
// # Differences from the seed
//
//   - The e-stop is the control API's request (the seed's estop topic); the lines say so.
//   - The gamepad path is new: the seed could never time a button press.
//   - Below the driver, the supervisor's raw stream is read when it answers: it covers the spin-up and the
//     trigger without a gap, where the seed's raw_watch began 0.04-0.10 s after the command.
//   - The driver's speed limits are read from its state record, and a motion they clip is named in a warning
//     (the code default max_linear is 0.2; "fwd 0.35" proven at 0.2 would prove something else).
package stand
