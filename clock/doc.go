// Package clock is the module's one time seam: every package reads the time, waits, ticks and arms timers
// through its interfaces (Clock: Now and Sleep; Timers: Now, tickers and precise timers; Full: all of them and
// After), and Real is the wall clock behind them all. Real's NewTimer is the driver's precise timer (timer.go:
// microseconds late instead of the runtime's millisecond). Under testing/synctest Real is virtual (Now, Sleep,
// After, NewTicker), so a proof of minutes or a supervisor's back-offs run in milliseconds in their tests.
//
// It imports nothing but the standard library, so every layer may use it.
package clock
