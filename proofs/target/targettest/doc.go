// Package targettest fakes a robot behind target.Target for the proofs' unit tests: the driver's own gate
// (driver/motion: enabled, latched e-stop, deadman, scan gate, ramps, limits, two publishers) on the sim's
// stand (package sim's IMU rate, wheel lag, gyro noise and vibration fit, kinematics), with a supervisor in
// miniature (a killed driver is followed by a stop and a disabled restart; a killed LiDAR reader respawns).
// Options break it on purpose: a board that ignores stops, calls that hang, a reader that never respawns, a
// charger plugged in, another publisher, a lower max_linear.
//
// The fake has no goroutines: every call first advances the model to the clock's now at the IMU's rate. Run
// it under testing/synctest with clock.Real: the clock is then virtual, a proof of minutes runs in
// milliseconds, and no scheduling hiccup of a loaded machine can open a gap between two commands.
package targettest
