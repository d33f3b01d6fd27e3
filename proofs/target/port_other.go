//go:build !linux

package target

// portLocked needs /proc/locks; elsewhere nothing is known to hold the port (and serialport cannot open
// one: it supports Linux only).
func portLocked(string) (bool, string) { return false, "" }
