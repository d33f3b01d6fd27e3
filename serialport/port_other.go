//go:build !linux

package serialport

import "os"

func nativeOpen(path string, o Options) (*os.File, error) { return nil, ErrUnsupported }

func nativeHolders(path string) []Holder { return nil }

// Drain is not supported on this system.
func Drain(f *os.File) error { return ErrUnsupported }
