// Package ramp judges the second half of issue 34, "no motion without a deliberate act": after the deliberate
// enable at E, the wheels move only for a command sent after it (first sent at C), and only through the ramp
// from zero: no stored speed coming back, no burst, and the resume does happen. Judge answers "after the
// enable, the wheels move only for a command sent after it, and only through the ramp from zero".
//
// It is one of the judges (judge/...), below both driver/ and proofs/: pure, the standard library and
// judge/still only, no clock, no I/O, no goroutine (internal/layers checks it). Times are float64 seconds on one
// timeline that the frames, the samples, E and C share.
//
// # The checks (each named in the verdict when broken)
//
//   - before: no frame the board holds in [E, C) commands motion: "moved before any command after the enable".
//   - ramp: at t >= C each axis |v| <= accel x (t - C + Tick + TimeTol): the gate grows a speed by accel x dt per
//     control tick (driver/motion Gate.Step; 0.5 m/s² and 2.0 rad/s², motion.DefaultLimits and driver/config),
//     the first growth lands up to one tick after the command, and TimeTol (0.05 s) absorbs the timeline's
//     jitter. A speed above it is a stored speed: "jumped to 0.20 m/s forward 0.02 s after the first command:
//     the ramp allows 0.045 m/s: a stored speed".
//   - burst: each axis stays between zero and the target, TargetTol beyond either: above the command or in the
//     wrong direction is a burst.
//   - reach: every axis comes within TargetTol of the target by C + ramp time + Tick + TimeTol + ReachSlack
//     (0.5 s): a hold that never resumes is not a pass of the ramp. A record that ends before that deadline
//     without reaching it is NO DATA, not FAIL.
//   - accel (optional, the floor): measured body acceleration from the IMU, per horizontal axis, over
//     [E, min(To, reach deadline)], at most MaxAccelLinear x AccelFactor + AccelNoise.
//
// The zero-after-timeout case (Clearpath's zero_speed_command_hold_test: after a deadman stop, a zero command
// then a small one must not give the 0.10-0.15 m/s burst) is the same call: Target is the small command, C its
// first send, E the moment the deadman stop ended (or C itself).
//
// # Shared types
//
// Frame and Outcome are judge/still's: the ramp checks "nothing before the command" as still checks its hold,
// both read the board's frames as sample-and-hold, and one Outcome type keeps a proof's records in one
// vocabulary. still does not import ramp, so there is no cycle, and no third package exists for one struct.
//
// # Sources
//
//   - ISO 3691-4:2023 and IEC 60204-1 §9.2.5.4: no restart without a deliberate act, and the restart itself
//     must not surprise (the ramp).
//   - Clearpath's zero_speed_command_hold_test: the burst after a deadman stop.
//   - driver/motion's Gate.Step: "speeding up is gradual, every stop is immediate".
//
// # Errata
//
//   - Target must be what the gate can reach: the command clamped to the robot's speed limits (0.2 m/s,
//     1.0 rad/s by default); an unclamped target above the limit reads "never reached".
//   - To must come before the command changes (or stops): the judge follows one command.
//   - The gate caps one tick's ramp step at a 100 ms slice (after a stalled loop): such a step, 0.05 m/s at
//     0.5 m/s², is above this judge's first-tick allowance (0.045 m/s with the defaults) and reads as a stored
//     speed. That is deliberate: a first step after the enable that large is a finding worth a look.
//   - Accel samples should be filtered by the caller (a 0.1 s mean, say): raw mecanum roller vibration on a
//     floor is far above AccelNoise.
package ramp
