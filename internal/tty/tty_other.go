//go:build !linux

package tty

var bauds = map[int]uint32{}

func nativeSetRaw(fd int, speed uint32) error { return ErrUnsupported }
