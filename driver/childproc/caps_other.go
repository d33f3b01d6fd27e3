//go:build !linux

package childproc

// DropThreadCapabilities does nothing on this system (no Linux capabilities).
func DropThreadCapabilities() (had bool, err error) { return false, nil }

// ClearThreadAmbient does nothing on this system.
func ClearThreadAmbient() error { return nil }
