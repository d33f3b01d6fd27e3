package imu

import (
	"fmt"
	"time"
)

// Source says where IMU samples came from.
type Source uint8

const (
	SourceDriver Source = iota // the driver's IMU stream (calibrated, rad/s)
	SourceRaw                  // the board's frames passed through by the supervisor (raw socket)
	SourceDirect               // the board's frames read from the port itself
)

// String names the source as the result line says it.
func (s Source) String() string {
	switch s {
	case SourceDriver:
		return "driver"
	case SourceRaw:
		return "raw"
	case SourceDirect:
		return "direct"
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// Sample is one gyro reading on the proof's clock.
type Sample struct {
	// At is the sample's receipt by the proof, on the proof's clock (the judge's timeline).
	At time.Time
	// Stamp is the driver's own stamp (its wall clock) for SourceDriver, zero for the others. It is never
	// used as the sample's time, only to measure the delivery lag (Lag).
	Stamp  time.Time
	Gyro   [3]float64 // rad/s
	Source Source
	// Where names the port or socket for SourceRaw and SourceDirect ("/dev/ttyACM0").
	Where string
}

// Recording is an IMU recording in progress.
type Recording interface {
	// Samples returns a copy of everything recorded so far, in arrival order.
	Samples() []Sample
	// Err says why the recording ended (nil while it runs or after Close).
	Err() error
	// Close stops the recording and waits for its goroutines. Idempotent.
	Close() error
}
