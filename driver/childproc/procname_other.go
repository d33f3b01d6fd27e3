//go:build !linux

package childproc

// SetProcName does nothing on this system.
func SetProcName(name string) {}
