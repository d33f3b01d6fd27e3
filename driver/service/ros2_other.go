//go:build !linux

package service

import "syscall"

// bridgeProcAttr: no parent-death signal outside Linux (the bridge is Linux-only anyway: dds.Available).
func bridgeProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	if cred == nil {
		return nil
	}
	return &syscall.SysProcAttr{Credential: cred}
}
