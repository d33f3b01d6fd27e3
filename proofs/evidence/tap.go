package evidence

import "time"

// SetTap hands every later line of the log to tap as well (the proof recording keeps a crash-safe copy of
// the evidence on /proof/log). tap runs outside the log's lock; nil removes it.
func (e *Log) SetTap(tap func(at time.Time, line string)) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.tap = tap
	e.mu.Unlock()
}
