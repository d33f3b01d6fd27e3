// Package odometry holds the judges of chapter 19's floor stop proof (stop_proof_floor.py): pure functions of
// the robot's measured motion (LiDAR odometry from package scanmatch, the gyro's z) and of one LiDAR scan, no
// I/O and no clock. It is one of the judges (judge/...), below both driver/ and proofs/: the standard library
// and gonum only (internal/layers checks it). The runner that drives the legs is proofs/floor;
// docs/floor.md has the rules' origins and the measured figures.
//
// The rules and numbers are the seed's (Params): moving is at least 0.04 m/s measured over 0.3 s; turning is
// gyro z of at least 0.08 rad/s; a forward leg needs a corridor of half width 0.30 m clear for 1.2 m with at
// least 60 % valid beams; anything within 0.45 m in the direction of travel while moving stops everything
// (ABORTED); a robot still moving 0.8 s after a trigger means the stop failed (every other stop fires); a
// robot that moves again after it was still fails too.
//
// What is new: the speed over a window is the least-squares slope of the odometry's positions against time
// (gonum stat.LinearRegression), and the odometry's degeneracy is part of every sample: a window whose
// motion along the judged direction the scans cannot see is never "still" - the judge refuses (NOT JUDGED).
//
// Errata: the odometry's samples are timed at mid-sweep by the runner from their receipt (receipt minus half
// a revolution), so the delivery lag of a scan (a few ms in the sim) counts into "still after".
package odometry
