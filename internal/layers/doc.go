// Package layers checks the arrows between the repository's layers on the import table that
// `go list -deps -json` prints: the judges (judge/...) use nothing but the standard library, gonum,
// protocol/..., kinematics, scanmatch and one another, so the driver can judge its own stops; no driver/...
// package reaches proofs/..., sim/..., ros2/... or the test kits; no command links a test kit. The arrows
// that still run the wrong way are listed in Exceptions, exactly, to be emptied.
//
// Check is pure (an import table in, violations out); the test feeds it the real table, with and without the
// ros2 build tag, and synthetic tables with forbidden edges as its negative controls. Only non-test imports
// count: a test may import what it needs to build its fixture (scanmatch's and the judges' tests use sim,
// judge/contact's closed loop uses driver/motion's gate).
package layers
