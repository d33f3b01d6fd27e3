// Package stoppath describes stop paths as data, for every stop proof (the stand proof in proofs/stand,
// the floor proof in proofs/floor): one Spec per path (its name, labels, the motions it runs at and its place in the
// schedule, whether it kills the driver or stops the service, its trigger, its release line if any, and the
// proof's own judging rule as a type parameter) drives parsing, scheduling, the runner, the report and the
// help. Adding a path is one table entry (in the table of each proof that runs it: proofs/stand/paths.go,
// proofs/floor/paths.go) plus its trigger function; only a trigger that needs an action no target role has
// adds one method on one role of proofs/target (or an optional role) and its implementations.
// TestANewPathRunsEndToEnd keeps this true: a path made in the test runs through both proofs on
// targettest's fake with nothing else changed.
//
// The triggers of chapter 19's paths (Silence, EstopRequest, EnableFalse, KillLidarReader, KillDriver,
// StopService, PressButton) act through Firing, which each proof implements over its own runner, so a floor
// proof reuses them with its own motions and judge.
package stoppath
