package api

import (
	"net"
	"unsafe"

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

// nativePeerGroups returns the groups (primary first, then the supplementary ones) of the process that
// connected, as the kernel recorded them at connect time (SO_PEERGROUPS, Linux 4.13; the primary gid alone
// when the kernel is older).
func nativePeerGroups(c net.Conn, gid int) []int {
	groups := []int{gid}
	uc, isUnix := c.(*net.UnixConn)
	if !isUnix {
		return groups
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return groups
	}
	_ = raw.Control(func(fd uintptr) {
		buf := make([]uint32, 32)
		for range 3 {
			n := uint32(len(buf) * 4)
			// x/sys's GetsockoptString stops at the first zero byte; group ids have them.
			_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, fd, unix.SOL_SOCKET, unix.SO_PEERGROUPS,
				uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
			if e == unix.ERANGE && int(n/4) > len(buf) {
				buf = make([]uint32, n/4)
				continue
			}
			if e != 0 {
				return
			}
			for _, g := range buf[:n/4] {
				if int(g) != gid {
					groups = append(groups, int(g))
				}
			}
			return
		}
	})
	return groups
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
