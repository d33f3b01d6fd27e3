package driver

// The driver child's stop paths (child.go) with real signals sent to this process and the test's board
// (boardtest): a signal halts the board output (the stop frame is the last thing written, a frame in flight is
// refused), SIGTERM with the parent gone is the parent-death signal, and the end of the board pipe (the
// supervisor gone) ends the driver with a stop frame.

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// afterFirstStop returns the writes from the first stop frame that follows a motor frame on.
func afterFirstStop(frames [][]byte) (tail [][]byte, motors int) {
	for i, f := range frames {
		if board.IsStopFrame(f) {
			if motors > 0 {
				return frames[i:], motors
			}
			continue
		}
		motors++
	}
	return nil, motors
}

func testLogger() (*slog.Logger, *testkit.LockedBuffer) {
	var b testkit.LockedBuffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

// TestChildSignalHaltsTheBoard: a control loop writing motor frames as fast as it can, a real signal to this
// process: the stop frame goes out, every motor frame after it is refused, and the reason logged says whether
// the supervisor died (SIGTERM and the parent changed) or a stop was asked for.
func TestChildSignalHaltsTheBoard(t *testing.T) {
	motor, err := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		sig     syscall.Signal
		ppid    int // the parent the child saw at start
		wantWhy string
	}{
		{"SIGTERM, parent alive", syscall.SIGTERM, os.Getppid(), "why=\"stop requested\""},
		{"SIGTERM, parent gone", syscall.SIGTERM, -1, "why=\"supervisor died (parent-death signal)\""},
		{"SIGINT", syscall.SIGINT, -1, "why=\"stop requested\""},
		{"SIGHUP", syscall.SIGHUP, os.Getppid(), "why=\"stop requested\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := boardtest.New(boardtest.Options{})
			hw := childproc.NewHaltWriter(rec)
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, c.sig)
			defer signal.Stop(sigs)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var refused atomic.Int64
			loopDone, endLoop := make(chan struct{}), make(chan struct{})
			go func() { // the control loop, which goes on writing for a while after the signal
				defer close(loopDone)
				for {
					select {
					case <-endLoop:
						return
					default:
					}
					if _, err := hw.Write(motor); errors.Is(err, childproc.ErrHalted) {
						refused.Add(1)
					}
				}
			}()
			if err := testkit.Eventually(testkit.Bound(time.Second), func() error {
				if raw := rec.Writes(); len(raw) < 10 {
					return errors.New("no motor frames yet")
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			log, logBuf := testLogger()
			if err := syscall.Kill(os.Getpid(), c.sig); err != nil {
				t.Fatal(err)
			}
			haltOnSignal(ctx, sigs, hw, c.ppid, log, cancel)
			if ctx.Err() == nil {
				t.Fatal("the signal did not stop the driver")
			}
			// The loop's next frames, after the stop frame: refused.
			err := testkit.Eventually(testkit.Bound(time.Second), func() error {
				if refused.Load() < 3 {
					return errors.New("the loop's frames after the signal were not refused")
				}
				return nil
			})
			close(endLoop)
			<-loopDone
			if err != nil {
				t.Fatal(err)
			}
			tail, motors := afterFirstStop(rec.Writes())
			if len(tail) == 0 {
				t.Fatalf("%d motor frames and no stop frame after them", motors)
			}
			for i, f := range tail {
				if !board.IsStopFrame(f) {
					t.Fatalf("write %d after the stop frame is % x, not a stop frame", i, f)
				}
			}
			if l := logBuf.String(); !strings.Contains(l, "signal: stop frame written; stopping") || !strings.Contains(l, c.wantWhy) {
				t.Errorf("log %q, want the stop frame and %s", l, c.wantWhy)
			}
		})
	}
}

// childRig runs the whole driver child on the test's board (boardtest, as the board pipe and the port), with
// the default configuration and no socket.
type childRig struct {
	b     *boardtest.Board
	beats *testkit.LockedBuffer
	log   *testkit.LockedBuffer
	done  chan error
}

func startChild(t *testing.T, holdEOF bool) *childRig {
	t.Helper()
	b := boardtest.New(boardtest.Options{})
	t.Cleanup(func() { b.Close() })
	log, logBuf := testLogger()
	g := &childRig{b: b, beats: &testkit.LockedBuffer{}, log: logBuf, done: make(chan error, 1)}
	o := ChildOptions{StateDir: t.TempDir(), HoldBoardEOF: holdEOF, Log: log}
	go func() {
		g.done <- runChild(context.Background(), o, childIO{in: b, out: b, heartbeat: g.beats, ppid: os.Getppid()})
	}()
	// The first stop frame is written after the signal handler is in place.
	if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
		if raw := g.b.Writes(); len(raw) == 0 || g.beats.Len() < 3 {
			return errors.New("driver not running yet")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *childRig) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case err := <-g.done:
		return err
	case <-time.After(testkit.Bound(d)):
		t.Fatalf("the driver child still runs %v later; log:\n%s", d, g.log.String())
		return nil
	}
}

func (g *childRig) lastIsStop(t *testing.T) {
	t.Helper()
	fr := g.b.Writes()
	if len(fr) == 0 || !board.IsStopFrame(fr[len(fr)-1]) {
		t.Fatalf("last of %d board writes is not a stop frame", len(fr))
	}
}

// TestChildSIGTERM: SIGTERM ends the child cleanly (nil), the last board write is a stop frame, and the
// heartbeat ends with the final word.
func TestChildSIGTERM(t *testing.T) {
	g := startChild(t, false)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := g.wait(t, 3*time.Second); err != nil {
		t.Fatalf("after SIGTERM: %v, want nil", err)
	}
	g.lastIsStop(t)
	if b := g.beats.String(); !strings.HasSuffix(b, string(heartbeat.FinalWord(""))) {
		t.Errorf("heartbeat ends %q, want the final word", b[max(0, len(b)-5):])
	}
	if l := g.log.String(); !strings.Contains(l, "signal: stop frame written; stopping") {
		t.Errorf("log %q", l)
	}
}

// TestChildBoardPipeEnds: the supervisor's end of the board pipe closes (it died, or lost the port): the
// child writes a stop frame and fails, so that a supervisor starts a new one.
func TestChildBoardPipeEnds(t *testing.T) {
	g := startChild(t, false)
	g.b.EOF()
	err := g.wait(t, 3*time.Second)
	if err == nil || !strings.Contains(err.Error(), "board input ended") {
		t.Fatalf("after the board pipe's end: %v, want the board gone", err)
	}
	g.lastIsStop(t)
}

// TestChildHeldEOF: with the test hook, the end of the board pipe is hidden: the child runs on until a signal.
func TestChildHeldEOF(t *testing.T) {
	g := startChild(t, true)
	g.b.EOF()
	select {
	case err := <-g.done:
		t.Fatalf("the child ended (%v) at the pipe's end although it is held", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := g.wait(t, 3*time.Second); err != nil {
		t.Fatalf("after SIGINT: %v", err)
	}
	g.lastIsStop(t)
}

// TestParentGone: the parent as this process sees it is not gone; any other pid is.
func TestParentGone(t *testing.T) {
	t0 := time.Now()
	if parentGone(os.Getppid(), 30*time.Millisecond) {
		t.Fatal("parentGone for the live parent")
	}
	if d := time.Since(t0); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, want the whole wait", d)
	}
	if !parentGone(os.Getppid()+100000, time.Second) {
		t.Fatal("parentGone false for a pid that is not the parent")
	}
}

// TestRunChildOutsideTheSupervisor: started by hand, without the board descriptors, the child refuses with
// a setup error and writes nothing.
func TestRunChildOutsideTheSupervisor(t *testing.T) {
	if name, err := os.ReadFile("/proc/self/comm"); err == nil { // RunChild names the process
		t.Cleanup(func() { childproc.SetProcName(strings.TrimSpace(string(name))) })
	}
	err := RunChild(context.Background(), ChildOptions{})
	if !IsSetupError(err) || !strings.Contains(err.Error(), "rosorin-base run") {
		t.Fatalf("RunChild by hand: %v, want a setup error naming rosorin-base run", err)
	}
}
