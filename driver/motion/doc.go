// Package motion is the board driver's pure logic: the safety gate that decides every control tick whether
// and how fast the wheels may turn (on body twists, package kinematics), wheel odometry, IMU conversion with gyro calibration
// and bias tracking, and the gamepad and board-key e-stop logic. (Charger detection is driver/charger.)
//
// Nothing here does I/O, starts goroutines or reads a clock: every time is a parameter (pass monotonic
// time.Time values, e.g. time.Now() at the moment the input arrived), every decision is a return value, and
// each type is owned by one goroutine (the driver's control loop). The driver (serial ports, processes, the
// control socket) is built on top of this package and does what the values say: write the stop frame on a
// trip, send a SourceGamepad command for a PadResult.Drive, and so on.
//
// One file per concern:
//
//	gate.go       Gate: enable, deadman, limits, ramps, latched e-stop, scan gate, two-publisher rule, input checks
//	twist.go      Limits, Source (the Twist itself and the mecanum kinematics: package kinematics)
//	pose.go       IntegratePose, WrapAngle
//	odometry.go   Odometry from the gated commanded velocity (dead reckoning)
//	gyro.go       GyroCalibrator (start-up bias), GyroBias (tracking while commanded still)
//	imu.go        accelerometer calibration, SI units, IMU covariances
//	pad.go        Pad: gamepad trip, MODE hold reset, drive-mode unlock, stick mapping
//	key.go        KeyTrip: board key events
//
// # Spec
//
// Chapter 11 of the seed ("Making it move": motion.py MotionGate, mecanum_rps, integrate_pose, gyro_bias.py,
// board_driver.py calibrate, publish_imu, publish_wheel_odom, the gamepad read-thread logic)
// and chapter 19 (the stop-path table, MODE hold). Facts and figures were carried over; the code is new.
//
// # Deliberate differences from the seed (errata)
//
//   - Enabling drops a command that arrived while the wheels were disabled. In the seed a command sent while
//     disabled stayed valid for cmd_timeout, so an enable within 0.3 s of it (even from a publisher that had
//     gone) moved the wheels; only a command that arrives after the enable moves them now.
//   - Slowing down is immediate. The seed's ramp moved toward the command symmetrically, so a commanded stop
//     (cmd_vel zero) decelerated at max_accel_linear, 0.7 s from 0.35 m/s, although the seed's own rule says
//     "speeding up is gradual, stopping is immediate". Here a lower command applies at once and a reversal
//     passes through zero; only growth is ramped. Block reasons give zero at once, as in the seed.
//   - Commands are validated: a non-finite component, or one above RejectFactor (10) times its limit, is
//     refused, counted, and stops the wheels. In the seed a NaN command became full speed: Python's
//     min(lim, nan) returns lim, so clamp(nan, 0.2) = 0.2 (checked with python3). Commands between the limit
//     and 10x are clamped, as the seed did.
//   - The ramp's time step is capped at 100 ms, so a stalled loop cannot jump to full speed.
//   - Headings wrap to (-pi, pi] (atan2 can return -pi).
//   - Gamepad MODE hold counts only time spent e-stopped (the seed counted from the press, so a hold started
//     before a trip cleared the new e-stop at once).
//   - Gamepad drive mode is designed here (the seed's modes were partly arm modes, out of scope): a double
//     press of MODE (0.6-1.5 s apart) while enabled unlocks, the same locks; any e-stop, disable or 2 s of pad
//     silence locks, and locking sends one zero command.
//
// # Known limits
//
//   - If the start-up calibration fails (robot moved), the gyro is published uncorrected and the tracker cannot
//     catch up by itself: a real bias of about -1.9 deg/s lies outside its 0.5 deg/s acceptance window. The
//     seed has the same behaviour; restart the driver with the robot still.
//   - Odometry is what the wheels were told, not what they did (no encoders); its pose covariance says so.
package motion
