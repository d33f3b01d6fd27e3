// Package contact is the contact reflex's decision: the wheels are commanded to move, and the sensors that
// see the room say the robot is not moving. The robot has no bumpers and no wheel encoders, so this
// disagreement is how it knows it has run into something (or is held, or stuck).
//
// It is pure: the gated command that reached the wheels, the gyro and the LiDAR odometry (package
// scanmatch) come in with their times; decisions and a status come out. No I/O, goroutines or clocks. It is
// one of the judges (judge/...), below both driver/ and proofs/: the standard library, kinematics and
// scanmatch only (internal/layers checks it). The driver runs the matcher off its control loop and feeds
// this package from the loop (driver/contact.go).
//
// Spec: chapter 19's behavior/contact_monitor.py, on_rf2o: the command delayed by LAG 0.2 s (odometry lags
// it), velocities averaged over WIN 0.3 s, judged only when the command has been at least V_MIN 0.08 m/s
// for SETTLE 0.5 s, a stall when the measured motion along the commanded direction is under RATIO 0.15 of
// the command, and a contact when the stall lasts HOLD 0.3 s. docs/contact.md has the figures.
//
// Errata (differences from the seed):
//   - Sideways commands are judged too: our odometry sees strafe (the seed's rf2o did not, and without the
//     camera the seed judged only forward and backward commands).
//   - A direction the odometry cannot see (scanmatch Estimate.Observable false: a corridor) is no evidence
//     of a stall: the monitor says it cannot judge, and does not.
//   - Turning commands (|wz| >= WMin, 0.3 rad/s) are judged with the gyro z, which sees rotation directly.
//   - No odometry for OdoStale while commanded is reported as "cannot judge" (the seed fell silent); the
//     scan gate stops the wheels in that case.
//   - The contact latch is the driver's e-stop and is cleared only by reset; nothing clears it
//     automatically (the seed's mind cleared it).
//   - The camera is not used.
package contact
