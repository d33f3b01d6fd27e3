//go:build !linux

package doctor

// checkClockSync: only Linux's adjtimex is read.
func checkClockSync(r *Report) {
	r.add("system", "clock sync", Skip, "not checked on this system (Linux's adjtimex only)", "")
}
