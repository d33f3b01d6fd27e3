// Package clock is the proofs' only source of time (Clock) and the wall clock (Real). Under testing/synctest
// Real is virtual, so a proof of minutes runs in milliseconds in its tests.
package clock
