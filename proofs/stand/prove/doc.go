// Package prove sequences the stand stop proof of chapter 19 (scripts/stop_proof.py prove and characterize)
// over a harness.Target, and judges each path with package stand.
//
// # A path
//
// Wait for a driver that answers (and has finished its gyro calibration: it publishes no IMU before), start
// the IMU recording (and, for kill and service, the board's IMU from below the driver), open one command
// publisher, enable, spin up for Spin (3 s) at the path's motion, apply the sim's fault if any, trigger, keep
// publishing the drive command for Hold (5 s) after the trigger (silence for the deadman), judge, clear the
// fault, then clean up on a context of its own: close the publisher, start the service again after the
// service path, wait up to 20 s for a new driver pid after kill and service (the seed lost its service path
// to a driver that was not back yet), reset, disable, settle 0.5 s.
//
// Triggers: deadman = the last command sent; estop = the e-stop request; disable = enable false; scanloss =
// SIGKILL of the LiDAR reader; kill = SIGKILL of the driver; service = the service stopped (it blocks, so it
// runs beside the commands); gamepad = the button's first frame (the target knows it; the commands keep coming
// until the press).
//
// The scan-loss path keeps commanding while the driver's scan_age (from the state watcher) goes stale and
// comes back; its stop is judged only up to the last state that still showed the scan stale, with ScanLossQuiet
// (0.5 s) of quiet needed instead of 2 (the seed's line read "over 1.4 s"), because the wheels are meant to
// turn again once the reader respawns, about 2.2 s after the kill (1.0 s would leave one judge step to spare
// on the simulator: see Options). The result line and the record state this rule with the run's own time of
// the scans' return: "(need 0.5 s quiet, not 2 s: scans back 2.27 s after the kill)". Then ReleaseCheck over the last second, every quarter second, until the
// wheels turn again by themselves (no reset, no enable), up to ReleaseWait (8 s) after the scans are back. A
// release after a stop that did not pass is not judged: wheels that never stopped are not "released".
//
// # Guards and teardown (the seed's)
//
// No driver state within 5 s: ABORT, nothing sent. Charger believed plugged in (unless AllowPlugged), another
// velocity-command publisher, or an e-stop latched before the run: ABORT, nothing sent. Wheels left enabled
// are disabled before the first path. Every path has a hard timeout (a context deadline in real time); a path
// that hits it is TIMEOUT, distinct from FAIL, and says what it was doing. The teardown runs after failures,
// timeouts and a cancelled context (Ctrl-C), on its own timeout: clear the fault, start a service a path left
// stopped, disable the wheels (retrying; the e-stop as the last resort), read the end state.
//
// # Output
//
// A progress line per path ("[3/13] disable fwd 0.2: spinning up ..."), the seed's result line
// (stand.Verdict.Line) preceded for kill and service by the line naming the IMU's source ("kill: board IMU
// read via the supervisor's raw stream from 0.00 to 5.00 s after the command"), then the IMU timing line
// (every sample is timed on receipt by the proof's clock, the triggers' clock; the driver's stamps only
// measure the delivery lag, and a stamp offset beyond 50 ms is noted), the table of stop times (path x
// motion, as chapter 19 prints it), "RESULT: N/M passed" (the scan-loss path gives two lines, as in
// the seed's 12/12) and the end state. The Report is the --json record: every measurement beside its limit.
//
// # Differences from the seed
//
//   - The e-stop is the control API's request (the seed's estop topic); names in the lines say so.
//   - The gamepad path is new: the seed could never time a button press.
//   - The kill and service paths read the board's IMU through the supervisor's raw stream when it answers: it
//     covers the spin-up and the trigger without a gap, where the seed's raw_watch began 0.04-0.10 s after
//     the command.
//   - The driver's speed limits are read from its configuration, and a motion they clip is named in a
//     warning (the code default max_linear is 0.2; "fwd 0.35" proven at 0.2 would prove something else).
package prove
