// Package still judges the first half of issue 34, "no motion without a deliberate act": through an event (an
// e-stop reset, a driver or service restart, a USB drop, a board reset, a deadman timeout) with a velocity
// publisher still running, the wheels must stay still until someone deliberately enables them. Judge answers
// "the whole window stays still; the first motion, if any, timed and named".
//
// It is one of the judges (judge/...), below both driver/ and proofs/: pure, the standard library, gonum and
// judge/vibration only, no clock, no I/O, no goroutine (internal/layers checks it). Times are float64 seconds on
// one timeline that the frames, the samples and the hold share, as in judge/vibration.
//
// # Evidence
//
//   - What the board was told: Frame, the body velocity of each motor frame the board received (a capture or
//     the simulator's record) or that the driver reports it wrote. The board has no motor watchdog and keeps
//     the last frame forever, so the frames are a sample-and-hold signal: the command at t is the last frame
//     at or before t. A frame at or before the start of the hold is therefore needed (what the board held
//     when the hold began); a caller that knows the board's state without one (just reset: zero) adds a frame
//     saying so. A silence is not a hole when the frames are a complete record of what the board received
//     (Params.MaxFrameGap 0); when they are a sampled report, set MaxFrameGap and a longer silence is one.
//   - What moved, measured (optional): on the stand, gyro samples scored with judge/vibration's windows
//     (WindowsBetween, the 0.0035 rad/s threshold, MinSamples); on the floor, Speed samples (the LiDAR
//     odometry's speed in m/s, or |gyro z| in rad/s) with their own threshold and largest gap. Both may be
//     given; both are judged.
//
// # Outcomes
//
// PASS: no frame in [from, to] commands motion (any component above Params.Epsilon) and every measured
// window or sample is below its threshold, with no hole in the evidence. FAIL: the first motion, at the board
// and/or measured, timed and named; a motion is a finding even when the evidence also has a hole. NOT RUN: the
// robot was already moving at the start of the hold (the frame held at from, or the first measured window),
// so the hold proves nothing; a motion the board is told later in that first window is a FAIL, not a NOT RUN.
// NO DATA: too few samples, a gap, non-finite numbers, frames that do not reach back to the start: a hole in
// the evidence is never a PASS. The zero Outcome is FAIL.
//
// # Why Frame lives here
//
// judge/ramp judges the frames after the enable and imports this package for Frame, Outcome and their words:
// the still judge is the more basic of the two (ramp checks "nothing before the command" the same way), and a
// third package for one struct would be a layer with nothing in it. No cycle: still never imports ramp.
//
// # Sources
//
//   - ISO 3691-4:2023 (driverless industrial trucks) and IEC 60204-1 §9.2.5.4: resetting a stop must not by
//     itself restart motion; restart needs a deliberate act.
//   - Clearpath's zero_speed_command_hold_test (the ROS cmd_vel hold tests): after a deadman stop, the wheels
//     stay at zero while zero commands keep coming; judge/ramp covers its burst half.
//   - The vibration threshold and windows: judge/vibration (chapter 19's stop_proof.py).
//
// # Errata
//
//   - A loud first gyro window can be the tail of the motion that the event stopped (the wheels spinning
//     down): that is NOT RUN, not FAIL. Start the hold once the stop proof has shown the wheels still.
//   - The measured first motion is the end of the first loud window (up to one Window late); the board's first
//     motion is the frame's own time.
//   - Speed samples are judged one by one, without windows: the floor's odometry speed is already a 0.3 s
//     slope (judge/odometry).
package still
