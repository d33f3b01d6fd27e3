package supervisor

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/internal/rawio"
)

// spawner starts child processes from one goroutine locked to its OS thread for the supervisor's lifetime.
//
// Why: PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not the process. Go may end an
// OS thread when a goroutine that locked it exits; a child forked from such a thread would get its
// parent-death signal (and stop the wheels) while the supervisor is alive (golang/go#27505). A dedicated,
// locked, long-lived thread keeps the signal's meaning: "the supervisor is gone".
type spawner struct {
	req  chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	argv      []string
	env       []string
	files     []uintptr // child fd i = files[i]
	pdeathsig syscall.Signal
	reply     chan spawnRes
}

type spawnRes struct {
	pid int
	err error
}

func newSpawner() *spawner {
	s := &spawner{req: make(chan spawnReq), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine, after every child is reaped
		defer close(s.done)
		// The driver and the reader start without the capabilities the service may hold for the bridge's
		// user switch (childproc.DropThreadCapabilities; this thread only). capget, capset and prctl on the
		// calling thread fail only on a kernel without them; the children then have what the service has,
		// which for a service without capabilities is none (TestSpawnerDropsCapabilities). Not as root: its
		// children regain every capability at exec anyway, and an exec that gains capabilities the forking
		// thread lacks clears the parent-death signal (the kernel's commit_creds), the supervisor-death stop.
		if os.Geteuid() != 0 {
			_, _ = childproc.DropThreadCapabilities()
		}
		for r := range s.req {
			pid, err := syscall.ForkExec(r.argv[0], r.argv, &syscall.ProcAttr{
				Env:   r.env,
				Files: r.files,
				// SIGTERM (childDeathSignal): the children treat it like SIGINT (stop frame, exit). Go's
				// ForkExec also checks that the parent did not die before the prctl took effect.
				Sys: &syscall.SysProcAttr{Pdeathsig: r.pdeathsig},
			})
			r.reply <- spawnRes{pid, err}
		}
	}()
	return s
}

// start forks and execs argv with the parent-death signal pdeathsig (0: none, only for the test-only
// Config.NoDriverPdeathsig).
func (s *spawner) start(argv, env []string, files []uintptr, pdeathsig syscall.Signal) (int, error) {
	r := spawnReq{argv: argv, env: env, files: files, pdeathsig: pdeathsig, reply: make(chan spawnRes, 1)}
	s.req <- r
	res := <-r.reply
	if res.err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], res.err)
	}
	return res.pid, nil
}

// close ends the spawner's thread; call it only when no child it started is alive.
func (s *spawner) close() {
	close(s.req)
	<-s.done
}

// proc is a started child: its pid and a pidfd, so that signals never reach a recycled pid. The mutex exists
// for the watchdog, which signals from its own goroutine while the loop may be releasing the pidfd of a child
// that has just been reaped.
type proc struct {
	pid int

	mu       sync.Mutex
	pidfd    int  // -1 if pidfd_open is unavailable (kernel < 5.3) or after release
	released bool // reaped: signals are refused (without a pidfd the pid may belong to someone else now)
}

// errReaped is returned by signal after release: the child is gone and its pid may be recycled.
var errReaped = errors.New("child already reaped")

func newProc(pid int) *proc {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		fd = -1
	}
	return &proc{pid: pid, pidfd: fd}
}

func (p *proc) signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		return errReaped
	}
	if p.pidfd >= 0 {
		return unix.PidfdSendSignal(p.pidfd, sig, nil, 0)
	}
	// Without a pidfd the pid is still ours until wait has reaped it, and then signal is refused.
	return syscall.Kill(p.pid, sig)
}

// wait blocks until the child exits and reaps it. Only after this returns may the pidfd be closed.
func (p *proc) wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(p.pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		p.mu.Lock()
		p.released = true
		p.mu.Unlock()
		return ws, err
	}
}

// release closes the pidfd of a reaped child; every later signal is refused.
func (p *proc) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.released = true
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
		p.pidfd = -1
	}
}

// describeExit says how a child ended, as a person reads it.
func describeExit(ws syscall.WaitStatus) string {
	switch {
	case ws.Exited():
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	case ws.Signaled():
		s := "killed by " + unix.SignalName(ws.Signal())
		if ws.CoreDump() {
			s += " (core dumped)"
		}
		return s
	default:
		return fmt.Sprintf("wait status %#x", uint32(ws))
	}
}

// dupCloexec duplicates fd (same open file: same flock, same O_NONBLOCK) with close-on-exec set atomically,
// so no other child started concurrently can inherit it.
func dupCloexec(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return nfd, derr
}

// boardPipe makes the pipe that carries board bytes to the driver child: the read end (raw fd, non-blocking so
// the child's Go runtime polls it) goes to the child, the write end stays here under Go's poller.
func boardPipe() (childEnd int, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return -1, nil, fmt.Errorf("board pipe: %w", err)
	}
	return p[0], os.NewFile(uintptr(p[1]), "board-pipe"), nil
}

// pipeFeed is the supervisor's end of the driver's pipe of board bytes (non-blocking, boardPipe), written by the
// pump with one write(2) per read and no waiting: Go's poller only guards the descriptor against Close.
type pipeFeed struct {
	f  *os.File
	rc syscall.RawConn
}

func newPipeFeed(f *os.File) (*pipeFeed, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("board pipe: %w", err)
	}
	return &pipeFeed{f: f, rc: rc}, nil
}

func (p *pipeFeed) tryWrite(chunk []byte) error {
	var n int
	var werr syscall.Errno
	err := p.rc.Write(func(fd uintptr) bool {
		n, werr = rawio.Write(fd, chunk)
		return true // done either way: never wait for room
	})
	switch {
	case err != nil:
		return err
	case werr == unix.EAGAIN:
		return errFeedFull
	case werr != 0:
		return werr
	case n < len(chunk): // only above PIPE_BUF (maxChunk keeps reads below it)
		return fmt.Errorf("board pipe: %d of %d bytes written", n, len(chunk))
	}
	return nil
}

func (p *pipeFeed) Close() error { return p.f.Close() }

// heartbeatPipe makes the driver child's heartbeat pipe: the write end (raw fd) goes to the child, which must
// never block on it (O_NONBLOCK, set here on the shared open file description, and childproc.Heartbeat writes with
// raw write(2), not through Go's poller, so a full pipe is EAGAIN and not a parked control loop); the read end
// stays here under Go's poller, so the watchdog can read it with a deadline.
func heartbeatPipe() (childEnd int, r *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return -1, nil, fmt.Errorf("heartbeat pipe: %w", err)
	}
	return p[1], os.NewFile(uintptr(p[0]), "driver-heartbeat"), nil
}
