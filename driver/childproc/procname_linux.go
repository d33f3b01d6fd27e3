package childproc

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SetProcName sets this process's name as ps and top show it (at most 15 bytes). The children are started
// through /proc/self/exe, which would otherwise show as "exe". The driver also reads it: it takes scans only
// from the supervisor's child named api.ReaderComm (driver/scanauth.go), and it reads /proc/PID/comm, the
// thread-group leader's name. PR_SET_NAME names only the calling thread, which for a goroutine need not be
// the leader, so the name is written to /proc/self/comm (the leader) as well.
func SetProcName(name string) {
	b := append([]byte(name), 0)
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0, 0, 0)
	runtime.KeepAlive(b)
	_ = os.WriteFile("/proc/self/comm", []byte(name), 0)
}
