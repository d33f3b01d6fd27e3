// Package envelope is the stopping envelope of issue 33: from a floor campaign's results for one stop path in
// one direction at several speeds, the stopping distance and time against speed with their bounds, a fit of
// distance against speed, the driver's speed limit for a clearance, and the configuration of the layers that
// must stop the robot in time (Nav2 Humble's collision monitor and velocity smoother).
//
// It is one of the judges (judge/...), below both driver/ and proofs/: pure, the standard library and gonum
// only, no clock, no I/O, no goroutine (internal/layers checks it). The YAML is written as text, not through
// a YAML library, to stay inside that rule; the tests read it back with gopkg.in/yaml.v3.
//
// # Input
//
// Per tested speed: each run's travel after the trigger and time to still, optionally each run's response time
// (trigger to the first decelerating frame at the board), and the campaign's bounded distance and time (the
// tolerance bound at R and C: proofs/campaign computes them, this package takes them as numbers).
//
// # The model
//
// d(v) = t_r·v + v²/(2a): the response distance plus the braking distance, SICK's "stopping distance = braking
// distance + response distances" of the controller and the sensor, with one response time t_r for both. It is
// linear in (t_r, 1/(2a)), so FitDistance is a linear least squares over the regressors v and v² with no
// intercept (gonum's QR), constrained to t_r >= 0 and a > 0 (what it does when the free fit breaks them: its
// doc). It is fitted twice: over the bounded distances (Envelope.Bound, what the configuration uses) and over
// every run (Envelope.Runs, whose residuals show the scatter).
//
// # Never extrapolated
//
// Distance and Time answer only inside [slowest, fastest] tested speed and refuse outside with
// ErrExtrapolate; SpeedLimitFor answers only tested speeds. ISO 3691-4 asks for the stop within the detection
// range in the worst condition of speed, floor and load: a speed nobody tested is not a condition anybody
// measured, and v² grows faster than any straight line through the tested points.
//
// # Sources
//
//   - SICK's protective-field sizing: stopping distance = braking distance + the controller's and the sensor's
//     response distances; ISO 3691-4: the stop within the detection range in the worst condition.
//   - Nav2's collision monitor: docs.nav2.org "Collision Monitor Node" configuration guide (parameter names;
//     min_points is Humble's max_points + 1) and "Using Collision Monitor" tutorial ("max_points: 3 for
//     Humble"); the Humble branch's nav2_collision_monitor polygon.cpp (points as a flat double array of at
//     least 4 vertices; an approach polygon reads footprint_topic and no points).
//   - Nav2's velocity smoother: docs.nav2.org "Velocity Smoother" (max_decel [x, y, theta], negative).
//
// # Errata
//
//   - The exported zones use the bounded distance and time measured at the fastest tested speed, never the
//     fit: the fit is for reading the envelope, the bound is the evidence.
//   - R² of a model without intercept is computed about the mean (1 - SSE/SST), as a straight line's would be.
//   - The footprint is the caller's: the toolkit does not know the body. The seeds give no footprint (the floor
//     seed's corridor uses a half width of about 0.15 m and the sim a 0.15 m radius); the tests and the example
//     use a 0.25 x 0.20 m rectangle, an assumption.
//   - Nav2 Humble's approach polygon ignores points and reads footprint_topic (CollisionMonitorYAML's doc).
package envelope
