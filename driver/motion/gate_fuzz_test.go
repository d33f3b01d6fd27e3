package motion

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// FuzzGateSetCmdStep drives the gate with an arbitrary sequence of operations and commands and checks, after
// every Step, that the output is finite, within the limits, within the board's 5 rps on every wheel, zero
// whenever a block reason holds, that no axis grows faster than its ramp allows (hand-overs between inputs
// included), and that the output follows only a fresh winner's command or the latest one's within cmd_timeout.
func FuzzGateSetCmdStep(f *testing.F) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, s := range []struct {
		ops        []byte
		vx, vy, wz float64
	}{
		{[]byte{5, 2, 0, 1, 1, 1, 1}, 0.2, 0, 0},
		{[]byte{5, 2, 0, 1, 0x08, 1, 0x18, 1}, 0.35, -0.35, 1},
		{[]byte{5, 2, 0, 1, 1, 3, 1, 4, 5, 0, 1}, 5, 5, 50},
		{[]byte{5, 0, 1, 1, 0x28, 1, 1}, nan, 0, 0},
		{[]byte{5, 2, 0, 1, 0, 1}, inf, -inf, 0},
		{[]byte{5, 2, 0, 1, 0x10, 1, 0x38, 1}, 1.9999, -2, 10},
		{[]byte{0x80, 5, 2, 0, 1, 7, 1, 0, 1, 0xff, 1}, math.MaxFloat64, math.SmallestNonzeroFloat64, -0.0},
		{[]byte{5, 6, 0, 1, 2, 0, 1, 0x41, 0x81, 0xc1}, 0.1, 0.1, 0.5},
	} {
		f.Add(s.ops, s.vx, s.vy, s.wz)
	}
	factors := [8]float64{1, -1, 0.5, 10, 0.1, 1e3, 0, -3}
	f.Fuzz(func(t *testing.T, ops []byte, vx, vy, wz float64) {
		if len(ops) > 4096 {
			ops = ops[:4096]
		}
		lim := DefaultLimits()
		if len(ops) > 0 && ops[0]&0x80 != 0 {
			lim.MaxLinear = 0.35 // the robot's running value
		}
		g := NewGate(lim)
		geo := kinematics.DefaultGeometry()
		now := t0
		var prev kinematics.Twist
		for _, op := range ops {
			arg := op >> 3
			switch op & 7 {
			case 0:
				k := factors[arg&7]
				src := SourceSoftware
				if arg&8 != 0 {
					src = SourceGamepad
				}
				in := Input(op>>7) * 2 // bit 7: manual instead of cmd_vel
				if arg&8 != 0 {
					in = InputAutonomous
				}
				_ = g.SetCmd(in, kinematics.Twist{VX: vx * k, VY: vy * k, WZ: wz * k}, now, src)
			case 1:
				dt := time.Duration(arg) * 5 * time.Millisecond // 0..155 ms
				now = now.Add(dt)
				out := g.Step(now, dt)
				check(t, g, lim, geo, now, dt, prev, out)
				prev = out
			case 2:
				g.Sensed(now)
			case 3:
				g.Trip("fuzz")
			case 4:
				g.Reset()
			case 5:
				_ = g.Enable(true)
			case 6:
				_ = g.Enable(false)
			case 7:
				g.SetPublishers(Input(arg%3), int(arg>>2)%3)
			}
		}
	})
}

func check(t *testing.T, g *Gate, lim Limits, geo kinematics.Geometry, now time.Time, dt time.Duration, prev, out kinematics.Twist) {
	t.Helper()
	if !out.IsFinite() {
		t.Fatalf("non-finite output %v", out)
	}
	if math.Abs(out.VX) > lim.MaxLinear || math.Abs(out.VY) > lim.MaxLinear || math.Abs(out.WZ) > lim.MaxAngular {
		t.Fatalf("output %v over the limits %+v", out, lim)
	}
	for i, r := range kinematics.WheelRPS(out, geo) {
		if !(math.Abs(r) <= 5) {
			t.Fatalf("wheel %d at %v rps (output %v)", i+1, r, out)
		}
	}
	if g.BlockReason(now) != "" && !out.IsZero() {
		t.Fatalf("blocked (%q) but output %v", g.BlockReason(now), out)
	}
	if !out.IsZero() {
		w, ok := g.Winner(now)
		age := now.Sub(g.in[w].t)
		if !ok || age > lim.CmdTimeout {
			t.Fatalf("moving %v without a live command (winner %v, age %v)", out, w, age)
		}
		for i := range g.in { // a fresher input of higher priority would have won
			if s := &g.in[i]; s.has && now.Sub(s.t) <= lim.SourceTimeout && lim.Priority[i] > lim.Priority[w] {
				t.Fatalf("input %v drives while %v (higher) is fresh", w, Input(i))
			}
		}
	}
	s := min(max(dt, 0), maxRampDT).Seconds()
	grow := func(p, c, acc float64) bool { return math.Abs(c)-math.Abs(p) > acc*s+1e-12 }
	if grow(prev.VX, out.VX, lim.MaxAccelLinear) || grow(prev.VY, out.VY, lim.MaxAccelLinear) ||
		grow(prev.WZ, out.WZ, lim.MaxAccelAngular) {
		t.Fatalf("speed grew faster than the ramp in %v: %v -> %v", dt, prev, out)
	}
}
