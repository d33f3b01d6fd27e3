package testkit

// From returns what was written from byte offset off on ("" when off is past the end): the part of a log
// shared by several tests that one test wrote (take Len at its start).
func (l *LockedBuffer) From(off int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if off < 0 || off > l.b.Len() {
		return ""
	}
	return string(l.b.Bytes()[off:])
}
