package service

import "syscall"

// bridgeProcAttr: the ROS 2 bridge ends with the supervisor (parent-death signal).
func bridgeProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} }
