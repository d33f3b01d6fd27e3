package api

import (
	"net"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/procfs"
)

// nativePeerCred returns the SO_PEERCRED credentials of a unix socket connection: the pid, uid and gid of the
// process that connected, as the kernel recorded them at connect time (a client cannot forge them).
func nativePeerCred(c net.Conn) (pid, uid, gid int, ok bool) {
	uc, isUnix := c.(*net.UnixConn)
	if !isUnix {
		return 0, 0, 0, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, 0, 0, false
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil || cerr != nil || cred == nil {
		return 0, 0, 0, false
	}
	return int(cred.Pid), int(cred.Uid), int(cred.Gid), true
}

// ProcessAlive reports whether a process with this pid exists and has not exited (signal 0 finds zombies too,
// so their state is read: an exited child its parent has not reaped yet is not a publisher).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := unix.Kill(pid, 0); err != nil && err != unix.EPERM {
		return false
	}
	st, err := procfs.ReadStat(pid)
	if err != nil {
		return true // no /proc, or gone between the two looks: trust kill
	}
	return st.Alive()
}
