package stoppath

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/kinematics"
)

// A floor-like table: its own motions, rule type and schedule, nothing of the stand's.
type floorRule struct{ corridor float64 }

var (
	fwd01  = Motion{"fwd 0.1", kinematics.Twist{VX: 0.1}}
	back02 = Motion{"back 0.2", kinematics.Twist{VX: -0.2}}
	turn05 = Motion{"turn 0.5", kinematics.Twist{WZ: 0.5}}
	floor  = Table[floorRule]{
		{Name: "estop", Label: "estop request", Help: "the e-stop request", At: Sweep(fwd01, back02), Trigger: EstopRequest},
		{Name: "deadman", Label: "deadman", Help: "silence", At: Sweep(fwd01, back02, turn05), Trigger: Silence},
		{Name: "kill", Label: "driver kill", Row: "SIGKILL of the driver", Help: "SIGKILL", At: Once(back02, 0),
			KillsDriver: true, Trigger: KillDriver, Release: "back by itself", Rule: floorRule{1.2}},
	}
)

func titles(steps []Step[floorRule]) string {
	var s []string
	for _, x := range steps {
		s = append(s, x.Title())
	}
	return strings.Join(s, "|")
}

func TestTableSchedulesRoundByRoundInTableOrder(t *testing.T) {
	steps, err := floor.Parse(" KILL ,deadman,estop")
	if err != nil {
		t.Fatal(err)
	}
	want := "estop fwd 0.1|deadman fwd 0.1|kill back 0.2|estop back 0.2|deadman back 0.2|deadman turn 0.5"
	if got := titles(steps); got != want {
		t.Errorf("schedule\n got %s\nwant %s", got, want)
	}
	if n := Lines(steps); n != 7 {
		t.Errorf("%d result lines, want 7 (kill has a release line)", n)
	}
	if got := strings.Join(PathNames(steps), ","); got != "estop,deadman,kill" || PathNames(steps[:0]) != nil {
		t.Errorf("path names %q (and %v for no step), want each once in the order they first run", got, PathNames(steps[:0]))
	}
	if steps[2].Name() != "driver kill, back 0.2" || steps[2].Spec.Rule.corridor != 1.2 || steps[2].Spec.RowLabel() != "SIGKILL of the driver" {
		t.Errorf("kill step %+v", steps[2])
	}
	all, _ := floor.Parse("all")
	if titles(all) != want {
		t.Errorf("all: %s", titles(all))
	}
}

func TestTableColumnsHelpAndErrors(t *testing.T) {
	var cols []string
	for _, m := range floor.Motions() {
		cols = append(cols, m.Name)
	}
	if got := strings.Join(cols, "|"); got != "fwd 0.1|back 0.2|turn 0.5" {
		t.Errorf("columns %s", got)
	}
	if !floor[2].RunsAt(back02) || floor[2].RunsAt(fwd01) {
		t.Error("RunsAt")
	}
	if h := floor.Help(); !strings.Contains(h, "  deadman   at fwd 0.1, back 0.2, turn 0.5: silence\n") {
		t.Errorf("help:\n%s", h)
	}
	if _, err := floor.Parse("estop,contact"); err == nil || !strings.Contains(err.Error(), `"contact"`) || !strings.Contains(err.Error(), "estop,deadman,kill") {
		t.Errorf("unknown path: %v", err)
	}
	if _, err := floor.Parse(" , "); err == nil {
		t.Error("an empty list was accepted")
	}
}
