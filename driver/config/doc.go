// Package config loads the board driver's configuration from YAML files in the ROS 2 parameter-file shape:
//
//	rosorin_board_driver:
//	  ros__parameters:
//	    max_linear: 0.35
//
// so the robot's existing config/imu_calibration.yaml and config/arm_limits.yaml (chapter 11) load unchanged.
// Several files are applied in order onto Default(), a later file winning key by key, as ROS applies
// parameter files. Default() is chapter 11's parameter table (the code defaults; the robot runs max_linear
// 0.35 from arm_limits.yaml) plus the LiDAR reader's launch values from chapter 14.
//
// What Load does with each key:
//
//   - a driver parameter: type-checked (a wrong type is an error naming file, line and key) and set;
//   - an arm parameter (drive_pan, arm_*, servo ids, poses, ...; chapters 12-13, out of scope): ignored, with a
//     Note (not a warning: arm_limits.yaml is expected to carry them);
//   - anything else: ignored with a warning Note, with the closest known key when it looks like a typo (a typo
//     silently keeps the default, which for a speed limit matters);
//   - sections of other nodes are noted and ignored; "/rosorin_board_driver" and the ROS wildcard "/**" are
//     read as the driver's section.
//
// After merging, every value is range-checked (Validate): the deadman cannot be turned off or set above 2 s,
// the limits must not ask a wheel for more than the board's 5 rps in a diagonal turn, and so on. All errors are
// reported at once.
//
// # Errata and differences from ROS
//
//   - ROS refuses an integer for a double parameter (max_linear: 1); this loader accepts it as 1.0.
//   - Keys nested under a parameter (ROS's dotted names) are only recognised as arm keys; the driver has no
//     nested parameters.
//   - The arm's exact key list is not in the seeds; arm keys are recognised by name (see IsArmKey). The test
//     file testdata/arm_limits.yaml is representative, not a copy of the robot's file.
//   - Lidar parameters live in the driver's section here (lidar_device, lidar_frame_id, ...): one process tree
//     owns both ports. The seed's reader was a separate ROS node with its own names (device, frame_id).
package config
