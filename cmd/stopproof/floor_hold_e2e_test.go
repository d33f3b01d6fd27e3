//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/breakrule"
	"github.com/rosorin/rosorin/internal/testkit"
)

// The hold paths on the floor (proofs/floor/hold.go): the stand's six hold paths at fwd 0.1 on the sim's floor
// world, judged from the board's frames, the LiDAR odometry's speed and the gyro, then the ramp after the
// deliberate act.

// TestFloorProveSimHoldsPass: every hold path on the simulated floor, with the publisher commanding through
// every event: the robot stays still until the deliberate act, then resumes through the ramp; the record says
// so and the simulated robot is torn down.
func TestFloorProveSimHoldsPass(t *testing.T) {
	testkit.SkipShort(t, "the floor's hold paths end to end (about 55 s)")
	ev := t.TempDir()
	js := filepath.Join(ev, "floor.json")
	out, code := stopproof(t, 4*time.Minute, "floor", "prove", "--sim", "--evidence-dir", ev, "--json", js, "holds")
	rec := readFloorRecord(t, js)
	if code != 0 || !strings.Contains(out, "RESULT: 12/12 passed") || rec.Passed != 12 || !rec.TeardownOK {
		t.Fatalf("exit %d, passed %d/%d; want 0 and 12/12\n%s", code, rec.Passed, rec.Planned, out)
	}
	assertTornDown(t, simDir(t, out))
	for _, row := range []string{"e-stop reset (held, then resumed)", "driver restart (held)", "service restart (held)",
		"USB drop and return (held)", "board firmware reset (held)", "deadman, then zero (held)"} {
		if !strings.Contains(out, "| "+row) {
			t.Errorf("the table has no row %q", row)
		}
	}
	for _, label := range []string{"held after e-stop reset fwd 0.1", "held after driver restart fwd 0.1", "zero after timeout fwd 0.1"} {
		ls := holdLines(out, label)
		// The still line carries the measured motion: the LiDAR odometry's speed peak under 0.04 m/s.
		if len(ls) != 1 || !strings.Contains(ls[0], "PASS") || !strings.Contains(ls[0], "m/s (< 0.040) in ") {
			t.Errorf("%s: want one PASS line with the odometry's speed, got %q", label, ls)
		}
	}
	for _, label := range []string{"enable after reset: ramp from zero fwd 0.1", "small command after zeros: no burst fwd 0.1"} {
		if ls := holdLines(out, label); len(ls) != 1 || !strings.Contains(ls[0], "reached in ") || !strings.Contains(ls[0], "PASS") {
			t.Errorf("%s: want one PASS ramp line, got %q", label, ls)
		}
	}
}

// TestFloorHoldNegativeControls: with a rosorin_breakrule driver each floor hold FAILs, naming what the board
// was told: self-enable (the reset resumes by itself; the live rule fires every stop, and the line names the
// frames from the reset on), keep-ramp (the ramp keeps its speed over the deadman: the burst at the first
// zero command).
func TestFloorHoldNegativeControls(t *testing.T) {
	testkit.SkipShort(t, "the floor's hold negative controls end to end (about 20 s)")
	bin := brokenBase(t)
	for _, c := range []struct{ rule, path, label string }{
		{breakrule.SelfEnable, "reset-hold", "held after e-stop reset fwd 0.1"},
		{breakrule.KeepRamp, "zero-after-timeout", "zero after timeout fwd 0.1"},
	} {
		t.Run(c.rule, func(t *testing.T) {
			ev := t.TempDir()
			cmd := command(t, "", "floor", "prove", "--sim", "--base-bin", bin, "--evidence-dir", ev, "--json", filepath.Join(ev, "floor.json"), c.path)
			cmd.Env = append(cmd.Env, breakrule.Env+"="+c.rule)
			out, code := runStopproof(t, cmd, 3*time.Minute)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(out, bin+" (") {
				t.Errorf("the output does not name the test build %s as the driver proven", bin)
			}
			var ls []string // the result line (the live rule's own line says "MOVED AGAIN" before it)
			for _, l := range holdLines(out, c.label) {
				if strings.Contains(l, " hold ") {
					ls = append(ls, l)
				}
			}
			if len(ls) != 1 || !strings.Contains(ls[0], "FAIL") || !strings.Contains(ls[0], "the board was told 0.") {
				t.Errorf("%s: want one FAIL line naming what the board was told, got %q", c.label, ls)
			}
			if rec := readFloorRecord(t, filepath.Join(ev, "floor.json")); !rec.TeardownOK {
				t.Error("teardown did not disable the wheels")
			}
			assertTornDown(t, simDir(t, out))
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}
