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

// nativeParent returns the parent pid of pid (/proc/PID/stat field 4), or 0.
func nativeParent(pid int) int {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces: parse after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return true
	}
	return b[i+2] != 'Z' && b[i+2] != 'X'
}
