package runcore

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

// Each test runs in a synctest bubble against targettest's fake robot: the clock is virtual, so the
// teardown's timeouts and retries take no real time.

var errTestAborted = errors.New("test proof aborted")

type rec struct {
	head    Head
	states  States
	ending  Ending
	aborted string
}

func newRun(t *testing.T, opt targettest.Options) (*Run, *rec, *targettest.Fake, *bytes.Buffer) {
	t.Helper()
	clk := clock.Real{}
	f := targettest.NewFake(clk, opt)
	var out bytes.Buffer
	x := &rec{}
	r := New(f, clk, evidence.New(nil, clk), &out, "test", RecordParts{Head: &x.head, States: &x.states, Ending: &x.ending, Aborted: &x.aborted})
	r.ErrAborted, r.DriverBack = errTestAborted, 2*time.Second
	return r, x, f, &out
}

var guards = Guards{FaultNote: "a negative control", Plugged: "ABORT: plugged in",
	Publishers: "ABORT: %d other publisher(s)", Estop: "ABORT: e-stop latched (%s)"}

func TestTeardownDisablesTheWheels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, x, f, out := newRun(t, targettest.Options{Seed: 1, StartEnabled: true})
		r.Teardown(5*time.Second, nil)
		if f.Enabled() || !x.ending.TeardownOK || x.ending.Teardown != "wheels disabled" {
			t.Errorf("enabled %v after the teardown: %q ok %v", f.Enabled(), x.ending.Teardown, x.ending.TeardownOK)
		}
		if !strings.HasPrefix(x.states.EndLine, "{enabled: false") || len(x.states.EndState) == 0 || x.head.End.IsZero() {
			t.Errorf("end state %q (%d bytes), end %v", x.states.EndLine, len(x.states.EndState), x.head.End)
		}
		r.EndLines()
		if got := out.String(); strings.Contains(got, "TEARDOWN") || !strings.Contains(got, "end state: {enabled: false") {
			t.Errorf("end lines:\n%s", got)
		}
	})
}

// The negative controls: a driver that never answers a disable gets the e-stop; one that answers neither
// is named loudly, with the power switch.
func TestTeardownFallsBackToTheEstop(t *testing.T) {
	for _, c := range []struct {
		hang []string
		want string
	}{
		{[]string{"enable"}, "; the e-stop was latched instead"},
		{[]string{"enable", "estop"}, "; the e-stop failed too (fake estop: context deadline exceeded): use the power switch"},
	} {
		synctest.Test(t, func(t *testing.T) {
			r, x, f, out := newRun(t, targettest.Options{Seed: 2, Hang: c.hang})
			start := r.Clock.Now()
			r.Teardown(2*time.Second, nil)
			if took := r.Clock.Now().Sub(start); took < 2*time.Second || took > 10*time.Second {
				t.Errorf("teardown took %v: it retries until its 2 s timeout, then gives the e-stop 3 s", took)
			}
			if x.ending.TeardownOK || !strings.HasPrefix(x.ending.Teardown, "COULD NOT DISABLE THE WHEELS: ") || !strings.HasSuffix(x.ending.Teardown, c.want) {
				t.Errorf("hang %v: teardown %q ok %v", c.hang, x.ending.Teardown, x.ending.TeardownOK)
			}
			st, err := f.State(context.Background())
			if latched := err == nil && st.Estop != ""; latched != !slices.Contains(c.hang, "estop") {
				t.Errorf("hang %v: e-stop %q (%v)", c.hang, st.Estop, err)
			}
			r.EndLines()
			if !strings.Contains(out.String(), "TEARDOWN: COULD NOT DISABLE THE WHEELS") {
				t.Errorf("a failed teardown is not printed:\n%s", out.String())
			}
		})
	}
}

// The guards abort with nothing sent, and the record says so; a plugged-in robot drives when the proof allows
// it (Plugged "").
func TestOpenGuards(t *testing.T) {
	for _, c := range []struct {
		name  string
		opt   targettest.Options
		allow bool
		want  string
	}{
		{"plugged", targettest.Options{Plugged: true}, false, "ABORT: plugged in"},
		{"publisher", targettest.Options{OtherPublishers: 2}, false, "ABORT: 2 other publisher(s)"},
		{"estop", targettest.Options{StartEstop: "gamepad"}, false, "ABORT: e-stop latched (gamepad)"},
		{"no driver", targettest.Options{NoDriver: true}, false, "ABORT: no driver state received within 1s - nothing sent ("},
		{"plugged allowed", targettest.Options{Plugged: true}, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, x, f, out := newRun(t, c.opt)
				g := guards
				if c.allow {
					g.Plugged = ""
				}
				_, err := r.Open(context.Background(), time.Second, g)
				if c.want == "" {
					if err != nil || x.aborted != "" || len(x.states.StartState) == 0 || len(x.head.Config) == 0 {
						t.Fatalf("%v, aborted %q, start state %d bytes, config %d bytes", err, x.aborted, len(x.states.StartState), len(x.head.Config))
					}
					return
				}
				if !errors.Is(err, errTestAborted) || !strings.HasPrefix(x.aborted, c.want) || !strings.Contains(out.String(), c.want) {
					t.Fatalf("%v, aborted %q\n%s", err, x.aborted, out.String())
				}
				if x.ending.Teardown != "nothing sent" || !x.ending.TeardownOK || x.head.End.IsZero() {
					t.Errorf("teardown %q ok %v end %v", x.ending.Teardown, x.ending.TeardownOK, x.head.End)
				}
				for _, call := range f.Calls() {
					if call != "state" && call != "config" {
						t.Errorf("sent %q before the guards passed", call)
					}
				}
			})
		})
	}
}

// Await keeps commanding at the command rate until the event comes, and takes the event's time.
func TestAwaitKeepsCommanding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, _, _ := newRun(t, targettest.Options{Seed: 3})
		sends := 0
		p := &Path{R: r, Ctx: context.Background(), CmdPeriod: 50 * time.Millisecond,
			Send: func(context.Context) error { sends++; return nil }}
		at := r.Clock.Now().Add(time.Second)
		err := p.Await("button", func(ctx context.Context, prompt func(string)) (time.Time, string, error) {
			time.Sleep(time.Second)
			return at, "the first frame", nil
		})
		if err != nil || !p.Trig.Equal(at) || p.TrigHow != "the first frame" {
			t.Fatalf("%v: trigger %v (%q), want %v", err, p.Trig, p.TrigHow, at)
		}
		if sends < 19 || sends > 22 {
			t.Errorf("%d commands over the 1 s wait at 20 Hz", sends)
		}
	})
}
