//go:build !linux

package service

import "syscall"

// bridgeProcAttr: no parent-death signal outside Linux (the bridge is Linux-only anyway: dds.Available).
func bridgeProcAttr() *syscall.SysProcAttr { return nil }
