package service

import "syscall"

// bridgeProcAttr: the ROS 2 bridge ends with the supervisor (parent-death signal) and runs as cred when it is
// not nil (Go sets the parent-death signal after the credentials, which would clear it).
func bridgeProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Credential: cred}
}
