package scangate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/judge/scanloss"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/target"
)

// ErrAborted is returned when the check did not run (no driver, wheels enabled, no reader): nothing was
// killed.
var ErrAborted = errors.New("scan-gate check aborted")

// Options configure the check. Start from DefaultOptions.
type Options struct {
	// Settle is how long the driver's state is read before the kill (the seed's spin(2.0)).
	Settle time.Duration
	// Watch is how long scan_age is followed after the kill (the seed's 9 s: the reader respawns about 2 s
	// after its death and needs a moment to deliver its first scan).
	Watch time.Duration
	// StatePeriod is the state poll period (10 Hz, the driver's state rate).
	StatePeriod time.Duration
	// StateTimeout: no state within it aborts with nothing killed.
	StateTimeout time.Duration
	// ScanTimeout is used when the driver's configuration does not name scan_timeout (0.5 s).
	ScanTimeout float64
	// Alive reports whether a pid is a running process (nil: kill(pid, 0)). Tests against a fake replace it.
	Alive    func(pid int) bool
	Clock    clock.Clock
	Out      io.Writer
	Evidence *evidence.Log
	// Record receives the judge's input and the verdict (nil: no recording).
	Record *proofrec.Writer
}

// DefaultOptions are the seed's.
func DefaultOptions() Options {
	return Options{Settle: 2 * time.Second, Watch: 9 * time.Second, StatePeriod: 100 * time.Millisecond,
		StateTimeout: 5 * time.Second, ScanTimeout: 0.5, Clock: clock.Real{}, Out: io.Discard}
}

// Report is the check's outcome.
type Report struct {
	Target string `json:"target"`
	// DriverBin is the rosorin-base binary the simulated robot ran (nil for a running driver).
	DriverBin *basebin.Bin    `json:"driver_bin,omitempty"`
	Start     time.Time       `json:"start"`
	End       time.Time       `json:"end"`
	Result    scanloss.Result `json:"result"`
	Aborted   string          `json:"aborted,omitempty"`
	// StateErrors counts state reads that failed during the watch.
	StateErrors int `json:"state_errors"`
}

// Passed reports whether the check ran and passed.
func (r *Report) Passed() bool { return r.Aborted == "" && r.Result.Pass }

func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Target is what the check needs of the robot: its description and configuration, its state, and the
// reader's kill (a target.Target is one).
type Target interface {
	target.Describer
	target.StateReader
	target.Killer
}

// Run performs the check. The error is non-nil only when it aborted before killing anything.
func Run(ctx context.Context, t Target, o Options) (*Report, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Alive == nil {
		o.Alive = alive
	}
	clk, ev := o.Clock, o.Evidence
	rep := &Report{Target: t.Describe(), DriverBin: runcore.DriverBin(t), Start: clk.Now().UTC()}
	abort := func(msg string) (*Report, error) {
		rep.Aborted = msg
		rep.End = clk.Now().UTC()
		fmt.Fprintln(o.Out, msg)
		ev.Logf("%s", msg)
		return rep, fmt.Errorf("%w: %s", ErrAborted, msg)
	}
	fmt.Fprintf(o.Out, "target: %s\n", t.Describe())
	ev.Logf("scan-gate check: target %s", t.Describe())

	// The seed listened for 2 s before deciding; so does this, and the last state decides.
	var last target.State
	var got bool
	deadline := clk.Now().Add(max(o.StateTimeout, o.Settle))
	settled := clk.Now().Add(o.Settle)
	eng := runcore.Engine{Clock: clk}
	eng.Poll(ctx, t, o.StatePeriod, 2*time.Second, time.Time{}, func(st target.State, err error) error {
		if err == nil {
			last, got = st, true
			ev.Logf("state: %s", st.Raw)
		}
		now := clk.Now()
		if (got && !now.Before(settled)) || !now.Before(deadline) || ctx.Err() != nil {
			return runcore.ErrDone
		}
		return nil
	})
	switch {
	case !got:
		return abort("abort: no driver state - nothing killed")
	case last.Enabled:
		return abort("abort: the wheels are enabled - nothing killed (this check is for a disabled robot: rosorin-base disable)")
	case last.Pids.LidarReader <= 0:
		return abort("abort: LiDAR reader process not found (the driver's state names none: is the reader running?)")
	}
	scanTimeout := o.ScanTimeout
	if v := last.Config.ScanTimeoutS; v > 0 {
		scanTimeout = v
	}
	if cfg, err := t.Config(ctx); err == nil {
		ev.Logf("driver config: %s", cfg)
	}
	var in scanloss.Input
	in.ScanTimeout = scanTimeout
	if !math.IsNaN(last.ScanAge) {
		b := last.ScanAge
		in.Before = &b
	}

	t0 := clk.Now()
	pid, err := t.KillLidarReader(ctx)
	ev.Logf("SIGKILL of the LiDAR reader pid %d: %v", pid, err)
	if err != nil {
		if pid <= 0 {
			return abort(fmt.Sprintf("abort: could not kill the LiDAR reader: %v", err))
		}
		fmt.Fprintf(o.Out, "kill of the LiDAR reader pid %d: %v\n", pid, err)
	}
	in.Killed = []int{pid}

	var final target.State
	if ctx.Err() == nil {
		eng.Poll(ctx, t, o.StatePeriod, 2*time.Second, t0.Add(o.Watch), func(st target.State, err error) error {
			if err != nil {
				rep.StateErrors++
				ev.Logf("state: %v", err)
				return nil
			}
			final = st
			ev.Logf("state: %s", st.Raw)
			obs := scanloss.Observation{T: st.At.Sub(t0).Seconds(), Blocked: st.Blocked}
			if !math.IsNaN(st.ScanAge) {
				a := st.ScanAge
				obs.ScanAge = &a
			}
			in.Obs = append(in.Obs, obs)
			return nil
		})
	}
	if p := final.Pids.LidarReader; p > 0 && o.Alive(p) {
		in.ReaderPIDsNow = []int{p}
	}
	rep.Result = scanloss.Judge(in)
	record(o.Record, clk.Now(), in, rep.Result)
	rep.End = clk.Now().UTC()
	if ctx.Err() != nil && rep.Result.Pass {
		rep.Result.Pass, rep.Result.Reason = false, "interrupted: "+ctx.Err().Error()
	}
	fmt.Fprintln(o.Out, rep.Result.JSONLine())
	fmt.Fprintln(o.Out, rep.Result.Verdict())
	ev.Logf("result: %s", rep.Result.JSONLine())
	ev.Logf("%s", rep.Result.Verdict())
	return rep, nil
}
