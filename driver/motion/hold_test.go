package motion

// Issue 34, "no motion without a deliberate act": the gate's rules after every event that stops the wheels,
// each with a publisher that keeps sending the old command through the event. Everything runs in the gate's
// own time (every millisecond of a scripted timeline, a Step every tick; no sleeping). Each test can fail:
// hold_break_test.go (build tag rosorin_breakrule) runs them with the keep-ramp rule broken and requires the
// FAILs, and TestHoldCheckerCatchesASelfEnable shows the checker failing a gate that moves before its enable.

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

const tickMS = int(tick / time.Millisecond)

// holdCase is one scripted timeline. Every millisecond from 0 to end, the harness gives the gate a LiDAR scan
// every 100 ms (except during scanGap) and then runs act, which sends the publishers' commands and performs
// the event; every tick (20 ms) the gate steps. The rules checked on every step:
//   - from the event (r.stop) until the release (r.release, or the first command after r.enable or
//     r.releaseAtNextCommand), the output is exactly zero;
//   - from the release on, no axis exceeds its acceleration x (time since the release) + one tick's step:
//     the wheels come back through the ramp from zero, never at the old speed;
//   - whenever the output leaves zero, it grows no faster than the ramp from the last zero step;
//   - with cap set, from the event on no axis exceeds the cap's (+1e-9);
//   - the last step gives want (a gate that never moves again fails too).
type holdCase struct {
	name    string
	cmd     kinematics.Twist // the old command the publisher keeps sending
	phase   int              // the publisher sends at ms % 20 == phase
	end     int              // ms
	scanGap [2]int           // no scans in [scanGap[0], scanGap[1]) ms
	cap     *kinematics.Twist
	want    kinematics.Twist
	act     func(r *run)
}

// run is the state of one timeline, for act and the checks.
type run struct {
	c       holdCase
	g       *Gate
	ms      int
	stopAt  int  // ms of the event; -1 before it
	release int  // ms of the latest release; -1 none
	armed   bool // the next accepted command is the release
	bad     []string
}

func (r *run) now() time.Time { return t0.Add(time.Duration(r.ms) * time.Millisecond) }

func (r *run) fail(format string, a ...any) {
	r.bad = append(r.bad, fmt.Sprintf("%d ms: ", r.ms)+fmt.Sprintf(format, a...))
}

// publish sends c on input in if this is one of the publisher's milliseconds (every 20 ms at the phase).
func (r *run) publish(in Input, c kinematics.Twist) {
	if r.ms%tickMS == r.c.phase {
		r.send(in, c)
	}
}

// send stores c on input in now; an accepted command is the release if one was armed.
func (r *run) send(in Input, c kinematics.Twist) error {
	err := r.g.SetCmd(in, c, r.now(), SourceSoftware)
	if err == nil && r.armed {
		r.release, r.armed = r.ms, false
	}
	return err
}

// stop marks the event: from now on the wheels must be still until the release.
func (r *run) stop() { r.stopAt = r.ms }

// enable is the deliberate act: Enable(true), after which the first command is the release.
func (r *run) enable() {
	if err := r.g.Enable(true); err != nil {
		r.fail("Enable(true): %v", err)
		return
	}
	r.armed = true
}

// releaseNow marks the instant the gate may move again by design (scans back, the lower input leads again).
func (r *run) releaseNow() { r.release, r.armed = r.ms, false }

// releaseAtNextCommand: the first accepted command from now on is the release (after a refusal, a deadman).
func (r *run) releaseAtNextCommand() { r.armed = true }

// play runs the timeline and returns the broken rules, one line each.
func (c holdCase) play() []string {
	lim := DefaultLimits()
	r := &run{c: c, g: NewGate(lim), stopAt: -1, release: -1}
	lastZero := -tickMS // ms of the last step that gave zero (the gate was still the tick before its start)
	var out kinematics.Twist
	for r.ms = 0; r.ms <= c.end; r.ms++ {
		if r.ms%100 == 0 && !(c.scanGap[0] <= r.ms && r.ms < c.scanGap[1]) {
			r.g.Sensed(r.now())
		}
		c.act(r)
		if r.ms%tickMS != 0 {
			continue
		}
		out = r.g.Step(r.now(), tick)
		over := func(sinceMS int, extra time.Duration) bool {
			s := (time.Duration(sinceMS)*time.Millisecond + extra).Seconds()
			l, a := lim.MaxAccelLinear*s+1e-9, lim.MaxAccelAngular*s+1e-9
			return math.Abs(out.VX) > l || math.Abs(out.VY) > l || math.Abs(out.WZ) > a
		}
		switch {
		case out == kinematics.Twist{}:
			lastZero = r.ms
		case over(r.ms-lastZero, 0):
			r.fail("%v: left zero faster than the ramp (last zero step %d ms)", out, lastZero)
		}
		if r.stopAt < 0 || r.ms < r.stopAt {
			continue
		}
		if r.release < r.stopAt {
			if out != (kinematics.Twist{}) {
				r.fail("%v after the event at %d ms, before the release: the wheels must stay still", out, r.stopAt)
			}
		} else if over(r.ms-r.release, tick) {
			r.fail("%v, %d ms after the release: not the ramp from zero", out, r.ms-r.release)
		}
		if m := c.cap; m != nil && (math.Abs(out.VX) > math.Abs(m.VX)+1e-9 || math.Abs(out.VY) > math.Abs(m.VY)+1e-9 ||
			math.Abs(out.WZ) > math.Abs(m.WZ)+1e-9) {
			r.fail("%v over %v, the largest command since the event", out, *m)
		}
	}
	if r.stopAt < 0 {
		r.fail("the event never happened")
	}
	if !twistNear(out, c.want, 1e-9) {
		r.fail("ended at %v, want %v (the gate must move again after the release)", out, c.want)
	}
	return r.bad
}

// hold runs each case as a subtest and reports its first broken rules.
func hold(t *testing.T, cases []holdCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := c.play()
			for i, b := range bad {
				if i == 6 {
					t.Errorf("... and %d more", len(bad)-i)
					break
				}
				t.Error(b)
			}
		})
	}
}

// The old commands, each with a publisher phase: in step with the gate's ticks, and out of step.
var holdCmds = []struct {
	name  string
	cmd   kinematics.Twist
	phase int
}{
	{"vx 0.2 in phase", kinematics.Twist{VX: 0.2}, 0},
	{"vx 0.2 wz 0.5 7ms out of phase", kinematics.Twist{VX: 0.2, WZ: 0.5}, 7},
	{"reverse diagonal 13ms out of phase", kinematics.Twist{VX: -0.2, VY: 0.15, WZ: -1}, 13},
}

// E-stop trip, then Reset, with the publisher running: still until Enable(true), then the ramp from zero.
func TestHoldEStopReset(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name          string
		reset, enable int // ms
	}{
		{"reset then enable later", 1300, 1600},
		{"reset and enable in one ms", 1300, 1300},
		{"enable long after", 1100, 2500},
	} {
		for _, v := range holdCmds {
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: row.enable + 1000,
				want: v.cmd, act: func(r *run) {
					switch r.ms {
					case 0:
						r.enable()
					case 1000:
						r.g.Trip("gamepad button 0x0100")
						r.stop()
					case row.reset:
						if r.g.Enable(true) == nil {
							r.fail("Enable(true) accepted while latched")
						}
						r.g.Reset()
					}
					if r.ms == row.enable {
						r.enable()
					}
					r.publish(InputCmdVel, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// Enable(false) then Enable(true) while the publisher runs: still until Enable(true), then the ramp from zero.
func TestHoldDisableEnable(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name   string
		enable int // ms; disabled at 1000
	}{
		{"enable 0.5 s later", 1500},
		{"enable within cmd_timeout", 1030},
		{"off and on in one ms", 1000},
	} {
		for _, v := range holdCmds {
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: row.enable + 1000,
				want: v.cmd, act: func(r *run) {
					switch r.ms {
					case 0:
						r.enable()
					case 1000:
						if err := r.g.Enable(false); err != nil {
							r.fail("Enable(false): %v", err)
						}
						r.stop()
					}
					if r.ms == row.enable {
						r.enable()
					}
					r.publish(InputCmdVel, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// A fresh gate (the driver's first start, or a restart: a new process) with the publisher running before it:
// still until Enable(true), then the ramp from zero.
func TestHoldFreshGate(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name   string
		enable int // ms
	}{
		{"enable after 1 s of commands", 1000},
		{"enable between commands", 1011},
		{"enable after 5 s", 5000},
	} {
		for _, v := range holdCmds {
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: row.enable + 1000,
				want: v.cmd, act: func(r *run) {
					if r.ms == 0 {
						r.stop() // the process starts: the gate is new
					}
					if r.ms == row.enable {
						r.enable()
					}
					r.publish(InputCmdVel, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// The deadman: the publisher stops for more than CmdTimeout, then sends zero, then a small command. The output
// never exceeds the small command and starts from zero (Clearpath's zero_speed_command_hold_test: a burst of
// 0.10-0.15 m/s after a timeout when the rate limiter kept the old command).
func TestHoldDeadmanThenZeroThenSmall(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name         string
		silent, zero int // ms
	}{
		{"silent 0.5 s, zero 0.5 s", 500, 500},
		{"silent just over cmd_timeout, zero 0.5 s", 320, 500},
		{"silent 0.5 s, one zero", 500, 20},
		{"silent 0.5 s, no zero", 500, 0},
	} {
		for _, v := range holdCmds {
			small := kinematics.Twist{VX: v.cmd.VX / 4, VY: v.cmd.VY / 4, WZ: v.cmd.WZ / 4} // vx 0.05 m/s
			zeroAt, smallAt := 1000+row.silent, 1000+row.silent+row.zero
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: smallAt + 1000,
				cap: &small, want: small, act: func(r *run) {
					switch r.ms {
					case 0:
						r.enable()
					case 980 + r.c.phase + 301: // the last old command is at 980+phase: the deadman holds after 300 ms
						r.stop()
					case smallAt:
						r.releaseAtNextCommand()
					}
					switch {
					case r.ms < 1000:
						r.publish(InputCmdVel, r.c.cmd)
					case r.ms >= zeroAt && r.ms < smallAt:
						r.publish(InputCmdVel, kinematics.Twist{})
					case r.ms >= smallAt:
						r.publish(InputCmdVel, small)
					}
				}})
		}
	}
	hold(t, cases)
}

// The scan gate: no scan for more than ScanTimeout while commanded, then scans return. The release is by
// design (the scan gate is not latched), through the ramp from zero, never at the old speed.
func TestHoldScanGateRelease(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name      string
		gapEndsAt int // ms; scans stop after the one at 900 (the gate holds after 1400)
	}{
		{"scans back after 0.6 s", 1500},
		{"scans back after 1.1 s", 2000},
	} {
		for _, v := range holdCmds {
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: row.gapEndsAt + 1000,
				scanGap: [2]int{1000, row.gapEndsAt}, want: v.cmd, act: func(r *run) {
					switch r.ms {
					case 0:
						r.enable()
					case 900 + 501:
						r.stop()
					case row.gapEndsAt:
						r.releaseNow() // the harness gave the scan before act
					}
					r.publish(InputCmdVel, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// The take-over hand-back: manual sends zero on the higher input while autonomous keeps sending the old
// command; manual goes silent; autonomous leads again after SourceTimeout and resumes through the ramp from
// zero.
func TestHoldTakeOverHandBack(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name   string
		manual int // ms of manual's zero commands from 1000
	}{
		{"manual zero for 0.3 s", 300},
		{"manual zero once", 20},
		{"manual zero for 2 s", 2000},
	} {
		for _, v := range holdCmds {
			lastManual := 1000 + row.manual - tickMS // + phase
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase,
				end: lastManual + 1200, want: v.cmd, act: func(r *run) {
					switch r.ms {
					case 0:
						r.enable()
					case 1000 + r.c.phase:
						r.stop() // manual's first zero: the take-over stops the wheels at once
					case lastManual + r.c.phase + int(DefaultLimits().SourceTimeout/time.Millisecond) + 1:
						r.releaseNow() // manual is stale: autonomous leads again
					}
					if r.ms >= 1000 && r.ms < 1000+row.manual {
						r.publish(InputManual, kinematics.Twist{})
					}
					r.publish(InputAutonomous, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// A refused command (non-finite, or absurd) while driving, then good commands: from zero through the ramp.
func TestHoldRefusedCommand(t *testing.T) {
	var cases []holdCase
	for _, row := range []struct {
		name string
		bad  kinematics.Twist
	}{
		{"NaN vx", kinematics.Twist{VX: math.NaN()}},
		{"+Inf wz", kinematics.Twist{VX: 0.2, WZ: math.Inf(1)}},
		{"vx 3 m/s (over 10x max_linear)", kinematics.Twist{VX: 3}},
	} {
		for _, v := range holdCmds {
			cases = append(cases, holdCase{name: row.name + "/" + v.name, cmd: v.cmd, phase: v.phase, end: 2500,
				want: v.cmd, act: func(r *run) {
					if r.ms == 0 {
						r.enable()
					}
					if r.ms == 1000+r.c.phase { // this one command of the publisher is broken
						if err := r.send(InputCmdVel, row.bad); !errors.Is(err, ErrBadCommand) {
							r.fail("SetCmd(%v) = %v, want ErrBadCommand", row.bad, err)
						}
						r.stop()
						r.releaseAtNextCommand()
						return
					}
					r.publish(InputCmdVel, r.c.cmd)
				}})
		}
	}
	hold(t, cases)
}

// The checker itself must fail a gate that moves without the deliberate act: the fresh-gate timeline, with a
// driver that enables the gate at its start (breakrule's self-enable, which lives in the driver, not here).
func TestHoldCheckerCatchesASelfEnable(t *testing.T) {
	c := holdCase{name: "self-enable", cmd: kinematics.Twist{VX: 0.2}, end: 2000, want: kinematics.Twist{VX: 0.2},
		act: func(r *run) {
			switch r.ms {
			case 0:
				r.stop()
				if err := r.g.Enable(true); err != nil { // not r.enable: nobody acted
					r.fail("%v", err)
				}
			case 1000:
				r.enable()
			}
			r.publish(InputCmdVel, r.c.cmd)
		}}
	if bad := c.play(); len(bad) == 0 {
		t.Error("a gate enabled at its start passed the fresh-gate rules")
	} else {
		t.Logf("caught, as it must be: %s", bad[0])
	}
}
