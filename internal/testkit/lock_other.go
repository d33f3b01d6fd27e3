//go:build !unix

package testkit

import "errors"

// lockFile is not available here: Binary then builds straight into its own directory.
func lockFile(string) (func(), error) { return nil, errors.New("no file locks") }

// RealTimeAlone does nothing without file locks.
func RealTimeAlone() (release func()) { return func() {} }
