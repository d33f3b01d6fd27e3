package childproc

import (
	"golang.org/x/sys/unix"
)

// Capabilities are per thread on Linux, and a child gets those of the thread that forked it. The service may
// hold CAP_SETUID and CAP_SETGID (deploy/ros2.conf: AmbientCapabilities) for one purpose only, to start the
// ROS 2 bridge as a user of its own; the driver and the LiDAR reader must not inherit them (with CAP_SETUID a
// child could become any user). Both functions act on the calling thread alone: call them on a thread locked
// for good (runtime.LockOSThread, never unlocked) from which the children are forked.

// DropThreadCapabilities clears every capability of the calling thread (ambient, effective, permitted,
// inheritable): a child it forks and execs starts with none. It reports whether the thread held any.
func DropThreadCapabilities() (had bool, err error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false, err
	}
	for _, d := range data {
		had = had || d.Effective != 0 || d.Permitted != 0 || d.Inheritable != 0
	}
	if err := ClearThreadAmbient(); err != nil {
		return had, err
	}
	if !had {
		return false, nil
	}
	data = [2]unix.CapUserData{}
	return true, unix.Capset(&hdr, &data[0])
}

// ClearThreadAmbient clears the calling thread's ambient capabilities and keeps the others: a child it forks
// may still use them before its exec (the switch to the bridge's user), and execs with none, as a program
// without file capabilities run by a user other than root does.
func ClearThreadAmbient() error {
	// Clearing needs no capability; EINVAL: a kernel without ambient capabilities (before 4.3).
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return err
	}
	return nil
}
