// Package floor runs chapter 19's floor stop proof (stop_proof_floor.py look and prove) over a
// target.Target that streams LiDAR scans (target.ScanFollower) and judges each leg with package odometry (judge/odometry). The
// legs are a stop-path table (Paths, one stoppath.Spec each, the chapter 19 triggers through
// stoppath.Firing); docs/floor.md has the rules, the sim's figures and how they compare with the robot's.
//
// # A leg
//
// Wait for a driver; check before any publisher exists: measured odometry (an estimate under 0.5 s old),
// the odometry able to see motion along the leg (else NOT RUN: a degenerate direction is never judged), for
// a forward leg or a strafe the corridor (floor.CheckCorridor, else NOT RUN with the nearest return and the
// valid share), for a backward leg floor covered by forward legs just before (the rear is blind), for a turn
// nothing within the half width. Then open one publisher, enable, drive for Leg, apply the simulator's fault,
// trigger, keep commanding (silence for the deadman) for Hold, judge (floor.JudgeStop from the odometry,
// floor.JudgeTurn from the gyro; for kill and service the wheels' stop from the board's gyro vibration below
// the driver and the travel from the odometry across the restart, floor.AcrossGap), and clean up.
//
// # Hold paths
//
// The stand's six hold paths (issue 34, "no motion without a deliberate act"; 'holds' names them, 'all'
// leaves them out) at fwd 0.1, in hold.go: drive the leg, trigger, complete the event with the publisher
// commanding (runcore.Path.CompleteEvent), judge a still window with judge/still (the board's frames, the
// odometry's speed, the gyro's |z|; the board's gyro from below the driver when the event replaced it), then
// the deliberate act (runcore.Path.Resume) and judge/ramp, and disable at once. Two lines per leg.
//
// # Live rules
//
// One odometry runs over the whole run on the proof's goroutine, fed by a goroutine that follows the scans.
// On every scan: the guard while moving (anything within 0.45 m in the direction of travel: every stop
// fires, ABORTED, the proof ends); after the trigger, still moving 0.8 s after it or moving again after it
// was still: every stop fires at once (silence, e-stop, enable false), the leg FAILs and the proof stops
// itself (STOPPING THE PROOF: a stop failed). Plugged in, no driver state, another publisher or no odometry
// at the start: ABORT, nothing sent. The teardown always disables the wheels. The guards, a leg's skeleton
// (runcore.Path.Run, with this proof's hooks in leg.go), its trigger side and clean-up, and the teardown are
// package runcore's (proofs/internal/runcore), shared with the stand proof.
//
// # Differences from the seed
//
//   - The odometry is package scanmatch (LiDAR, every direction), not rf2o and the camera; strafes and
//     0.35 m/s are new legs, and so is the gamepad path.
//   - The scans reach the proof through the driver: while it is gone (kill, service) there are none, so
//     those two legs time the wheels' stop from the board's gyro, as the stand proof does.
package floor
