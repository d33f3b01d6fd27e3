package api

import (
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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

// nativeComm returns the process name of pid (/proc/PID/comm), or "".
func nativeComm(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ProcessAlive reports whether a process with this pid exists (signal 0; EPERM means it exists but belongs to
// someone else).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}
