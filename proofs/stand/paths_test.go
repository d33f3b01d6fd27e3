package stand

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

// withBumper is the stand table plus a path no other code knows (a bumper's e-stop), at fwd 0.2
// after every other path. Nothing but this entry and its trigger function is added.
func withBumper() stoppath.Table[Rule] {
	return append(slices.Clone(Paths), Spec{Name: "bumper", Label: "bumper", Help: "a bumper's e-stop",
		At: stoppath.Once(Fwd02, after+1), Trigger: func(ctx context.Context, f stoppath.Firing) error {
			return f.Act("bumper e-stop", func() error { return f.Target().Estop(ctx) })
		}})
}

// A new path is one table entry plus its trigger: it parses, is scheduled, runs, is judged, and has its row
// in the table and its line in the help; and the negative control fails it.
func TestANewPathIsOneTableEntry(t *testing.T) {
	table := withBumper()
	steps, err := table.Parse("bumper,estop")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range steps {
		titles = append(titles, s.Title())
	}
	if got, want := strings.Join(titles, "|"), "estop fwd 0.2|estop fwd 0.35|estop rot 1.0|bumper fwd 0.2"; got != want {
		t.Errorf("schedule %s, want %s", got, want)
	}
	if !strings.Contains(table.Help(), "bumper    at fwd 0.2: a bumper's e-stop") || !strings.Contains(table.List(), ",contact,bumper") {
		t.Errorf("help does not name the new path:\n%s\n%s", table.Help(), table.List())
	}
	if _, err := ParsePaths("bumper"); err == nil {
		t.Error("the stand table without the entry accepted bumper")
	}
	for _, c := range []struct {
		opt  targettest.Options
		want vibration.Outcome
	}{{targettest.Options{Seed: 21}, vibration.Pass}, {targettest.Options{Seed: 22, IgnoreStop: true}, vibration.Fail}} {
		synctest.Test(t, func(t *testing.T) {
			clk := clock.Real{}
			f := targettest.NewFake(clk, c.opt)
			o := testOptions(clk, &testkit.LockedBuffer{})
			o.Paths = table
			rep, err := Prove(context.Background(), f, steps[3:], o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 || rep.Results[0].Outcome != c.want || rep.Planned != 1 {
				t.Fatalf("bumper: %+v, want one %s line", rep.Results, c.want)
			}
			res := rep.Results[0]
			if res.Path != "bumper" || !strings.HasPrefix(res.Line, "bumper, fwd 0.2") {
				t.Errorf("line %q", res.Line)
			}
			var tb strings.Builder
			if err := rep.WriteTable(&tb); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tb.String(), "| bumper") || strings.Contains(tb.String(), "estop request") {
				t.Errorf("table:\n%s", tb.String())
			}
		})
	}
}
