package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// Robot runs one slot at a time: a simulated robot per --parallel worker, or the one real robot.
type Robot interface {
	// Run runs cell once for slot s, its evidence into dir (absolute; created by Run). It fills the Run's
	// outcome, measurements, conditions and evidence paths (relative to the campaign folder); Execute fills
	// the slot, worker and shard. A run cut short by ctx is returned with Outcome CUT. An error means the
	// robot cannot run at all (a guard refused: nothing moved): the campaign stops, the slot stays pending.
	Run(ctx context.Context, s Slot, cell Cell, dir string) (Run, error)
	// Battery is the battery voltage now (NaN when not known).
	Battery(ctx context.Context) float64
}

// CellChecker is implemented by robots that can refuse a cell before any run moves (the floor robot: a
// speed above the driver's limit). Execute asks every robot about every pending cell first.
type CellChecker interface {
	CheckCell(ctx context.Context, cell Cell) error
}

// Options configure Execute.
type Options struct {
	// Robots are the workers, one robot each; each takes the next slot from a channel when it is free.
	Robots []Robot
	// Out receives the progress line after every run (and the battery prompt).
	Out io.Writer
	// Ask asks the operator before a run whether to go on (the battery is below the plan's battery_min_v):
	// true goes on. nil answers no (the campaign stops, to be resumed).
	Ask func(prompt string) bool
	// Clock is the clock of the records (clock.Real{} when nil).
	Clock clock.Clock
}

// Tally is the outcome of Execute: what this session (one invocation of the campaign) did.
type Tally struct {
	Ran      int   // results recorded in this session
	Failed   []Run // runs of this session that did not pass (FAIL, TIMEOUT)
	Cut      []Run // runs recorded CUT in this session (found on resume, or abandoned at the second Ctrl-C)
	Pending  int   // slots of the folder still without a result at the end
	Stopped  string
	Duration time.Duration
}

// Execute runs the folder's pending slots on the robots, each robot taking the next slot when it is free,
// and records every run as it ends. First it recovers the runs an earlier session left cut (Folder.Recover).
//
// ctx ending (the first Ctrl-C) stops the taking of new slots: runs in progress finish and are recorded.
// runCtx ending (the second Ctrl-C) abandons the runs in progress: the proof engine's teardown still
// disables the wheels, and the run is recorded CUT (its slot runs again on resume). The error is non-nil
// only when the folder cannot be written or a robot cannot run (nothing moved in that run).
func Execute(ctx, runCtx context.Context, f *Folder, o Options) (Tally, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if len(o.Robots) == 0 {
		return Tally{}, errors.New("campaign: no robot to run on")
	}
	start := o.Clock.Now()
	var ses Tally
	cut, err := f.Recover(start)
	if err != nil {
		return ses, err
	}
	for _, r := range cut {
		fmt.Fprintf(o.Out, "run %d (%s #%d) began in an earlier session and never ended: recorded CUT (not counted), runs again\n", r.Seq, r.Cell, r.Rep)
	}
	ses.Cut = append(ses.Cut, cut...)
	prior, err := f.Runs()
	if err != nil {
		return ses, err
	}
	total := len(f.Slots())
	done, failures := 0, 0
	for _, r := range prior {
		if r.Outcome != Cut {
			done++
			if r.Outcome != Pass {
				failures++
			}
		}
	}
	pending := f.Pending()
	checked := map[string]bool{}
	for _, s := range pending {
		cell, ok := f.Plan.Cell(s.Cell)
		if !ok || checked[s.Cell] {
			continue
		}
		checked[s.Cell] = true
		for _, robot := range o.Robots {
			if cc, ok := robot.(CellChecker); ok {
				if err := cc.CheckCell(ctx, cell); err != nil {
					return ses, fmt.Errorf("before any run: %w", err)
				}
			}
		}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()

	slots := make(chan Slot)
	go func() {
		defer close(slots)
		for _, s := range pending {
			select {
			case slots <- s:
			case <-ctx.Done():
				return
			}
		}
	}()

	var (
		mu       sync.Mutex // guards the counts, ses, firstErr and the terminal
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		stop()
	}
	for w, robot := range o.Robots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range slots {
				if ctx.Err() != nil {
					return
				}
				cell, ok := f.Plan.Cell(s.Cell)
				if !ok {
					fail(fmt.Errorf("campaign: slot %d names cell %q, which the plan does not have", s.Seq, s.Cell))
					return
				}
				if min := f.Plan.BatteryMinV; min > 0 {
					v := robot.Battery(ctx)
					if v < min || math.IsNaN(v) {
						mu.Lock()
						prompt := fmt.Sprintf("robot %d: battery %.2f V is below battery_min_v %.2f V (NaN: not known). Charge or swap it now; go on with run %d (%s)?", w+1, v, min, s.Seq, s.Cell)
						goOn := o.Ask != nil && o.Ask(prompt)
						mu.Unlock()
						if !goOn {
							mu.Lock()
							ses.Stopped = "stopped before a run: the battery is below battery_min_v"
							mu.Unlock()
							stop()
							return
						}
					}
				}
				if err := f.MarkStarted(s, w+1, o.Clock.Now()); err != nil {
					fail(err)
					return
				}
				dir := filepath.Join(f.Dir, RunDir(s.Seq))
				t0 := o.Clock.Now()
				r, rerr := robot.Run(runCtx, s, cell, dir)
				if rerr != nil && r.Start.IsZero() {
					r = Run{StillS: nan(), TravelM: nan(), ResponseS: nan(), DecelS: nan()} // nothing measured
				}
				r.Slot, r.Worker, r.Shard = s, w+1, f.Shard.String()
				if r.Start.IsZero() {
					r.Start = t0
				}
				if r.End.IsZero() {
					r.End = o.Clock.Now()
				}
				switch {
				case rerr != nil:
					r.Outcome, r.Reason = Cut, "nothing moved: "+rerr.Error()
				case runCtx.Err() != nil && r.Outcome != Pass:
					r.Outcome, r.Reason = Cut, "abandoned at Ctrl-C ("+r.Reason+"): not counted; its slot runs again"
				case r.Outcome == "":
					r.Outcome, r.Reason = Fail, "the robot returned no outcome"
				}
				if err := f.Finish(r); err != nil {
					fail(err)
					return
				}
				mu.Lock()
				if r.Outcome == Cut {
					ses.Cut = append(ses.Cut, r)
				} else {
					ses.Ran++
					done++
					if r.Outcome != Pass {
						failures++
						ses.Failed = append(ses.Failed, r)
					}
				}
				fmt.Fprintln(o.Out, progress(r, done, total, failures, ses.Ran, o.Clock.Now().Sub(start)))
				mu.Unlock()
				if rerr != nil {
					fail(fmt.Errorf("run %d (%s): %w", s.Seq, s.Cell, rerr))
					return
				}
			}
		}()
	}
	wg.Wait()
	ses.Pending = len(f.Pending())
	ses.Duration = o.Clock.Now().Sub(start)
	if ses.Stopped == "" && ses.Pending > 0 && firstErr == nil {
		ses.Stopped = "interrupted"
	}
	return ses, firstErr
}

// progress is the line after each run: "[7/16] estop fwd 0.2 #3: PASS still 0.45 s | failures so far 0 | about
// 1m20s left".
func progress(r Run, done, total, failures, ran int, elapsed time.Duration) string {
	what := r.Outcome
	if !math.IsNaN(r.StillS) {
		what += fmt.Sprintf(" still %.2f s", r.StillS)
	}
	if r.Outcome != Pass && r.Reason != "" {
		what += " (" + r.Reason + ")"
	}
	left := "time left unknown"
	if ran > 0 && done < total {
		per := elapsed / time.Duration(ran) // wall time per run with every robot busy
		left = fmt.Sprintf("about %v left", (per * time.Duration(total-done)).Round(time.Second))
	} else if done >= total {
		left = "all runs done"
	}
	return fmt.Sprintf("[%d/%d] run %d, %s #%d, robot %d: %s | failures so far %d | %s",
		done, total, r.Seq, r.Cell, r.Rep, r.Worker, what, failures, left)
}

func nan() float64 { return math.NaN() }

// CellCount is one line of the per-cell count table.
type CellCount struct {
	Cell                         string
	Planned, Pass, Fail, Timeout int
	Cut                          int
	FailedSeqs                   []int
}

// Counts tallies the runs on record per cell, in the plan's order (a shard's folder counts its own slots).
func Counts(f *Folder) ([]CellCount, error) {
	runs, err := f.Runs()
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	out := make([]CellCount, len(f.Plan.Cells))
	for i, c := range f.Plan.Cells {
		idx[c.ID()] = i
		out[i].Cell = c.ID()
	}
	for _, s := range f.Slots() {
		out[idx[s.Cell]].Planned++
	}
	for _, r := range runs {
		i, ok := idx[r.Cell]
		if !ok {
			continue
		}
		switch r.Outcome {
		case Pass:
			out[i].Pass++
		case Fail:
			out[i].Fail++
			out[i].FailedSeqs = append(out[i].FailedSeqs, r.Seq)
		case Timeout:
			out[i].Timeout++
			out[i].FailedSeqs = append(out[i].FailedSeqs, r.Seq)
		case Cut:
			out[i].Cut++
		}
	}
	return out, nil
}

// WriteCounts prints the count table: per cell, runs planned, done, passed, failed (with their run
// numbers) and cut. The statistics and the claim are the report's (stopproof report).
func WriteCounts(w io.Writer, cs []CellCount) {
	fmt.Fprintf(w, "%-22s %7s %5s %5s %5s %7s %4s  %s\n", "cell", "planned", "done", "pass", "fail", "timeout", "cut", "failed runs")
	for _, c := range cs {
		done := c.Pass + c.Fail + c.Timeout
		seqs := "-"
		if len(c.FailedSeqs) > 0 {
			seqs = fmt.Sprint(c.FailedSeqs)
		}
		fmt.Fprintf(w, "%-22s %7d %5d %5d %5d %7d %4d  %s\n", c.Cell, c.Planned, done, c.Pass, c.Fail, c.Timeout, c.Cut, seqs)
	}
}
