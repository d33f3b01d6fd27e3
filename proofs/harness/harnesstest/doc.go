// Package harnesstest fakes a robot behind harness.Target for the proofs' unit tests: a tiny model of the
// driver's gate (enabled, latched e-stop, 0.3 s deadman, 0.5 s scan gate, two-publisher rule), of the
// supervisor (a killed driver is followed by a stop and a disabled restart 0.6 s later; a killed LiDAR reader
// respawns 2 s later) and of the stand (one wheel speed with the sim's 0.22 s lag; gyro x/y noise that grows
// with the wheel speed as the sim's fit of chapter 19). Options break it on purpose: a board that ignores
// stops, calls that hang, a reader that never respawns, a charger plugged in, another publisher.
//
// The fake has no goroutines: every call first advances the model to the clock's now at the IMU's 110 Hz.
// Run it under testing/synctest with harness.RealClock: the clock is then virtual, a proof of minutes runs in
// milliseconds, and no scheduling hiccup of a loaded machine can open a gap between two commands.
package harnesstest
