package target

import "syscall"

// serviceProcAttr starts the simulated robot's service in its own process group, with SIGINT when the proof
// dies (Linux's parent-death signal).
func serviceProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
}
