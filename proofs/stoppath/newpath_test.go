package stoppath_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target/targettest"
	"github.com/rosorin/rosorin/sim"
)

// What a new stop path touches (the package doc's promise, which this test keeps true):
//
//  1. one Spec in the table of each proof that runs it: proofs/stand/paths.go, proofs/floor/paths.go;
//  2. its trigger function, beside the table, or in proofs/stoppath/stoppath.go when every proof uses it;
//  3. only when the trigger needs an action no target role has: one method on one role in
//     proofs/target/target.go, or an optional role of its own, and its implementations (live.go, simtarget.go,
//     ros2.go, targettest/fake.go; an optional role only where the target can do it).
//
// Nothing else: the runners, the engine (proofs/internal/runcore), the report, the table, the JSON record and
// the command's help follow the table. Below, a path made here, whose trigger disables the wheels and then
// latches the e-stop (actions of the Switcher role), runs through the stand proof and the floor proof on
// targettest's fake with nothing changed but the table each proof is handed.

// both is the new path's trigger: nothing but what a Firing offers.
var both stoppath.Trigger = func(ctx context.Context, f stoppath.Firing) error {
	return f.Act("enable false, then the e-stop", func() error {
		if err := f.Target().Enable(ctx, false); err != nil {
			return err
		}
		return f.Target().Estop(ctx)
	})
}

func TestANewPathRunsEndToEnd(t *testing.T) {
	t.Run("stand", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			table := append(stoppath.Table[stand.Rule]{}, stand.Paths...)
			table = append(table, stand.Spec{Name: "both", Label: "enable false + e-stop", Help: "enable false, then the e-stop",
				At: stoppath.Once(stand.Fwd02, 0), Trigger: both})
			steps, err := table.Parse("both")
			if err != nil {
				t.Fatal(err)
			}
			clk := clock.Real{}
			out := &testkit.LockedBuffer{}
			o := stand.DefaultOptions()
			o.Clock, o.Out, o.Evidence, o.Paths = clk, out, evidence.New(nil, clk), table
			o.Spin, o.Hold, o.PathTimeout, o.TeardownTimeout = 1500*time.Millisecond, 3*time.Second, 30*time.Second, 5*time.Second
			f := targettest.NewFake(clk, targettest.Options{Seed: 1})
			rep, err := stand.Prove(context.Background(), f, steps, o)
			if err != nil {
				t.Fatal(err)
			}
			s := out.String()
			for _, want := range []string{"[1/1] both fwd 0.2: spinning up ...", "enable false + e-stop, fwd 0.2", "RESULT: 1/1"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q in the output:\n%s", want, s)
				}
			}
			if !rep.AllPassed() || len(rep.Results) != 1 || rep.Results[0].Path != "both" || f.Enabled() {
				t.Errorf("%s (enabled %v):\n%s", rep.ResultLine(), f.Enabled(), s)
			}
			if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"path":"both"`) {
				t.Errorf("JSON record: %v\n%s", err, b)
			}
			if h := table.Help(); !strings.Contains(h, "  both      at fwd 0.2: enable false, then the e-stop\n") {
				t.Errorf("help:\n%s", h)
			}
		})
	})
	t.Run("floor", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			table := stoppath.Table[floor.Rule]{{Name: "both", Label: "both", Row: "enable false + e-stop", Help: "enable false, then the e-stop",
				At: stoppath.Once(floor.Fwd02, 0), Trigger: both}}
			steps, err := table.Parse("both")
			if err != nil {
				t.Fatal(err)
			}
			out := &testkit.LockedBuffer{}
			o := floor.DefaultOptions()
			o.Out, o.Paths = out, table
			f := targettest.NewFake(clock.Real{}, targettest.Options{Seed: 1, Floor: sim.DefaultRoom()})
			rep, err := floor.Prove(context.Background(), f, steps, o)
			if err != nil {
				t.Fatal(err)
			}
			s := out.String()
			for _, want := range []string{"[1/1] both fwd 0.2: driving ...", "both fwd 0.2 before: 0.", "| enable false + e-stop |", "RESULT: 1/1"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q in the output:\n%s", want, s)
				}
			}
			if !rep.AllPassed() || rep.AnyFailed() || f.Enabled() {
				t.Errorf("%s (enabled %v):\n%s", rep.ResultLine(), f.Enabled(), s)
			}
		})
	})
}
