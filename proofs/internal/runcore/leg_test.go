package runcore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

// legTrace is a Leg whose hooks note their calls (with the phase each saw) in calls.
func legTrace(p *Path, calls *[]string, end string) Leg {
	note := func(name string) error {
		*calls = append(*calls, name+" ("+p.Phase+")")
		if name == end {
			return ErrEnded
		}
		return nil
	}
	drive := func(ctx context.Context, until time.Time, tolerate bool) error {
		for {
			if err := p.Send(ctx); err != nil && !tolerate {
				return err
			}
			if !p.R.Clock.Now().Before(until) {
				return nil
			}
			if err := p.R.Wait(ctx, p.CmdPeriod); err != nil {
				return err
			}
		}
	}
	return Leg{Noun: "leg", Going: "going", GoingPhase: "driving", Until: time.Second, HoldPhase: "holding",
		Ready:     func(ctx context.Context, st target.State) error { return note("ready") },
		Check:     func(ctx context.Context) error { return note("check") },
		Start:     func() { note("start") },
		Drive:     drive,
		Driven:    func() error { return note("driven") },
		Triggered: func() { note("triggered") },
		Hold: func(ctx context.Context) error {
			if err := note("hold"); err != nil {
				return err
			}
			return p.HoldFor(ctx, 2*time.Second, drive)
		},
		Held:    func(ctx context.Context) error { return note("held") },
		Judge:   func(ctx context.Context) error { return note("judge") },
		Release: func(ctx context.Context) error { return note("release") },
	}
}

// Path.Run calls the hooks in the documented order with the documented phases, drives through the target
// (recording, publisher, enable before the first command), holds until HoldFor's end and judges; a hook that
// returns ErrEnded ends the step there without an error, and a hook's other error is Run's.
func TestPathRunSkeleton(t *testing.T) {
	all := []string{"ready (waiting for the driver)", "check (waiting for the driver)", "start (enabling the wheels)",
		"driven (driving)", "triggered (triggering estop)", "hold (holding)", "held (holding)", "judge (judging)", "release (judging)"}
	for _, c := range []struct {
		end     string
		want    int // hooks called
		kills   bool
		verbose bool
	}{
		{"", len(all), false, true},
		{"", len(all), true, false},
		{"check", 2, false, false},
		{"driven", 4, false, false},
		{"held", 7, false, false},
	} {
		t.Run(fmt.Sprintf("end=%s,kills=%v", c.end, c.kills), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := clock.Real{}
				f := targettest.NewFake(clk, targettest.Options{Seed: 4, StartEstop: "left by a path"})
				var out, evb bytes.Buffer
				x := &rec{}
				ev := evidence.New(&evb, clk)
				r := New(f, clk, ev, &out, "test", RecordParts{Head: &x.head, States: &x.states, Ending: &x.ending, Aborted: &x.aborted})
				r.ErrAborted, r.DriverBack = errTestAborted, 2*time.Second
				spec := &stoppath.Spec[struct{}]{Name: "estop", Input: "autonomous", KillsDriver: c.kills, Trigger: stoppath.EstopRequest}
				s := stoppath.Step[struct{}]{Spec: spec, Motion: stoppath.Motion{Name: "fwd 0.2", Twist: kinematics.Twist{VX: 0.2}}}
				p := NewPath(r, s, 50*time.Millisecond)
				sends := 0
				p.Send = func(ctx context.Context) error {
					sends++
					p.LastSend = clk.Now()
					return p.Pub.Send(ctx, s.Motion.Twist)
				}
				var calls []string
				l := legTrace(&p, &calls, c.end)
				l.Verbose = c.verbose
				start := clk.Now()
				if err := p.Run(context.Background(), 0, 1, l); err != nil {
					t.Fatalf("run: %v", err)
				}
				// The trace's phases are those Run set before each hook.
				if !slices.Equal(calls, all[:c.want]) {
					t.Fatalf("hooks\n got %q\nwant %q", calls, all[:c.want])
				}
				ev.Flush()
				fc := strings.Join(f.Calls(), " ")
				if !strings.Contains(evb.String(), "e-stop latched before the leg (left by a path): reset") || !strings.Contains(fc, "reset") {
					t.Errorf("a latched e-stop was not reset: calls %s\n%s", fc, evb.String())
				}
				if c.want <= 2 {
					if p.Drv != nil || p.Pub != nil || strings.Contains(fc, "enable") {
						t.Errorf("the step ended at %s but recorded, published or enabled: calls %s", c.end, fc)
					}
					return
				}
				if !strings.Contains(out.String(), "[1/1] estop fwd 0.2: going ...") {
					t.Errorf("progress line:\n%s", out.String())
				}
				if p.Drv == nil || (p.Below != nil) != c.kills || p.Pub == nil || !slices.Contains(f.Calls(), "enable") {
					t.Errorf("recordings %v below %v publisher %v", p.Drv, p.Below, p.Pub)
				}
				if got := strings.Contains(evb.String(), "enable true"); got != c.verbose {
					t.Errorf("verbose %v: 'enable true' in the evidence %v", c.verbose, got)
				}
				if c.want < 6 {
					return
				}
				if p.Trig.IsZero() || !p.HoldEnd.Equal(p.Trig.Add(2*time.Second)) {
					t.Errorf("trigger %v, hold end %v: want the hold 2 s after the trigger", p.Trig, p.HoldEnd)
				}
				if took := clk.Now().Sub(start); took < 3*time.Second || sends < 55 || sends > 65 {
					t.Errorf("took %v with %d commands: want 1 s of drive and 2 s of hold at 20 Hz", took, sends)
				}
				if !strings.Contains(fc, "estop") {
					t.Errorf("no e-stop request (the spec's trigger): %s", fc)
				}
			})
		})
	}
}

// A refused command in the drive to the trigger ends the step with the drive's words; a trigger's error is
// Run's as it is.
func TestPathRunErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, f, _ := newRun(t, targettest.Options{Seed: 5})
		spec := &stoppath.Spec[struct{}]{Name: "x", Input: "autonomous", Trigger: func(ctx context.Context, fi stoppath.Firing) error {
			return fi.Act("nothing", func() error { return errors.New("refused") })
		}}
		p := NewPath(r, stoppath.Step[struct{}]{Spec: spec}, 50*time.Millisecond)
		var calls []string
		l := legTrace(&p, &calls, "")
		p.Send = func(ctx context.Context) error { return nil }
		if err := p.Run(context.Background(), 0, 1, l); err == nil || err.Error() != "nothing failed: refused" {
			t.Errorf("trigger error: %v", err)
		}
		p.Cleanup(context.Background())
		q := NewPath(r, stoppath.Step[struct{}]{Spec: spec}, 50*time.Millisecond)
		l = legTrace(&q, &calls, "")
		l.Drive = func(ctx context.Context, until time.Time, tolerate bool) error { return errors.New("no") }
		if err := q.Run(context.Background(), 0, 1, l); err == nil || err.Error() != "command refused while going: no" {
			t.Errorf("drive error: %v", err)
		}
		q.Cleanup(context.Background())
		if f.Enabled() {
			t.Error("enabled after the clean-up")
		}
		// Step: a trigger that hangs is ended by the path's own timeout (timedOut, the phase says where), and
		// the clean-up disables the wheels.
		spec.Trigger = func(ctx context.Context, fi stoppath.Firing) error { <-ctx.Done(); return ctx.Err() }
		h := NewPath(r, stoppath.Step[struct{}]{Spec: spec}, 50*time.Millisecond)
		h.Send = func(ctx context.Context) error { return h.Pub.Send(ctx, kinematics.Twist{}) }
		err, timedOut := h.Step(context.Background(), 0, 1, 5*time.Second, legTrace(&h, &calls, ""))
		if !timedOut || !errors.Is(err, context.DeadlineExceeded) || h.Phase != "triggering x" || f.Enabled() {
			t.Errorf("hung trigger: %v, timed out %v, phase %q, enabled %v", err, timedOut, h.Phase, f.Enabled())
		}
	})
}
