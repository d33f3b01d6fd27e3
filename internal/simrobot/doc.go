// Package simrobot is the one robot starter of the tests and of the proofs' --sim targets: it starts the
// simulated robot (package sim, in this process) and `rosorin-base run` against it as a child process (Start),
// or `rosorin-base run` alone on given board and LiDAR devices (StartService); it writes the driver's
// parameter files (WriteConfig, with the one robot configuration RobotConfig), waits until a readiness
// condition on the driver's state holds (a driver process, a live board link, fresh scans; never a sleep),
// and tears everything down again, with the tail of the service's log in every error a person reads.
//
// It imports no test package, so that non-test code (proofs/target's SimTarget, behind stopproof --sim) runs
// the same engine as the tests; internal/stacktest holds the testing.TB wrappers (New, NewSim) and the
// race-widened waits. Nothing shipped may link a test kit, and this is none: it builds no binary (the caller
// names it) and widens no bound by itself (Options.Widen).
//
// Errata: a service whose output goes to a file (Options.Log an *os.File) writes it directly, not through a
// pipe into this process, so that it can still log its stop path when this process has died (the proofs'
// parent-death SIGINT); its log tail is then read back from the file.
package simrobot
