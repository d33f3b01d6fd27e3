//go:build !linux

package supervisor

import (
	"errors"
	"os"
	"syscall"
)

// The supervisor needs Linux: PR_SET_PDEATHSIG, pidfds and wait4 semantics.
var errNotLinux = errors.New("supervisor: needs Linux (parent-death signal, pidfd)")

type spawner struct{}

func newSpawner() *spawner { return &spawner{} }
func (s *spawner) start(argv, env []string, files []uintptr, pdeathsig syscall.Signal) (int, error) {
	return 0, errNotLinux
}
func (s *spawner) close() {}

type proc struct{ pid int }

var errReaped = errors.New("child already reaped")

func newProc(pid int) *proc                            { return &proc{pid: pid} }
func (p *proc) signal(sig syscall.Signal) error        { return errNotLinux }
func (p *proc) wait() (syscall.WaitStatus, error)      { return 0, errNotLinux }
func (p *proc) release()                               {}
func describeExit(ws syscall.WaitStatus) string        { return "unknown" }
func dupCloexec(f *os.File) (int, error)               { return -1, errNotLinux }
func boardPipe() (childEnd int, w *os.File, err error) { return -1, nil, errNotLinux }
func newPipeFeed(*os.File) (boardFeed, error)          { return nil, errNotLinux }
func heartbeatPipe() (childEnd int, r *os.File, err error) {
	return -1, nil, errNotLinux
}
