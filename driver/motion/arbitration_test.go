package motion

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// arb returns an enabled gate with scans from 0 to 10 s (the scan gate out of the way).
func arb(t *testing.T) *Gate {
	t.Helper()
	g := NewGate(DefaultLimits())
	if err := g.Enable(true); err != nil {
		t.Fatal(err)
	}
	return g
}

// send sets a command of input in at s seconds.
func send(t *testing.T, g *Gate, in Input, c kinematics.Twist, s float64) {
	t.Helper()
	g.Sensed(at(s))
	if err := g.SetCmd(in, c, at(s), SourceSoftware); err != nil {
		t.Fatal(err)
	}
}

func TestInputsParse(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Input
	}{{"", InputCmdVel}, {"cmd_vel", InputCmdVel}, {"autonomous", InputAutonomous}, {"manual", InputManual}} {
		got, err := ParseInput(c.s)
		if err != nil || got != c.want || (c.s != "" && got.String() != c.s) {
			t.Errorf("ParseInput(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, bad := range []string{"Manual", "nav", "none", " manual", "manual/cmd_vel"} {
		if _, err := ParseInput(bad); !errors.Is(err, ErrUnknownInput) || !strings.Contains(err.Error(), "manual, autonomous or cmd_vel") {
			t.Errorf("ParseInput(%q): %v, want ErrUnknownInput naming the inputs", bad, err)
		}
	}
	g := arb(t)
	if err := g.SetCmd(NumInputs, kinematics.Twist{VX: 0.1}, t0, SourceSoftware); !errors.Is(err, ErrUnknownInput) {
		t.Fatalf("SetCmd on input %d: %v, want ErrUnknownInput", NumInputs, err)
	}
	if _, ok := g.Winner(t0); ok {
		t.Fatal("a refused input's command was stored")
	}
}

// TestArbitrationPriority: the fresh input with the highest priority drives; a higher input takes over at its
// first command; a lower one gets the lead back only source_timeout after the higher one's last command, and
// then through the ramp.
func TestArbitrationPriority(t *testing.T) {
	g := arb(t)
	nav := kinematics.Twist{VX: 0.2}
	var out kinematics.Twist
	// Nav2 drives on autonomous at 20 Hz from 0 s; ramped to 0.2 m/s.
	for i := range 40 {
		s := float64(i) * 0.02
		if i%2 == 0 {
			send(t, g, InputAutonomous, nav, s)
		}
		out = g.Step(at(s), tick)
	}
	if !twistNear(out, nav, 1e-9) || g.Driving(at(0.78)) != "autonomous" {
		t.Fatalf("autonomous alone: %v driving %q", out, g.Driving(at(0.78)))
	}
	// A cmd_vel sender (lower) does not take over.
	send(t, g, InputCmdVel, kinematics.Twist{VX: -0.1}, 0.79)
	if w, _ := g.Winner(at(0.79)); w != InputAutonomous {
		t.Fatalf("a lower input took the lead: %v", w)
	}
	// The operator takes over with zero while autonomous keeps commanding: zero at the next step.
	send(t, g, InputManual, kinematics.Twist{}, 0.80)
	if w, _ := g.Winner(at(0.80)); w != InputManual || g.Driving(at(0.80)) != "manual" {
		t.Fatalf("manual did not take over: %v", w)
	}
	send(t, g, InputAutonomous, nav, 0.80)
	if out = g.Step(at(0.80), tick); !out.IsZero() {
		t.Fatalf("take-over: %v, want zero at once", out)
	}
	// Manual holds 0.2 s after its last command (0.80), even while autonomous keeps commanding.
	for s := 0.82; s <= 1.0001; s += 0.02 {
		send(t, g, InputAutonomous, nav, s)
		if out = g.Step(at(s), tick); !out.IsZero() {
			t.Fatalf("at %.2f s (manual's last at 0.80): %v, want zero", s, out)
		}
	}
	// At exactly 0.2 s manual still leads; 1 ns later autonomous (fresh) does, from zero through its ramp.
	if w, _ := g.Winner(at(1.0)); w != InputManual {
		t.Fatalf("at source_timeout exactly: %v, want manual", w)
	}
	if w, _ := g.Winner(at(1.0).Add(1)); w != InputAutonomous {
		t.Fatalf("1 ns after source_timeout: %v, want autonomous", w)
	}
	out = g.Step(at(1.02), tick)
	if want := 0.5 * tick.Seconds(); !near(out.VX, want, 1e-12) {
		t.Fatalf("hand-back: %v, want the ramp's first step %.3f m/s (no jump)", out, want)
	}
}

// TestArbitrationStaleNeverDrives: an input drives only with a fresh command; with none fresh the latest keeps
// the lead and the deadman stops it cmd_timeout after its last command, exactly as with one input.
func TestArbitrationStaleNeverDrives(t *testing.T) {
	g := arb(t)
	send(t, g, InputAutonomous, kinematics.Twist{VX: 0.1}, 0)
	send(t, g, InputManual, kinematics.Twist{VX: 0.05}, 0.1)
	// 0.25 s: autonomous is stale (0.25 > 0.2), manual fresh.
	if w, _ := g.Winner(at(0.25)); w != InputManual {
		t.Fatalf("at 0.25: %v", w)
	}
	// 0.35 s: both stale; manual's is the latest: it keeps the lead (autonomous, stale, never drives again).
	if w, _ := g.Winner(at(0.35)); w != InputManual || g.BlockReason(at(0.35)) != "" {
		t.Fatalf("at 0.35: %v blocked %q", w, g.BlockReason(at(0.35)))
	}
	// The deadman: 0.3 s after manual's last command, not a nanosecond later.
	if b := g.BlockReason(at(0.4)); b != "" {
		t.Fatalf("at exactly cmd_timeout: %q", b)
	}
	if b := g.BlockReason(at(0.4).Add(1)); b != BlockCmdTimeout || g.Driving(at(0.4).Add(1)) != SourceNone {
		t.Fatalf("1 ns after cmd_timeout: %q driving %q", b, g.Driving(at(0.4).Add(1)))
	}
	// A silent source never resumes: nothing new, nothing moves, however long.
	for s := 0.42; s < 3; s += 0.02 {
		if out := g.Step(at(s), tick); !out.IsZero() {
			t.Fatalf("at %.2f: %v", s, out)
		}
	}
}

// TestArbitrationNoFlapping: a higher input that flaps (a command now and then) changes the lead downward at
// most once per source_timeout, whatever the flapping rate: at every step within source_timeout of a manual
// command the target is manual's.
func TestArbitrationNoFlapping(t *testing.T) {
	g := arb(t)
	changes, last := 0, ""
	for i := range 500 { // 10 s at 50 Hz; autonomous at 50 Hz, manual every 7th step (140 ms) for 5 s
		s := float64(i) * 0.02
		send(t, g, InputAutonomous, kinematics.Twist{VX: 0.2}, s)
		if i%7 == 0 && s < 5 {
			send(t, g, InputManual, kinematics.Twist{}, s)
		}
		g.Step(at(s), tick)
		if d := g.Driving(at(s)); d != last {
			changes++
			last = d
		}
	}
	// autonomous at 0? no: manual at 0 too (higher) -> manual; then one hand-back after 5 s.
	if changes != 2 {
		t.Fatalf("%d changes of the driving input, want 2 (manual, then autonomous once)", changes)
	}
}

// TestPublishersPerInput: two publishers on one input trip with that input's reason; one on each input is
// arbitration.
func TestPublishersPerInput(t *testing.T) {
	g := arb(t)
	for in := range NumInputs {
		if g.SetPublishers(in, 1) {
			t.Fatalf("one publisher on %v tripped", in)
		}
	}
	if g.Status().EStop != "" {
		t.Fatal("one publisher per input tripped")
	}
	if !g.SetPublishers(InputManual, 2) || g.Status().EStop != "multiple manual/cmd_vel publishers" {
		t.Fatalf("two on manual: %q", g.Status().EStop)
	}
	if PublishersReason(InputCmdVel) != ReasonMultiplePublishers || PublishersReason(InputAutonomous) != "multiple autonomous/cmd_vel publishers" {
		t.Fatal("reasons")
	}
}

// TestRejectedCommandStopsWhateverInput: an absurd command on a lower input still stops the wheels at once (the
// winner's command then ramps up again from zero).
func TestRejectedCommandStopsWhateverInput(t *testing.T) {
	g := arb(t)
	send(t, g, InputManual, kinematics.Twist{VX: 0.2}, 0)
	for i := range 30 {
		g.Step(at(float64(i)*0.005), tick)
	}
	if g.Current().VX != 0.2 {
		t.Fatalf("setup: %v", g.Current())
	}
	if err := g.SetCmd(InputCmdVel, kinematics.Twist{VX: 99}, at(0.15), SourceSoftware); !errors.Is(err, ErrBadCommand) {
		t.Fatal(err)
	}
	if !g.Current().IsZero() {
		t.Fatalf("after an absurd command on cmd_vel: %v, want zero at once", g.Current())
	}
	if w, _ := g.Winner(at(0.15)); w != InputManual {
		t.Fatalf("winner %v: a refused lower input must not take the lead", w)
	}
}

// TestNextDeadline: the instants the runtime's timer fires at: the winner's source_timeout when a later
// command of another input would take the lead then, the winner's cmd_timeout (the deadman), and the last scan's
// scan_timeout, each 1 ns after the boundary; none when nothing is pending.
func TestNextDeadline(t *testing.T) {
	g := NewGate(DefaultLimits())
	if d := g.NextDeadline(t0); !d.IsZero() {
		t.Fatalf("nothing pending: %v", d)
	}
	g.Sensed(at(0))
	_ = g.SetCmd(InputManual, kinematics.Twist{}, at(0.1), SourceSoftware)
	_ = g.SetCmd(InputAutonomous, kinematics.Twist{}, at(0.15), SourceSoftware)
	want := []time.Time{
		at(0.3).Add(1),  // manual + source_timeout: autonomous (later) takes the lead
		at(0.45).Add(1), // autonomous + cmd_timeout: the deadman (manual's own deadman no longer matters)
		at(0.5).Add(1),  // the scan + scan_timeout
	}
	now := at(0.15)
	for i, w := range want {
		d := g.NextDeadline(now)
		if !d.Equal(w) {
			t.Fatalf("deadline %d after %v: %v, want %v", i, now.Sub(t0), d.Sub(t0), w.Sub(t0))
		}
		now = d
	}
	if d := g.NextDeadline(now); !d.IsZero() {
		t.Fatalf("after the last: %v", d.Sub(t0))
	}
	// One input: no hand-over deadline, only the deadman (and the scan's).
	g = NewGate(DefaultLimits())
	_ = g.SetCmd(InputCmdVel, kinematics.Twist{}, at(0), SourceSoftware)
	_ = g.SetCmd(InputCmdVel, kinematics.Twist{}, at(0.05), SourceSoftware)
	if d := g.NextDeadline(at(0.05)); !d.Equal(at(0.35).Add(1)) {
		t.Fatalf("one input: %v, want the deadman at 0.35 s + 1 ns", d.Sub(t0))
	}
}

func TestLimitsArbitrationValidate(t *testing.T) {
	l := DefaultLimits()
	l.SourceTimeout = l.CmdTimeout + time.Millisecond
	if err := l.Validate(); !errors.Is(err, ErrBadLimits) || !strings.Contains(err.Error(), "source_timeout") {
		t.Fatalf("source_timeout above cmd_timeout: %v", err)
	}
	l = DefaultLimits()
	l.SourceTimeout = 0
	if l.Validate() == nil {
		t.Fatal("source_timeout 0 accepted")
	}
	l = DefaultLimits()
	l.Priority[InputAutonomous] = l.Priority[InputManual]
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "same priority") {
		t.Fatalf("equal priorities: %v", err)
	}
	l = DefaultLimits()
	l.Priority[InputCmdVel] = -1
	if l.Validate() == nil {
		t.Fatal("negative priority accepted")
	}
	// A gate with bad limits never moves.
	l.Priority[InputCmdVel] = 1
	l.SourceTimeout = time.Second
	if err := NewGate(l).Enable(true); err == nil {
		t.Fatal("enable with bad arbitration limits")
	}
}
