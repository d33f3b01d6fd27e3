package motion

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

const tick = 20 * time.Millisecond // 50 Hz

var t0 = time.Date(2026, 9, 27, 7, 37, 0, 0, time.UTC)

// at returns t0 plus s seconds (rounded to the nanosecond).
func at(s float64) time.Time { return t0.Add(time.Duration(math.Round(s * 1e9))) }

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func twistNear(a, b kinematics.Twist, eps float64) bool {
	return near(a.VX, b.VX, eps) && near(a.VY, b.VY, eps) && near(a.WZ, b.WZ, eps)
}

// moving returns an enabled gate with a scan at 0 and the command c at 0, stepped to its target.
func moving(t *testing.T, c kinematics.Twist) (*Gate, time.Time) {
	t.Helper()
	g := NewGate(DefaultLimits())
	g.Sensed(t0)
	if err := g.Enable(true); err != nil {
		t.Fatal(err)
	}
	if err := g.SetCmd(InputCmdVel, c, t0, SourceSoftware); err != nil {
		t.Fatal(err)
	}
	var out kinematics.Twist
	for i := 0; i < 60; i++ { // 0.6 s of ticks without a new command would trip the deadman; keep now fixed
		out = g.Step(t0, tick)
	}
	want := kinematics.Twist{VX: clamp(c.VX, 0.2), VY: clamp(c.VY, 0.2), WZ: clamp(c.WZ, 1.0)}
	if !twistNear(out, want, 1e-12) {
		t.Fatalf("setup: did not reach %v, got %v", want, out)
	}
	return g, t0
}

func TestDisabledAtStart(t *testing.T) {
	g := NewGate(DefaultLimits())
	if s := g.Status(); s.Enabled || s.EStop != "" {
		t.Fatalf("new gate status %+v, want disabled and not latched", s)
	}
	// 3 s of forward 0.1 m/s at 20 Hz with scans while DISABLED: the wheels must stay still (stand harness).
	for i := 0; i <= 150; i++ {
		now := at(float64(i) * 0.02)
		if i%5 == 0 {
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, now, SourceSoftware)
		}
		g.Sensed(now)
		if out := g.Step(now, tick); !out.IsZero() {
			t.Fatalf("tick %d: disabled gate moved: %v", i, out)
		}
		if r := g.BlockReason(now); r != BlockDisabled {
			t.Fatalf("tick %d: block reason %q, want %q", i, r, BlockDisabled)
		}
	}
}

func TestDeadman(t *testing.T) {
	cases := []struct {
		name    string
		age     time.Duration
		blocked bool
	}{
		{"fresh", 0, false},
		{"0.29 s", 290 * time.Millisecond, false},
		{"exactly 0.3 s still holds (seed: now - cmd_t > timeout)", 300 * time.Millisecond, false},
		{"0.3 s + 1 ns", 300*time.Millisecond + 1, true},
		{"0.31 s (seed test)", 310 * time.Millisecond, true},
		{"10 s", 10 * time.Second, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, _ := moving(t, kinematics.Twist{VX: 0.2})
			now := t0.Add(c.age)
			g.Sensed(now) // keep the scan gate out of this test
			out := g.Step(now, tick)
			if c.blocked {
				if !out.IsZero() || g.BlockReason(now) != BlockCmdTimeout {
					t.Fatalf("age %v: got %v / %q, want zero / %q", c.age, out, g.BlockReason(now), BlockCmdTimeout)
				}
			} else if out.VX != 0.2 || g.BlockReason(now) != "" {
				t.Fatalf("age %v: got %v / %q, want 0.2 m/s and no block", c.age, out, g.BlockReason(now))
			}
		})
	}
	t.Run("no command ever", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		g.Sensed(t0)
		_ = g.Enable(true)
		if r := g.BlockReason(t0); r != BlockCmdTimeout {
			t.Fatalf("reason %q, want %q", r, BlockCmdTimeout)
		}
	})
	t.Run("forward then silence stops within 0.3 s plus one tick", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		_ = g.Enable(true)
		var last time.Time
		stoppedAt := time.Duration(-1)
		for i := 0; i < 200; i++ { // 4 s at 50 Hz; commands at 20 Hz for the first 3 s
			now := at(float64(i) * 0.02)
			g.Sensed(now)
			if i < 150 && i%5 == 0 {
				_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, now, SourceSoftware)
				last = now
			}
			out := g.Step(now, tick)
			if i > 150 && out.IsZero() && stoppedAt < 0 {
				stoppedAt = now.Sub(last)
			}
		}
		if stoppedAt < 300*time.Millisecond || stoppedAt > 300*time.Millisecond+tick {
			t.Fatalf("stopped %v after the last command, want within (0.3 s, 0.32 s]", stoppedAt)
		}
	})
}

func TestLimitsClampAndRamp(t *testing.T) {
	cases := []struct {
		name string
		cmd  kinematics.Twist
		want kinematics.Twist
	}{
		{"absurd but plausible is clamped (seed)", kinematics.Twist{VX: 1.0, VY: -1.0, WZ: 5.0}, kinematics.Twist{VX: 0.2, VY: -0.2, WZ: 1.0}},
		{"exactly 10x limit is clamped", kinematics.Twist{VX: 2.0, VY: -2.0, WZ: 10.0}, kinematics.Twist{VX: 0.2, VY: -0.2, WZ: 1.0}},
		{"within limits passes", kinematics.Twist{VX: 0.1, VY: 0.05, WZ: -0.5}, kinematics.Twist{VX: 0.1, VY: 0.05, WZ: -0.5}},
		{"negative over limit", kinematics.Twist{VX: -0.3, VY: 0.3, WZ: -1.5}, kinematics.Twist{VX: -0.2, VY: 0.2, WZ: -1.0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, _ := moving(t, c.cmd)
			if got := g.Step(t0, tick); !twistNear(got, c.want, 1e-12) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	t.Run("first tick at 50 Hz moves 0.01 m/s and 0.04 rad/s", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		g.Sensed(t0)
		_ = g.Enable(true)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2, VY: -0.2, WZ: 1.0}, t0, SourceSoftware)
		got := g.Step(t0, tick)
		if !twistNear(got, kinematics.Twist{VX: 0.01, VY: -0.01, WZ: 0.04}, 1e-12) {
			t.Fatalf("first tick %v, want (0.01, -0.01, 0.04)", got)
		}
		for i := 2; i <= 20; i++ {
			got = g.Step(t0, tick)
			if !near(got.VX, 0.01*float64(i), 1e-12) {
				t.Fatalf("tick %d: vx %v, want %v", i, got.VX, 0.01*float64(i))
			}
		}
		if !near(got.VX, 0.2, 1e-12) || !near(got.WZ, 0.8, 1e-12) {
			t.Fatalf("after 20 ticks %v, want vx 0.2 (reached) and wz 0.8 (0.04 x 20, still ramping)", got)
		}
	})
	t.Run("a stalled loop grows by at most 100 ms of acceleration", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		g.Sensed(t0)
		_ = g.Enable(true)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2}, t0, SourceSoftware)
		if got := g.Step(t0, 2*time.Second); !near(got.VX, 0.05, 1e-12) {
			t.Fatalf("dt 2 s gave %v, want 0.05 (0.5 m/s² x 0.1 s)", got.VX)
		}
		if got := g.Step(t0, -time.Second); !near(got.VX, 0.05, 1e-12) {
			t.Fatalf("negative dt changed the speed: %v", got.VX)
		}
	})
}

// Every way to stop gives zero on the very next Step (no ramp down), from full speed on all axes.
func TestEveryStopImmediate(t *testing.T) {
	full := kinematics.Twist{VX: 0.2, VY: 0.2, WZ: 1.0}
	cases := []struct {
		name   string
		stop   func(g *Gate) time.Time // returns the time of the next Step
		want   kinematics.Twist
		reason string
	}{
		{"trip", func(g *Gate) time.Time { g.Trip("estop topic"); return t0 }, kinematics.Twist{}, "estop: estop topic"},
		{"disable", func(g *Gate) time.Time { _ = g.Enable(false); return t0 }, kinematics.Twist{}, BlockDisabled},
		{"deadman", func(g *Gate) time.Time { return t0.Add(301 * time.Millisecond) }, kinematics.Twist{}, BlockCmdTimeout},
		{"scan gate", func(g *Gate) time.Time { _ = g.SetCmd(InputCmdVel, full, at(0.6), SourceSoftware); return at(0.6) }, kinematics.Twist{}, BlockNoScan},
		{"rejected command", func(g *Gate) time.Time {
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: math.NaN()}, t0, SourceSoftware)
			return t0
		}, kinematics.Twist{}, ""},
		{"commanded zero", func(g *Gate) time.Time { _ = g.SetCmd(InputCmdVel, kinematics.Twist{}, t0, SourceSoftware); return t0 }, kinematics.Twist{}, ""},
		{"commanded slower", func(g *Gate) time.Time {
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.05, VY: 0.05, WZ: 0.1}, t0, SourceSoftware)
			return t0
		}, kinematics.Twist{VX: 0.05, VY: 0.05, WZ: 0.1}, ""},
		{"reversal passes zero then ramps", func(g *Gate) time.Time {
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: -0.2, VY: -0.2, WZ: -1}, t0, SourceSoftware)
			return t0
		}, kinematics.Twist{VX: -0.01, VY: -0.01, WZ: -0.04}, ""},
		{"two publishers", func(g *Gate) time.Time { g.SetPublishers(InputCmdVel, 2); return t0 }, kinematics.Twist{}, "estop: " + ReasonMultiplePublishers},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, _ := moving(t, full)
			now := c.stop(g)
			if got := g.Step(now, tick); !twistNear(got, c.want, 1e-12) {
				t.Fatalf("next step %v, want %v", got, c.want)
			}
			if r := g.BlockReason(now); r != c.reason {
				t.Fatalf("block reason %q, want %q", r, c.reason)
			}
		})
	}
	// Trip and disable zero the current velocity inside the call (the runtime writes the stop frame at once).
	for _, stop := range []func(g *Gate){func(g *Gate) { g.Trip("x") }, func(g *Gate) { _ = g.Enable(false) }} {
		g, _ := moving(t, full)
		stop(g)
		if cur := g.Snapshot(t0).Cur; !cur.IsZero() {
			t.Fatalf("current velocity %v right after the stop call, want zero", cur)
		}
	}
}

func TestEStopLatch(t *testing.T) {
	g, _ := moving(t, kinematics.Twist{VX: 0.2})
	if !g.Trip("estop topic") {
		t.Fatal("first trip reported not first")
	}
	if g.Trip("gamepad button 0x0100") {
		t.Fatal("second trip reported first")
	}
	if s := g.Status(); s.EStop != "estop topic" || s.Enabled {
		t.Fatalf("status %+v, want latched on the first reason and disabled", s)
	}
	// Commands keep coming: the wheels stay still.
	for i := 0; i < 50; i++ {
		now := at(float64(i) * 0.02)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2}, now, SourceSoftware)
		g.Sensed(now)
		if out := g.Step(now, tick); !out.IsZero() {
			t.Fatalf("latched gate moved: %v", out)
		}
	}
	err := g.Enable(true)
	if !errors.Is(err, ErrLatched) || !strings.Contains(err.Error(), "estop topic") {
		t.Fatalf("enable while latched: %v, want ErrLatched naming the reason", err)
	}
	if g.Status().Enabled {
		t.Fatal("refused enable still enabled the gate")
	}
	if was := g.Reset(); was != "estop topic" {
		t.Fatalf("reset returned %q", was)
	}
	if s := g.Status(); s.EStop != "" || s.Enabled {
		t.Fatalf("after reset %+v, want not latched and still disabled", s)
	}
	if r := g.BlockReason(t0); r != BlockDisabled {
		t.Fatalf("after reset block reason %q, want disabled", r)
	}
	if was := g.Reset(); was != "" {
		t.Fatalf("second reset returned %q, want empty", was)
	}
	if err := g.Enable(true); err != nil {
		t.Fatalf("enable after reset: %v", err)
	}
	if g.Trip("") != true || g.Status().EStop != "unspecified" {
		t.Fatalf("empty reason must still latch, got %q", g.Status().EStop)
	}
	if s := g.Snapshot(t0); s.Trips != 2 {
		t.Fatalf("trips %d, want 2", s.Trips)
	}
}

func TestScanGate(t *testing.T) {
	run := func(t *testing.T, src Source, lim Limits) (heldAt, resumedAt time.Duration, latched bool) {
		g := NewGate(lim)
		_ = g.Enable(true)
		heldAt, resumedAt = -1, -1
		var lastScan time.Time
		// scans at 10 Hz for 0-1 s and again from 3 s; commands at 20 Hz throughout; 50 Hz ticks.
		for i := 0; i <= 250; i++ {
			now := at(float64(i) * 0.02)
			s := now.Sub(t0).Seconds()
			if i%5 == 0 && (s <= 1.0 || s >= 3.0) {
				g.Sensed(now)
				lastScan = now
			}
			if i%5 == 0 {
				_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2}, now, src)
			}
			out := g.Step(now, tick)
			if s > 1 && s < 3 && out.IsZero() && heldAt < 0 {
				heldAt = now.Sub(lastScan)
				if g.BlockReason(now) != BlockNoScan {
					t.Fatalf("held with reason %q, want %q", g.BlockReason(now), BlockNoScan)
				}
				latched = g.Status().EStop != ""
			}
			if s >= 3 && !out.IsZero() && resumedAt < 0 {
				resumedAt = now.Sub(at(3))
			}
		}
		return
	}
	t.Run("software held after 0.5 s, not latched, resumes", func(t *testing.T) {
		held, resumed, latched := run(t, SourceSoftware, DefaultLimits())
		if held <= 500*time.Millisecond || held > 500*time.Millisecond+tick {
			t.Fatalf("held %v after the last scan, want within (0.5 s, 0.52 s]", held)
		}
		if latched {
			t.Fatal("scan gate latched the e-stop")
		}
		if resumed != 0 {
			t.Fatalf("resumed %v after scans returned, want on the same tick", resumed)
		}
	})
	t.Run("gamepad exempt", func(t *testing.T) {
		held, _, _ := run(t, SourceGamepad, DefaultLimits())
		if held >= 0 {
			t.Fatalf("gamepad command held by the scan gate (%v)", held)
		}
	})
	t.Run("scan_timeout 0 turns the gate off", func(t *testing.T) {
		l := DefaultLimits()
		l.ScanTimeout = 0
		held, _, _ := run(t, SourceSoftware, l)
		if held >= 0 {
			t.Fatalf("gate off but held (%v)", held)
		}
	})
	t.Run("no scan ever blocks software, exactly at the timeout boundary", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		_ = g.Enable(true)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, t0, SourceSoftware)
		if r := g.BlockReason(t0); r != BlockNoScan {
			t.Fatalf("reason %q, want %q", r, BlockNoScan)
		}
		g.Sensed(t0)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, t0.Add(400*time.Millisecond), SourceSoftware)
		if r := g.BlockReason(t0.Add(500 * time.Millisecond)); r != "" {
			t.Fatalf("at exactly 0.5 s: %q, want open", r)
		}
		if r := g.BlockReason(t0.Add(500*time.Millisecond + 1)); r != BlockNoScan {
			t.Fatalf("at 0.5 s + 1 ns: %q, want %q", r, BlockNoScan)
		}
	})
}

func TestTwoPublishers(t *testing.T) {
	cases := []struct {
		n       int
		tripped bool
	}{{-3, false}, {0, false}, {1, false}, {2, true}, {5, true}}
	for _, c := range cases {
		g, _ := moving(t, kinematics.Twist{VX: 0.2})
		if got := g.SetPublishers(InputCmdVel, c.n); got != c.tripped {
			t.Fatalf("n=%d: tripped %v, want %v", c.n, got, c.tripped)
		}
		latched := g.Status().EStop == ReasonMultiplePublishers
		if latched != c.tripped {
			t.Fatalf("n=%d: estop %q", c.n, g.Status().EStop)
		}
		if c.tripped && !g.Step(t0, tick).IsZero() {
			t.Fatalf("n=%d: wheels still turn", c.n)
		}
	}
	// Going back to one publisher does not clear the latch.
	g, _ := moving(t, kinematics.Twist{VX: 0.2})
	g.SetPublishers(InputCmdVel, 2)
	g.SetPublishers(InputCmdVel, 1)
	if g.Status().EStop != ReasonMultiplePublishers || g.Snapshot(t0).Publishers[InputCmdVel] != 1 {
		t.Fatalf("latch lost or count wrong: %+v", g.Snapshot(t0))
	}
}

func TestBadCommands(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		cmd  kinematics.Twist
	}{
		{"NaN vx", kinematics.Twist{VX: nan}},
		{"NaN vy", kinematics.Twist{VY: nan}},
		{"NaN wz", kinematics.Twist{WZ: nan}},
		{"+Inf vx", kinematics.Twist{VX: inf}},
		{"-Inf wz", kinematics.Twist{WZ: -inf}},
		{"huge vx", kinematics.Twist{VX: 1e9}},
		{"just over 10x linear", kinematics.Twist{VY: -2.0000001}},
		{"just over 10x angular", kinematics.Twist{WZ: 10.000001}},
		{"max float", kinematics.Twist{VX: math.MaxFloat64}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, _ := moving(t, kinematics.Twist{VX: 0.2, VY: -0.1, WZ: 0.5})
			err := g.SetCmd(InputCmdVel, c.cmd, t0, SourceSoftware)
			if !errors.Is(err, ErrBadCommand) {
				t.Fatalf("SetCmd(%v) = %v, want ErrBadCommand", c.cmd, err)
			}
			if !strings.Contains(err.Error(), "fix the sender") {
				t.Fatalf("error does not say what to do: %v", err)
			}
			s := g.Snapshot(t0)
			if s.Rejected != 1 || !s.Cmd.IsZero() || !s.Cur.IsZero() || s.LastRejected == "" {
				t.Fatalf("case %d: snapshot %+v, want 1 rejected, zero command and velocity", i, s)
			}
			if out := g.Step(t0, tick); !out.IsZero() || !out.IsFinite() {
				t.Fatalf("step after a bad command: %v, want zero", out)
			}
			// Not latched: a good command moves again, ramping from zero.
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2}, t0, SourceSoftware)
			if out := g.Step(t0, tick); !near(out.VX, 0.01, 1e-12) {
				t.Fatalf("after a good command %v, want 0.01", out)
			}
		})
	}
	t.Run("counted across calls, also when disabled and from the gamepad", func(t *testing.T) {
		g := NewGate(DefaultLimits())
		for i := 0; i < 5; i++ {
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: nan}, t0, SourceGamepad)
		}
		if s := g.Snapshot(t0); s.Rejected != 5 {
			t.Fatalf("rejected %d, want 5", s.Rejected)
		}
	})
}

func TestBadLimitsNeverMove(t *testing.T) {
	cases := []Limits{
		{},
		func() Limits { l := DefaultLimits(); l.MaxLinear = math.NaN(); return l }(),
		func() Limits { l := DefaultLimits(); l.MaxAccelAngular = -1; return l }(),
		func() Limits { l := DefaultLimits(); l.CmdTimeout = 0; return l }(),
		func() Limits { l := DefaultLimits(); l.ScanTimeout = -1; return l }(),
	}
	for i, l := range cases {
		g := NewGate(l)
		if err := g.Enable(true); !errors.Is(err, ErrBadLimits) {
			t.Fatalf("case %d: enable = %v, want ErrBadLimits", i, err)
		}
		g.Sensed(t0)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, t0, SourceSoftware)
		if out := g.Step(t0, tick); !out.IsZero() {
			t.Fatalf("case %d: moved %v", i, out)
		}
	}
	if err := DefaultLimits().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

func TestSnapshot(t *testing.T) {
	g := NewGate(DefaultLimits())
	s := g.Snapshot(t0)
	if s.ScanAge != nil || s.CmdAge != nil || s.Blocked != BlockDisabled {
		t.Fatalf("fresh snapshot %+v", s)
	}
	g.Sensed(t0)
	_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, t0.Add(50*time.Millisecond), SourceGamepad)
	s = g.Snapshot(t0.Add(80 * time.Millisecond))
	if s.ScanAge == nil || *s.ScanAge != 80*time.Millisecond || s.CmdAge == nil || *s.CmdAge != 30*time.Millisecond {
		t.Fatalf("ages wrong: %+v", s)
	}
	if s.CmdSource != SourceGamepad || s.CmdSource.String() != "gamepad" {
		t.Fatalf("source %v", s.CmdSource)
	}
}

// A command sent while disabled must not move the wheels when the gate is enabled within cmd_timeout of it
// (found by the simulator harness: a stream closed just before the enable still drove the wheels).
func TestEnableIgnoresCommandFromWhileDisabled(t *testing.T) {
	g := NewGate(DefaultLimits())
	t0 := time.Unix(1000, 0)
	g.Sensed(t0)
	if err := g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, t0, SourceSoftware); err != nil {
		t.Fatal(err)
	}
	if err := g.Enable(true); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(100 * time.Millisecond)
	g.Sensed(now)
	if out := g.Step(now, 20*time.Millisecond); !out.IsZero() {
		t.Fatalf("enable moved the wheels on a command sent while disabled: %+v", out)
	}
	if r := g.BlockReason(now); r != BlockCmdTimeout {
		t.Fatalf("block reason %q, want %q until a fresh command", r, BlockCmdTimeout)
	}
	if err := g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.1}, now, SourceSoftware); err != nil {
		t.Fatal(err)
	}
	if out := g.Step(now.Add(20*time.Millisecond), 20*time.Millisecond); out.VX <= 0 {
		t.Fatalf("a command after the enable did not move the wheels: %+v", out)
	}
	// Enabling an enabled gate keeps its live command.
	if err := g.Enable(true); err != nil {
		t.Fatal(err)
	}
	if out := g.Step(now.Add(40*time.Millisecond), 20*time.Millisecond); out.VX <= 0 {
		t.Fatalf("re-enable of an enabled gate dropped its live command: %+v", out)
	}
}
