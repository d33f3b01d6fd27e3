//go:build !linux

package harness

import (
	"errors"
	"os"
)

var errPortHeld = errors.New("port held by another process")

func openPortReadOnly(device string) (*os.File, error) {
	return nil, errors.New("reading the board's port directly is implemented for Linux only")
}

func portLocked(string) (bool, string) { return false, "" }
