// Package breakrule is the switchboard of the hold proofs' negative controls: safety rules that a test-only
// build of the driver breaks on purpose, so that each "stays still" proof can be shown to FAIL, naming the
// motion, when its rule is broken.
//
// A normal build has none of it: On is a constant false and the compiler drops every branch behind it. Only a
// binary built with the build tag rosorin_breakrule reads the environment variable ROSORIN_BREAK_RULE (a
// comma-separated list of the names below) at start; such a binary says so on stderr and must never run a
// robot. docs/safety-case.md ("No motion without a deliberate act") has the rules and the proofs.
package breakrule

// The rules a test build can break.
const (
	// KeepRamp: the gate's ramp keeps its speed over a stop and slows down as gradually as it speeds up (a
	// symmetric rate limiter): after a deadman stop, a zero command then a small one give a burst at the old
	// speed, and every release resumes at the old speed (Clearpath's zero_speed_command_hold bug).
	KeepRamp = "keep-ramp"
	// SelfEnable: a reset enables motion again, and a driver started after a crash, a USB return or a
	// service restart starts enabled, ignoring the restart latch.
	SelfEnable = "self-enable"
	// BoardResume: the driver does not latch the e-stop when the board falls silent (a firmware reset or
	// hang), so the wheels take the last command again when the board comes back.
	BoardResume = "board-resume"
)

// Names lists every rule a test build can break, for the help and the parser.
var Names = []string{KeepRamp, SelfEnable, BoardResume}

// Env is the environment variable a rosorin_breakrule build reads.
const Env = "ROSORIN_BREAK_RULE"

// Tag is the build tag that compiles the switchboard in.
const Tag = "rosorin_breakrule"
