package motion

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// BenchmarkGateStep measures one control tick of the gate while driving (the common case) and while
// latched (the block path). Step must not allocate: it runs 50 times a second for the robot's whole life.
func BenchmarkGateStep(b *testing.B) {
	b.Run("moving", func(b *testing.B) {
		g := NewGate(DefaultLimits())
		g.Sensed(t0)
		_ = g.Enable(true)
		_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2, VY: -0.1, WZ: 0.5}, t0, SourceSoftware)
		b.ReportAllocs()
		var sink kinematics.Twist
		for b.Loop() {
			sink = g.Step(t0, tick)
		}
		_ = sink
	})
	b.Run("latched", func(b *testing.B) {
		g := NewGate(DefaultLimits())
		g.Trip("gamepad button 0x0100")
		b.ReportAllocs()
		for b.Loop() {
			_ = g.Step(t0, tick)
		}
	})
	b.Run("tick with kinematics and odometry", func(b *testing.B) {
		g := NewGate(DefaultLimits())
		g.Sensed(t0)
		_ = g.Enable(true)
		o := NewOdometry(DefaultOdomConfig())
		geo := kinematics.DefaultGeometry()
		b.ReportAllocs()
		now := t0
		for b.Loop() {
			now = now.Add(20 * time.Millisecond)
			_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2, WZ: 0.5}, now, SourceSoftware)
			g.Sensed(now)
			out := g.Step(now, tick)
			_ = kinematics.WheelRPS(out, geo)
			_ = o.Update(now, out)
		}
	})
}

func TestGateStepDoesNotAllocate(t *testing.T) {
	g := NewGate(DefaultLimits())
	g.Sensed(t0)
	_ = g.Enable(true)
	_ = g.SetCmd(InputCmdVel, kinematics.Twist{VX: 0.2}, t0, SourceSoftware)
	if n := testing.AllocsPerRun(100, func() { g.Step(t0, tick) }); n != 0 {
		t.Fatalf("Step allocates %v times per call", n)
	}
	g.Trip("x")
	if n := testing.AllocsPerRun(100, func() { g.Step(t0, tick); g.BlockReason(t0) }); n != 0 {
		t.Fatalf("latched Step allocates %v times per call", n)
	}
}
