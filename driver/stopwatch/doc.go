// Package stopwatch times the driver's own stops in service (issue 35): for every stop the driver makes it
// measures the time from the trigger to still and, on the floor, the travel after the trigger, with the same
// pure judges the proofs use (judge/vibration, judge/odometry), and builds one api.StopRecord per stop.
//
// It is pure logic: no goroutine, no I/O and no clock read. Every call passes its instants, which must come
// from the driver's monotonic clock (time.Now carries it); the wall time is only copied into the record.
// A Watch is owned by one goroutine (the control loop); it has no lock.
//
// # What it follows
//
//   - The stand proof (proofs/stand): vibration.Judge over the board gyro (SampleFromBoard, deg/s to rad/s)
//     from SpinWindow before the trigger to the window's end. "Still from" is its StillFrom.
//   - The floor proof (proofs/floor leg.go judge, odo.go samples): odometry.JudgeStop over the LiDAR
//     odometry's estimates, Observable asked along the commanded direction (vx, vy); odometry.JudgeTurn over
//     the gyro's z for a turn. Still after and travel are theirs.
//   - The record: api.StopRecord. StillS is the LiDAR odometry's on the floor (estimates around the
//     trigger) and the vibration judge's without odometry; a note always says which, and gives the other.
//   - The window after the trigger is vibration MaxStop + NeedQuiet + Step (4.05 s with the defaults), not
//     the 3 s first suggested: the stand judge needs 2 s of quiet after a stop that may take up to 2 s, so
//     a shorter window would fail stops within the limit.
//
// # Cost outside a stop
//
// IMU, Odo and Commanded only write fixed rings (no allocation); the judges run only in Poll, for stops
// whose window has ended. While a stop is being timed the samples are also appended to a recording whose
// capacity is kept for the next stop.
//
// # Errata
//
//   - The velocity "at the trigger" is the last one Commanded reported; if the driver already told the board
//     zero in the tick of the trigger, a non-zero command up to Params.Recent before it is taken instead.
//     After Trigger, Commanded must report what the board is told (zero): any non-zero command ends the
//     window (motion again).
//   - A kill stop is timed by the next driver, which has no samples from before the crash: unless the caller
//     passes them (it cannot here), such a record says "no data".
//   - Seq, Boot, Limit and Level are left empty: the stop log and the monitor fill them.
//   - A turn on the floor is judged from the gyro's z (StillFrom "gyro z"), as the floor proof does; a
//     value api.StopRecord's comment does not list.
package stopwatch
