//go:build race

package testkit

// RaceEnabled is true when the tests run under the race detector.
const RaceEnabled = true
