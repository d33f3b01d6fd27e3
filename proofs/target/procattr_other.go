//go:build !linux

package target

import "syscall"

// serviceProcAttr: without a parent-death signal off Linux, the service outlives a proof that dies without its
// teardown (the simulated robot itself only runs on Linux).
func serviceProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
