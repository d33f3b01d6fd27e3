// Package imu is what the proofs judge: gyro samples timed on receipt by the proof's clock (Sample, with the
// Source they came from), a recording of a stream in progress (Recording, Recorder) and the delivery lag of
// the driver's stamps behind receipt (Lag).
package imu
