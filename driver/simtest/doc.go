// Package simtest holds the end-to-end tests of rosorin-base against the simulated robot (package sim): the
// chapter 11 stand suite (driver/standtest), the stop timings, bad input and device faults, with nothing faked
// in between. It has no code of its own; everything is in its _test files.
//
// TestMain builds the rosorin-base binary once (testkit.Binary). The tests start sim.Start in-process (World
// "stand") and `rosorin-base run` against it as a child process (supervisor, driver child, LiDAR reader child),
// with max_linear 0.35 as on the robot, through the shared fixture internal/stacktest, which returns once the
// driver's state says a driver runs, the board link is live and scans are fresh. One such stack is shared by the tests whose state can be put back
// (faults off, e-stop reset, motion disabled, scans fresh); the SIGINT test starts its own. They talk to the
// driver only through driver/api's Client, as any program would.
//
// Motion is judged from the sim alone: its record of every frame the board received with its arrival time
// (sim.Received) and its ground truth (wheel targets and speeds). Every frame a test's stretch of time produced
// must be a four-motor speed frame with finite speeds no larger than the configured limits allow
// (standtest.MotorSpeeds). The driver's state record is read only for what the sim cannot know: readiness, the
// counters of dropped input, the e-stop reason and the gamepad mode. Device return times come from the sim's
// truth file events ("board device back", "LiDAR device back"). The frame judge and the truth judge "wheels
// stopped" (standtest.MotorSpeeds, standtest.WheelsStopped) have negative controls in judges_test.go. The
// tests run under -race as well, with their waits and bounds widened by testkit.Bound; the figures they log
// are in docs/supervisor.md.
//
// Spec: issue 4, "What must be shown"; chapter 11 (the stand checks).
//
// Errata and limits:
//   - Which sign of LY is "stick forward" on the real pad is not in the seeds; the driver treats LY > 0 as
//     forward (TestPadDriveSticksTurnWheels and the stand suite's gamepad case push LY > 0).
//   - With to-board corruption a frame whose bytes were hit twice can still pass CRC-8 (about 3 in 1000
//     two-byte flips of a motor frame do): such a frame is not the driver's. Inside a corruption window,
//     where the driver only sends forward frames ([a, a, -a, -a]), a frame of another shape is counted and
//     logged as damaged in transit; a frame of the forward shape is still checked strictly.
package simtest
