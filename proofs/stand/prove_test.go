package stand

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

// Every test runs in a synctest bubble: the clock is virtual and moves only when every goroutine waits, so
// a proof of 13 paths (minutes of spin-ups and holds) runs in a fraction of a second and no scheduling
// hiccup of a loaded machine can open a gap in the commands that the fake's deadman would see.

func testOptions(clk clock.Clock, out *testkit.LockedBuffer) Options {
	o := DefaultOptions()
	o.Clock = clk
	o.Spin = 1500 * time.Millisecond
	o.Hold = 3 * time.Second
	o.PathTimeout = 30 * time.Second
	o.TeardownTimeout = 5 * time.Second
	o.Out = out
	o.Evidence = evidence.New(nil, clk)
	return o
}

// run proves paths against a fake in a bubble. check runs inside the bubble, after Prove.
func run(t *testing.T, fopt targettest.Options, paths string, tweak func(*Options), check func(*testing.T, *Report, *targettest.Fake, string, error)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := targettest.NewFake(clk, fopt)
		out := &testkit.LockedBuffer{}
		o := testOptions(clk, out)
		if tweak != nil {
			tweak(&o)
		}
		steps, err := ParsePaths(paths)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Prove(context.Background(), f, steps, o)
		check(t, rep, f, out.String(), err)
	})
}

func TestProveEveryPathPassesOnAHealthyRobot(t *testing.T) {
	run(t, targettest.Options{Seed: 1}, "all", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if !rep.AllPassed() || rep.Planned != 17 || rep.Passed != 17 {
			t.Fatalf("%s: want 17/17 and the wheels disabled\n%s", rep.ResultLine(), out)
		}
		for _, res := range rep.Results {
			if res.Release && res.Path == TakeOver {
				// Timed from the last manual command; the check looks at the last second, from 1.2 s on.
				if res.StopS < 1.2 || res.StopS > 2.5 {
					t.Errorf("%s: released %.2f s after letting go, want 1.2-2.5 s", res.Name, res.StopS)
				}
				continue
			}
			if res.Release {
				if res.StopS < 2 || res.StopS > 8 {
					t.Errorf("%s: released %.2f s after the kill; the fake respawns the reader after 2 s", res.Name, res.StopS)
				}
				continue
			}
			// The fake's wheel lag (tau 0.22 s) stops 0.35 m/s in about 0.4 s; the deadman adds its 0.3 s, the
			// scan gate its 0.5 s; a stop at the trigger's first windows or near the 2 s limit is a sequencing bug.
			lo, hi := 0.15, 1.0
			switch res.Path {
			case Deadman:
				lo = 0.4
			case ScanLoss:
				lo, hi = 0.6, 1.6
			}
			if res.StopS < lo || res.StopS > hi {
				t.Errorf("%s: still from %.2f s, want %.2f-%.2f\n%s", res.Name, res.StopS, lo, hi, res.Line)
			}
		}
		if f.Enabled() {
			t.Error("wheels enabled after the run")
		}
		for _, want := range []string{"[1/15] deadman fwd 0.2: spinning up ...", "kill: board IMU read via the supervisor's raw stream",
			"service: board IMU read directly from fake.raw", "RESULT: 17/17 passed", "end state: {enabled: false",
			"| SIGKILL of the driver", "LiDAR back: wheels released by themselves", "manual take-over, fwd 0.35",
			"operator let go: autonomous resumed", "| let go (autonomous resumed)"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q\n%s", want, out)
			}
		}
		// The JSON record carries every measurement with its limit, and PASS as a word.
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"outcome":"PASS"`, `"name":"spinning level before the trigger"`, `"limit":0.0035`,
			`"rule":"\u003c="`, `"imu_source":"raw"`} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("JSON record lacks %s", want)
			}
		}
	})
}

// The negative control: a board that ignores every stop after the trigger must FAIL every path, and the
// teardown must still leave the wheels disabled and stopped.
func TestProveFailsEveryPathWhenTheStopDoesNotStop(t *testing.T) {
	// Not the contact path: its stop comes during the spin-up, before the fault applied at the trigger; its
	// negative control is the reflex off (TestContactPathFailsWithTheReflexOff).
	run(t, targettest.Options{Seed: 2, IgnoreStop: true}, "deadman,estop,disable,scanloss,kill,service,gamepad", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if rep.AllPassed() || rep.Passed != 0 {
			t.Fatalf("%s with a board that ignores stops; want 0 passed\n%s", rep.ResultLine(), out)
		}
		for _, res := range rep.Results {
			if res.Outcome != vibration.Fail {
				t.Errorf("%s: %s, want FAIL", res.Name, res.Outcome)
			}
			if !res.Release && !strings.Contains(res.Reason, "NEVER settled") {
				t.Errorf("%s: reason %q, want NEVER settled", res.Name, res.Reason)
			}
		}
		if !strings.Contains(out, "fault: ignore-stop at each trigger") {
			t.Error("the output does not say a fault was applied")
		}
		time.Sleep(2 * time.Second) // the wheels run down once the fault is cleared
		if f.Enabled() || f.BoardTarget() != 0 || f.WheelRPS() > 0.01 {
			t.Errorf("after the run: enabled %v, board target %.2f rps, wheels %.2f rps; want disabled and stopped",
				f.Enabled(), f.BoardTarget(), f.WheelRPS())
		}
	})
}

func TestProveHungPathIsTimeoutNotFail(t *testing.T) {
	run(t, targettest.Options{Seed: 3, Hang: []string{"estop"}}, "estop,disable", func(o *Options) {
		o.PathTimeout = 10 * time.Second
	}, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		var timeouts, passes int
		for _, res := range rep.Results {
			switch {
			case res.Path == Estop && res.Outcome == vibration.Timeout:
				timeouts++
				if !strings.Contains(res.Reason, "triggering estop") {
					t.Errorf("timeout reason %q does not say where it hung", res.Reason)
				}
			case res.Path == Disable && res.Outcome == vibration.Pass:
				passes++
			default:
				t.Errorf("%s: %s %s", res.Name, res.Outcome, res.Reason)
			}
		}
		if timeouts != 3 || passes != 3 || rep.AllPassed() {
			t.Fatalf("timeouts %d passes %d; want 3 and 3, not all passed\n%s", timeouts, passes, out)
		}
		if !strings.Contains(out, "TIMEOUT") || f.Enabled() {
			t.Errorf("want TIMEOUT in the output and the wheels disabled (enabled %v)\n%s", f.Enabled(), out)
		}
	})
}

func TestProveCtrlCRunsTheTeardown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := targettest.NewFake(clk, targettest.Options{Seed: 4})
		out := &testkit.LockedBuffer{}
		o := testOptions(clk, out)
		steps, _ := ParsePaths("estop,disable")
		ctx, cancel := context.WithCancel(context.Background())
		go func() { // Ctrl-C in the middle of the first path's spin-up
			for f.WheelRPS() < 0.5 {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		rep, err := Prove(ctx, f, steps, o)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rep.Aborted, "interrupted") || rep.AllPassed() {
			t.Fatalf("aborted %q, %s", rep.Aborted, rep.ResultLine())
		}
		if !rep.TeardownOK || f.Enabled() {
			t.Fatalf("teardown %q, enabled %v", rep.Teardown, f.Enabled())
		}
		time.Sleep(2 * time.Second) // the wheels run down
		if f.WheelRPS() > 0.01 {
			t.Errorf("wheels still at %.2f rps after the teardown", f.WheelRPS())
		}
		if !strings.Contains(out.String(), "not run") || !strings.Contains(out.String(), "interrupted") {
			t.Errorf("the output should say it was interrupted and show the paths that did not run\n%s", out.String())
		}
	})
}

func TestProveGuardsSendNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  targettest.Options
		want string
	}{
		{"no driver", targettest.Options{NoDriver: true}, "ABORT: no driver state received"},
		{"plugged", targettest.Options{Plugged: true}, "ABORT: plugged in"},
		{"publisher", targettest.Options{OtherPublishers: 1}, "other velocity-command publisher"},
		{"estop", targettest.Options{Hang: nil, StartEstop: "gamepad button 0x0100"}, "ABORT: e-stop latched (gamepad button 0x0100)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run(t, c.opt, "estop", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
				if !errors.Is(err, ErrAborted) || !strings.Contains(rep.Aborted, c.want) || !strings.Contains(out, c.want) {
					t.Fatalf("err %v, aborted %q; want %q", err, rep.Aborted, c.want)
				}
				for _, call := range f.Calls() {
					if call != "state" {
						t.Errorf("call %q after an abort; nothing may be sent", call)
					}
				}
			})
		})
	}
	run(t, targettest.Options{Plugged: true, Seed: 5}, "estop", func(o *Options) { o.AllowPlugged = true },
		func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
			if err != nil || rep.Passed != 3 {
				t.Fatalf("--allow-plugged: %v %s\n%s", err, rep.ResultLine(), out)
			}
		})
}

func TestProveDisablesWheelsLeftEnabled(t *testing.T) {
	run(t, targettest.Options{Seed: 6, StartEnabled: true}, "disable", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil || !rep.AllPassed() || f.Enabled() {
			t.Fatalf("%v %s enabled %v\n%s", err, rep.ResultLine(), f.Enabled(), out)
		}
		// State reads may come in any number (the runner's followers read it too); the first call that
		// sends something must be the disable.
		calls := f.Calls()
		i := 0
		for i < len(calls) && calls[i] == "state" {
			i++
		}
		if i == len(calls) || calls[i] != "disable" {
			t.Errorf("first calls %v: the wheels left enabled must be disabled before anything is sent", calls[:min(i+2, len(calls))])
		}
	})
}

func TestProveScanLossWithoutRespawnFails(t *testing.T) {
	run(t, targettest.Options{Seed: 7, NoRespawn: true}, "scanloss", func(o *Options) { o.ReleaseWait = 2 * time.Second },
		func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 2 || rep.Results[1].Outcome != vibration.Fail || !strings.Contains(rep.Results[1].Reason, "scans never came back") {
				t.Fatalf("want the release line to FAIL with scans never back\n%s", out)
			}
		})
}

func TestProveKillWithoutDriverBack(t *testing.T) {
	run(t, targettest.Options{Seed: 8, NoDriverBack: true}, "kill,gamepad", func(o *Options) { o.DriverBack = 2 * time.Second },
		func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
			if err != nil {
				t.Fatal(err)
			}
			// The kill is judged from below the driver and passes; the gamepad path has no driver and fails.
			if rep.Results[0].Outcome != vibration.Pass || rep.Results[1].Outcome != vibration.Fail || !strings.Contains(rep.Results[1].Reason, "no driver") {
				t.Fatalf("results %v / %v\n%s", rep.Results[0].Line, rep.Results[1].Line, out)
			}
			if rep.TeardownOK || !strings.Contains(out, "TEARDOWN") {
				t.Errorf("teardown says %q with no driver to disable\n%s", rep.Teardown, out)
			}
		})
}

func TestParsePaths(t *testing.T) {
	steps, err := ParsePaths("kill, estop,deadman")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.Title())
	}
	want := "deadman fwd 0.2|estop fwd 0.2|deadman fwd 0.35|estop fwd 0.35|deadman rot 1.0|estop rot 1.0|kill fwd 0.35"
	if strings.Join(got, "|") != want {
		t.Errorf("got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if _, err := ParsePaths("estop,bumper"); err == nil || !strings.Contains(err.Error(), `"bumper"`) {
		t.Errorf("unknown path: %v", err)
	}
	if _, err := ParsePaths(" , "); err == nil {
		t.Error("empty list accepted")
	}
	all, _ := ParsePaths("all")
	if len(all) != 15 || stoppath.Lines(all) != 17 {
		t.Errorf("all: %d steps, %d lines", len(all), stoppath.Lines(all))
	}
}

// A driver killed by something else in the middle of an e-stop path: the stream ends, the line FAILs (no
// data is never evidence of stillness), and the output says the driver was replaced.
func TestProveNamesADriverThatDiedMidPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := targettest.NewFake(clk, targettest.Options{Seed: 9})
		out := &testkit.LockedBuffer{}
		steps, _ := ParsePaths("estop")
		go func() {
			for !slices.Contains(f.Calls(), "estop") {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(time.Second)
			f.KillDriver(context.Background())
		}()
		rep, err := Prove(context.Background(), f, steps[:1], testOptions(clk, out))
		if err != nil {
			t.Fatal(err)
		}
		r := rep.Results[0]
		if r.Outcome != vibration.Fail || !strings.Contains(r.Reason, "the IMU data stops") || !strings.Contains(out.String(), "was replaced by pid") {
			t.Fatalf("%s\n%s", r.Line, out)
		}
	})
}

// A driver whose stamps are 0.8 s off (a wall-clock step since it started): the stop times do not move, since
// samples are timed on receipt, and the run reports the lag and the offset.
func TestProveReportsTheDriverClockOffset(t *testing.T) {
	run(t, targettest.Options{Seed: 9, DriverClockOffset: 800 * time.Millisecond}, "estop", nil,
		func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
			if err != nil || !rep.AllPassed() {
				t.Fatalf("%v %s\n%s", err, rep.ResultLine(), out)
			}
			for _, res := range rep.Results {
				if res.StopS < 0.15 || res.StopS > 1.0 {
					t.Errorf("%s: still from %.2f s: the offset moved the stop time", res.Name, res.StopS)
				}
				if res.IMULag == nil || math.Abs(res.IMULag.MedianMS-800.3) > 0.01 {
					t.Errorf("%s: lag %+v, want median 800.3 ms", res.Name, res.IMULag)
				}
			}
			if rep.IMULag == nil || rep.IMULag.N == 0 || !strings.Contains(rep.IMUTiming, "on receipt") {
				t.Errorf("record: timing %q, lag %+v", rep.IMUTiming, rep.IMULag)
			}
			for _, want := range []string{"IMU timing: every sample timed on receipt by the proof's clock; driver stamp to receipt: median 800.30 ms",
				"note: the driver's stamps are 0.800 s off their receipt here"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q\n%s", want, out)
				}
			}
		})
	// Without an offset: the lag is the delivery's, and no note.
	run(t, targettest.Options{Seed: 9}, "estop", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if rep.IMULag == nil || math.Abs(rep.IMULag.MedianMS-0.3) > 0.01 || strings.Contains(out, "stamps are") {
			t.Errorf("lag %+v\n%s", rep.IMULag, out)
		}
	})
}

// binFake is a fake that started its driver itself, as the simulator does.
type binFake struct{ *targettest.Fake }

func (binFake) DriverBinary() basebin.Bin {
	return basebin.Bin{Path: "/tmp/x/rosorin-base", How: "built from the source tree /src/cmd/rosorin-base", Version: "(devel) abc go1.26"}
}

// The record names the driver binary a simulated robot ran.
func TestProveRecordsTheDriverBinary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{}
		f := binFake{targettest.NewFake(clk, targettest.Options{Seed: 10})}
		steps, _ := ParsePaths("disable")
		rep, err := Prove(context.Background(), f, steps[:1], testOptions(clk, &testkit.LockedBuffer{}))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep)
		if !bytes.Contains(b, []byte(`"driver_bin":{"path":"/tmp/x/rosorin-base","how":"built from the source tree /src/cmd/rosorin-base"`)) {
			t.Errorf("record %s", b)
		}
	})
}

// The scan-loss stop is judged with a shorter quiet time than the 2 s rule (the scans return, and with them
// the wheels, about 2 s after the kill): the line and the record say so, with the scans' return measured in
// this run, so nobody mistakes it for the 2 s rule.
func TestProveScanLossSaysItsQuietRule(t *testing.T) {
	run(t, targettest.Options{Seed: 11}, "scanloss", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil || !rep.AllPassed() {
			t.Fatalf("%v %s\n%s", err, rep.ResultLine(), out)
		}
		stop := rep.Results[0]
		if !strings.Contains(stop.Line, "(need 0.5 s quiet, not 2 s: scans back 2.") || !strings.HasSuffix(stop.Line, "s after the kill)  PASS") {
			t.Errorf("line %q does not say its quiet rule", stop.Line)
		}
		var quiet Measurement
		for _, m := range stop.Measurements {
			if m.Name == "quiet time" {
				quiet = m
			}
		}
		if quiet.Limit != 0.5 || !strings.HasPrefix(quiet.Why, "need 0.5 s quiet, not 2 s") {
			t.Errorf("quiet measurement %+v", quiet)
		}
		b, _ := json.Marshal(stop)
		if !bytes.Contains(b, []byte(`"quiet_rule":"need 0.5 s quiet, not 2 s: scans back 2.`)) {
			t.Errorf("record %s", b)
		}
		// The other paths keep the 2 s rule and say nothing more.
	})
	run(t, targettest.Options{Seed: 11}, "estop", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		for _, res := range rep.Results {
			if strings.Contains(res.Line, "need") || res.Verdict.QuietRule != "" || res.Verdict.Params.NeedQuiet != 2 {
				t.Errorf("%q", res.Line)
			}
		}
	})
}

// A driver whose max_linear (from its state record's typed configuration) clips a motion gets a warning
// naming the motion; one that does not clip it, none.
func TestProveWarnsWhenTheDriverClipsAMotion(t *testing.T) {
	for _, c := range []struct {
		maxLinear float64
		warn      bool
	}{{0.2, true}, {0.35, false}} {
		run(t, targettest.Options{Seed: 12, MaxLinear: c.maxLinear}, "kill", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
			got := strings.Contains(out, `WARNING: the driver limits speeds to max_linear 0.20 m/s, max_angular 1.00 rad/s: "fwd 0.35" runs slower than its name says`)
			if got != c.warn || strings.Contains(out, "WARNING") != c.warn {
				t.Errorf("max_linear %.2f: warning %v, want %v\n%s", c.maxLinear, got, c.warn, out)
			}
		})
	}
}

// The take-over's negative control on the fake: its gate is the driver's (motion.Gate) with manual below
// autonomous, so the operator's zero never wins and the wheels keep turning: the stop FAILs, and the release
// after it is not judged; with the driver's priorities both lines pass (TestProveEveryPathPassesOnAHealthyRobot).
func TestTakeOverFailsWhenTheLowerPriorityKeepsWinning(t *testing.T) {
	var prio [motion.NumInputs]int
	prio[motion.InputCmdVel], prio[motion.InputAutonomous], prio[motion.InputManual] = 1, 10, 5
	run(t, targettest.Options{Seed: 12, Priority: prio}, "takeover", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if rep.Passed != 0 || len(rep.Results) != 2 {
			t.Fatalf("%s, want 0/2\n%s", rep.ResultLine(), out)
		}
		if !strings.Contains(rep.Results[0].Reason, "NEVER settled") || !strings.Contains(rep.Results[1].Reason, "not judged: the wheels were never shown to stop") {
			t.Errorf("reasons %q, %q", rep.Results[0].Reason, rep.Results[1].Reason)
		}
		if f.Enabled() {
			t.Error("wheels enabled after the run")
		}
		// Both publishers were the proof's, one on each input: arbitration, not the two-publisher trip.
		var manual, autonomous int
		for _, c := range f.Calls() {
			switch {
			case strings.HasSuffix(c, " on manual"):
				manual++
			case strings.HasSuffix(c, " on autonomous"):
				autonomous++
			}
		}
		if manual < 50 || autonomous < 50 {
			t.Errorf("commands: %d on manual, %d on autonomous; want both streams", manual, autonomous)
		}
	})
}
