package driver

// The driver child process of `rosorin-base run`: what `rosorin-base driver` does between its flags and Run.
// Its safety job is the signal path: SIGTERM is also the parent-death signal (PR_SET_PDEATHSIG), sent when
// the supervisor dies, and with the supervisor goes the crash-stop path; this process is then the last one
// that can stop the wheels, so it halts the board output before anything else.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/internal/rawio"
)

// ChildProcName is the driver child's process name (ps, top).
const ChildProcName = "rosorin-driver"

// ChildOptions are the driver child's command line.
type ChildOptions struct {
	Socket        string   // control socket
	Configs       []string // parameter files, later ones override earlier ones
	StateDir      string   // "" = DefaultStateDir
	SupervisorPID int      // the supervisor's pid, for the state record and the scan sender rule
	// HoldBoardEOF hides the end of the board pipe until the process stops. TEST ONLY (see heldEOF).
	HoldBoardEOF bool
	Log          *slog.Logger // nil = slog.Default()
	// Contact is the contact reflex's mode (Options.Contact).
	Contact string
	// ObserveGroups, DriveGroups and SafetyGroups are the control socket's roles (api.Access); nil Drive and
	// Safety lists take api.DefaultDriveGroup and api.DefaultSafetyGroup.
	ObserveGroups, DriveGroups, SafetyGroups []string
}

// access is the control socket's policy of the child: its own uid holds every role.
func (o ChildOptions) access() *api.Access {
	a := api.DefaultAccess(os.Getuid())
	a.Observe = o.ObserveGroups
	if o.DriveGroups != nil {
		a.Drive = o.DriveGroups
	}
	if o.SafetyGroups != nil {
		a.Safety = o.SafetyGroups
	}
	return a
}

// SetupError is RunChild's error when the process was not started as a driver child (no board descriptors,
// a bad heartbeat pipe): exit status 2, nothing was written to the board.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// RunChild is the driver child: it takes the board descriptors and the heartbeat pipe the supervisor passed
// (childproc.Board, childproc.Heartbeat), starts latched if the supervisor says so, and runs the
// driver until a signal or the board's end. On SIGINT, SIGTERM or SIGHUP it writes the stop frame at once and
// from then on lets only stop frames reach the board (childproc.HaltWriter), so that stop frame is the last
// motor command the board hears, even with one more frame of the control loop in flight. It returns nil after
// a signal, a *SetupError when it was not started by `rosorin-base run`, and Run's error otherwise.
func RunChild(ctx context.Context, o ChildOptions) error {
	childproc.SetProcName(ChildProcName)
	inFile, outFile, err := childproc.Board()
	if err != nil {
		return &SetupError{err}
	}
	// Reads of the pipe and writes to the port as raw system calls (rawio: no sysmon wake-up per call). The
	// supervisor makes both non-blocking; a descriptor that is not keeps os.File's calls.
	var in io.Reader = inFile
	var out io.Writer = outFile
	if f, err := rawio.NewFile(inFile); err == nil {
		in = f
	}
	if f, err := rawio.NewFile(outFile); err == nil {
		out = f
	}
	// Under --capture the supervisor records what this process writes to the board from a copy (tx tap).
	tapped, err := childproc.OpenTxTap(out)
	if err != nil {
		return &SetupError{err}
	}
	// A nil *HeartbeatWriter must stay a nil io.Writer (no heartbeat), not a non-nil interface holding nil.
	var hb io.Writer
	if w, err := childproc.Heartbeat(); err != nil {
		return &SetupError{err}
	} else if w != nil {
		hb = w
	}
	return runChild(ctx, o, childIO{in: in, out: tapped, heartbeat: hb, ppid: os.Getppid(),
		// A restart after a crash, kill, hang or USB drop (or of a latched driver) starts latched.
		startLatched: childproc.StartLatched()})
}

// childIO is what RunChild takes from the process: the board, the heartbeat, the parent.
type childIO struct {
	in           io.Reader
	out          io.Writer
	heartbeat    io.Writer // nil: none
	ppid         int       // the supervisor, as this process saw it at start
	startLatched string
}

func runChild(ctx context.Context, o ChildOptions, cio childIO) error {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	hw := childproc.NewHaltWriter(cio.out)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		haltOnSignal(ctx, sigs, hw, cio.ppid, log, cancel)
	}()
	boardIn := cio.in
	if o.HoldBoardEOF {
		boardIn = heldEOF{r: cio.in, ctx: ctx}
	}
	runErr := runChildDriver(ctx, o, boardIn, hw, cio, log)
	if herr := hw.Halt(); herr != nil {
		log.Error("final stop frame failed", "err", herr)
	}
	// No signal.Stop: the handler stays until the process exits, so a second signal during the exit does not
	// end it by signal (which the supervisor would count as an unclean end, starting the next driver latched).
	stopped := ctx.Err() != nil
	cancel()
	<-watched
	if runErr != nil && !stopped {
		return runErr
	}
	return nil
}

func runChildDriver(ctx context.Context, o ChildOptions, in io.Reader, out io.Writer, cio childIO, log *slog.Logger) error {
	cfg, _, err := config.Load(o.Configs...)
	if err != nil {
		return err
	}
	return Run(ctx, Options{
		Config: cfg, BoardIn: in, BoardOut: out, Heartbeat: cio.heartbeat, SocketPath: o.Socket,
		SupervisorPID: o.SupervisorPID, StateDir: o.StateDir, Log: log, StartLatched: cio.startLatched,
		Contact: o.Contact, Access: o.access(),
	})
}

// haltOnSignal waits for a signal (or ctx), then halts the board output first and asks why second: a SIGTERM
// after which this process's parent is no longer ppid is the parent-death signal.
func haltOnSignal(ctx context.Context, sigs <-chan os.Signal, hw *childproc.HaltWriter, ppid int, log *slog.Logger, stop func()) {
	select {
	case s := <-sigs:
		herr := hw.Halt()
		why := "stop requested"
		if s == syscall.SIGTERM && parentGone(ppid, 50*time.Millisecond) {
			why = "supervisor died (parent-death signal)"
		}
		if herr != nil {
			log.Error("signal: stop frame FAILED", "signal", s, "why", why, "err", herr)
		} else {
			log.Warn("signal: stop frame written; stopping", "signal", s, "why", why)
		}
		stop()
	case <-ctx.Done():
	}
}

// heldEOF hides the end of the board input until ctx ends. TEST ONLY (--test-hold-board-eof): the driver has
// two ways of noticing that its supervisor died, the parent-death signal and its board pipe's end of file
// (the supervisor holds the only write end); holding the second back lets a test see the first alone, or,
// with --test-no-pdeathsig as well, neither (the negative control: the wheels keep their last speed).
type heldEOF struct {
	r   io.Reader
	ctx context.Context
}

func (h heldEOF) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err != nil && n == 0 {
		<-h.ctx.Done()
	}
	if n > 0 {
		err = nil
	}
	return n, err
}

// parentGone reports whether this process's parent is no longer ppid, waiting up to wait for it to change. Why
// wait: the parent-death signal is sent when the supervisor's forking thread exits, and the kernel first
// hands its children to a sibling thread of the same, still dying process; getppid changes only when the
// supervisor's last thread is gone, a moment later. Asked at once, a driver whose supervisor was killed
// mostly read its old parent and logged "stop requested". The stop frame is written before this wait.
func parentGone(ppid int, wait time.Duration) bool { return parentGoneOn(clock.Real{}, ppid, wait) }

func parentGoneOn(clk clock.Clock, ppid int, wait time.Duration) bool {
	for end := clk.Now().Add(wait); ; _ = clk.Sleep(context.Background(), time.Millisecond) {
		if os.Getppid() != ppid {
			return true
		}
		if clk.Now().After(end) {
			return false
		}
	}
}

// IsSetupError reports whether err is RunChild's "not started as a driver child".
func IsSetupError(err error) bool {
	var se *SetupError
	return errors.As(err, &se)
}
