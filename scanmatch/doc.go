// Package scanmatch is LiDAR odometry for the robot's COIN-D6 scans: successive 400-bin scans in, the base
// pose (x forward, y left, yaw counter-clockwise) relative to the first scan out, with the motion since the
// previous scan, a covariance, and a degeneracy flag naming the direction the scan cannot see. It is a pure
// package (no I/O, goroutines or clocks: time comes in with each scan's stamp) so that the floor proof, the
// driver's contact reflex and `capture odom` share it.
//
// The method (docs/scanmatch.md has the reasoning, the anchors and the measured figures):
//   - Point-to-line ICP (Censi's PL-ICP, as in laser_scan_matcher) against a keyframe, not the previous
//     scan, so that a still robot does not drift; a new keyframe only after 0.2 m or 0.6 rad of motion or
//     when under 70 % of the valid points still find a correspondence.
//   - Projective association: a point looks only at the keyframe points in the bearing cells around its
//     own (bin order, as rf2o and Hector exploit it), then at the line fitted through that point's bin
//     neighbours. Residuals are weighed by 1/cos^2 of the incidence (the range noise lies along the ray)
//     and by a Huber kernel; a gate that halves from 0.3 m to 3 cm trims the rest.
//   - Gauss-Newton steps of our own (gonum's optimize has none) on (x, y, yaw x lever), each solved through
//     the eigen-decomposition of the 3x3 Hessian (LAPACK dsyev via gonum's lapack64, the routine behind
//     mat.EigenSym, with the work space allocated once). A direction whose information per correspondence
//     is under Config.DegenerateInfo is not stepped, is flagged degenerate, and gets DegenerateVariance.
//   - The gyro rate and the previous velocity only seed the first step and the de-skew; the cost has no
//     prior term (rf2o's
//     velocity filter and Cartographer's prior residuals pull weakly seen directions toward the prediction:
//     the likely cause of rf2o reading a 15 cm strafe as 1.1 cm).
//   - De-skew: each ray is moved to the base frame at mid-sweep (Estimate.Time) by the constant velocity,
//     first the predicted one, then the one the match implies, through a small deadband so that a still
//     robot's velocity noise does not bend its scans; a keyframe is de-skewed once more when the next scan
//     shows the motion after it. With a gyro stream (Odometry.AddGyro) each ray's yaw comes from the gyro
//     integrated to its time instead, and the pair's first guess from its integral; its bias is learned
//     while still, and a scan it does not cover, or whose match it contradicts, goes without it.
//   - The blind rear and the self-returns are masked by Config.Mask (base bearings 112-248 degrees), and
//     returns outside the scan's range limits are ignored as coind6.Scan documents.
//
// After New, Add allocates nothing (on success); see the benchmarks.
//
// Errata and limits:
//   - A degenerate direction is dead-reckoned with the previous velocity: in a featureless corridor the pose
//     along it is a prediction, never a measurement. Ask Estimate.Observable before judging a direction.
//   - Per scan pair the planar error's p95 is about 2.1 mm (1.6 mm per axis) in the sim's default room with
//     its 6 mm range noise, 1.96-2.01 mm with the gyro; the Cramer-Rao bound is 1.85 mm for the same pairs
//     and 1.6-1.95 mm standing (TestInformationBound), so the 2 mm target leaves little room.
//   - The origin is where the first scan says the walls are: its own noise (about 1.5 mm) stays as an
//     offset of every later pose.
package scanmatch
