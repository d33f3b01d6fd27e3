package floor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target/targettest"
	"github.com/rosorin/rosorin/sim"
)

// The runner against targettest's fake on the floor: the driver's own gate, the sim's floor physics and
// LiDAR model, in this process (no driver process, no pseudo-terminals), each test in a synctest bubble: the
// clock is virtual and moves only when every goroutine waits, so the legs' seconds take no real time and the
// machine's load cannot move a stop time.

// small is a floor table of four legs: forward and back, a strafe, a turn.
var small = stoppath.Table[Rule]{
	{Name: "estop", Label: "estop", Help: "e-stop", At: []stoppath.At{leg(Fwd02, 0), leg(Back02, 1), leg(TurnP05, 3)}, Trigger: stoppath.EstopRequest},
	{Name: "deadman", Label: "deadman", Help: "silence", At: []stoppath.At{leg(Left02, 2)}, Trigger: stoppath.Silence},
}

func proveFake(t *testing.T, opt targettest.Options, table stoppath.Table[Rule], list string) (*Report, string, error) {
	t.Helper()
	f := targettest.NewFake(clock.Real{}, opt)
	steps, err := table.Parse(list)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Paths = table
	var out testkit.LockedBuffer
	o.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Minute)) // the bubble's time: 25 legs take about 2 min
	defer cancel()
	rep, err := Prove(ctx, f, steps, o)
	t.Logf("output:\n%s", out.String())
	return rep, out.String(), err
}

func TestProveFakePasses(t *testing.T) { synctest.Test(t, testProveFakePasses) }

func testProveFakePasses(t *testing.T) {
	rep, out, err := proveFake(t, targettest.Options{Seed: 1, Floor: sim.DefaultRoom()}, small, "all")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.AllPassed() || rep.AnyFailed() {
		t.Errorf("%s", rep.ResultLine())
	}
	for _, r := range rep.Results {
		if r.Stop == nil || r.Stop.StillAfter > 0.8 {
			t.Errorf("%s", r.Line)
			continue
		}
		if !r.Stop.Turn && (r.Stop.Travel < 0.01 || r.Stop.Travel > 0.12) {
			t.Errorf("%s: travel %.3f m", r.Name, r.Stop.Travel)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"outcome":"PASS"`) || !strings.Contains(string(b), `"still_after_s":0.`) {
		t.Errorf("--json record: %v\n%s", err, b)
	}
	for _, w := range []string{"estop fwd 0.2 before: 0.", "deadman left 0.2 before: 0.1", "estop turn 0.5 before: turning", "| estop", "RESULT: 4/4 passed"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
}

// The negative controls: a board that ignores the stop FAILs and stops the proof, with every other stop
// fired; an obstacle appearing at the trigger is ABORTED by the guard; an obstacle in the corridor and a
// corridor room are refused before anything moves; plugged in aborts with nothing sent.
func TestProveFakeNegative(t *testing.T) {
	box, err := sim.ParseRoom([]byte(sim.DefaultRoomYAML + "  - {center: [1.0, 0], size: [0.2, 0.2], yaw: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	corridor, _ := sim.NamedRoom("corridor")
	for _, c := range []struct {
		name    string
		opt     targettest.Options
		list    string
		outcome odometry.Outcome
		want    []string
	}{
		{"ignore", targettest.Options{Seed: 2, Floor: sim.DefaultRoom(), IgnoreStop: true}, "estop", odometry.Fail,
			[]string{"STILL MOVING 0.8 s after the stop - all stops fired", "STOPPING THE PROOF: a stop failed", "RESULT: 0/3 passed"}},
		{"obstacle appears", targettest.Options{Seed: 3, Floor: sim.DefaultRoom(), ObstacleAt: 0.4}, "estop", odometry.Aborted,
			[]string{"estop fwd 0.2 ABORTED - something within 0.45 m in the direction of travel", "the proof ends here"}},
		{"obstacle in the corridor", targettest.Options{Seed: 4, Floor: box}, "estop", odometry.NotRun,
			[]string{"estop fwd 0.2 NOT RUN - corridor ahead: nearest 0.", "valid beams ", "estop back 0.2 NOT RUN - backward leg over floor no forward leg covered"}},
		{"corridor room", targettest.Options{Seed: 5, Floor: corridor}, "estop", odometry.NotRun,
			[]string{"estop fwd 0.2 NOT RUN - the odometry cannot see motion along fwd 0.2 here (degenerate"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkNegative(t, c.opt, c.list, c.outcome, c.want, c.name == "ignore") })
		})
	}
	synctest.Test(t, func(t *testing.T) {
		_, out, err := proveFake(t, targettest.Options{Seed: 6, Floor: sim.DefaultRoom(), Plugged: true}, small, "estop")
		if !errors.Is(err, ErrAborted) || !strings.Contains(out, "ABORT: plugged in") {
			t.Errorf("plugged in: %v", err)
		}
	})
}

func checkNegative(t *testing.T, opt targettest.Options, list string, outcome odometry.Outcome, want []string, ignore bool) {
	rep, out, err := proveFake(t, opt, small, list)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) == 0 || rep.Results[0].Outcome != outcome {
		t.Fatalf("first result %+v, want %s", rep.Results, outcome)
	}
	if rep.AllPassed() || !rep.TeardownOK {
		t.Errorf("%s, teardown ok %v", rep.ResultLine(), rep.TeardownOK)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if ignore && len(rep.Results[0].StopsFired) != 3 {
		t.Errorf("stops fired %v, want silence, estop, enable false", rep.Results[0].StopsFired)
	}
}

// TestProveFakeAll runs the whole table, every path at every leg, in the sim's default room: the schedule
// keeps the robot clear of the furniture, every backward leg follows its forward leg, kill and service are
// judged across the driver's absence, and every leg passes.
func TestProveFakeAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep, _, err := proveFake(t, targettest.Options{Seed: 11, Floor: sim.DefaultRoom()}, Paths, "all")
		if err != nil {
			t.Fatal(err)
		}
		if !rep.AllPassed() {
			t.Errorf("%s", rep.ResultLine())
		}
		if rep.Planned != 27 { // 26 legs, the take-over's with its release line
			t.Errorf("planned %d lines, want 27", rep.Planned)
		}
	})
}

// TestLookFake: the look lines in the open room, and the corridor's degenerate direction named; the record
// marshals (NaN nearest of the blind buckets as null).
func TestLookFake(t *testing.T) {
	corridor, _ := sim.NamedRoom("corridor")
	for _, c := range []struct {
		room *sim.Room
		want []string
	}{
		{sim.DefaultRoom(), []string{"battery unknown | plugged false", "LiDAR beams 400, valid 6", "bearing -180 deg: valid   0/  0 nearest nan m",
			"bearing   +0 deg: valid  3", " 0 degenerate, pose spread "}},
		{corridor, []string{"degenerate (weakest bearing 0 deg: motion along it is not measured)"}},
	} {
		synctest.Test(t, func(t *testing.T) {
			var out testkit.LockedBuffer
			rep, err := Look(context.Background(), targettest.NewFake(clock.Real{}, targettest.Options{Seed: 3, Floor: c.room}), 2*time.Second, &out)
			if err != nil || !rep.OK {
				t.Fatalf("%v %+v\n%s", err, rep, out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if _, err := json.Marshal(rep); err != nil {
				t.Error(err)
			}
		})
	}
}

// The take-over on the fake floor robot: stopped by the manual zero, moving again once it lets go; and with
// manual below autonomous (the negative control) still moving 0.8 s after the trigger, every stop fired, the
// proof stopped, the release not judged.
func TestTakeOverFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep, out, err := proveFake(t, targettest.Options{Seed: 13, Floor: sim.DefaultRoom()}, Paths, "takeover")
		if err != nil {
			t.Fatal(err)
		}
		if !rep.AllPassed() || rep.Planned != 2 || len(rep.Results) != 2 || !rep.Results[1].Release {
			t.Fatalf("%s, want 2/2 with the release line\n%s", rep.ResultLine(), out)
		}
		rc := rep.Results[1].ReleaseCheck
		if rc == nil || rc.MovingAfter < 0.2 || rc.MovingAfter > 1.5 {
			t.Errorf("release %+v: want moving again 0.2-1.5 s after letting go (source_timeout 0.2 s, then the ramp)", rc)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		var prio [motion.NumInputs]int
		prio[motion.InputCmdVel], prio[motion.InputAutonomous], prio[motion.InputManual] = 1, 10, 5
		rep, out, err := proveFake(t, targettest.Options{Seed: 13, Floor: sim.DefaultRoom(), Priority: prio}, Paths, "takeover")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Passed != 0 || !rep.AnyFailed() || !rep.StoppedProof || len(rep.Results) != 2 {
			t.Fatalf("%s, want 0/2 and the proof stopped\n%s", rep.ResultLine(), out)
		}
		if !strings.Contains(rep.Results[0].Reason, "STILL MOVING") || !strings.Contains(rep.Results[1].Reason, "never shown to stop") {
			t.Errorf("reasons %q, %q", rep.Results[0].Reason, rep.Results[1].Reason)
		}
	})
}
