// Package doctor is the robot's bring-up check (`rosorin-base doctor`): each check in the order a person
// would look (the board's device, permissions, who holds the port, the board talking, the LiDAR, the driver
// service, ROS 2, the clock, the disk) gives PASS, WARN or FAIL with what it measured and, for anything short
// of PASS, the fix. The doctor only listens: it opens the board read-only and never writes a frame.
//
// Exit codes follow the proofs: 0 nothing failed (warnings allowed), 1 a check failed, 2 the doctor could not
// run. docs/doctor.md has the checks' thresholds and where they come from.
package doctor
