package ramp

import (
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/still"
)

// gate simulates the driver's 50 Hz frames from 0 to end: zero (or held, until e) and, from the first tick at
// or after start, each axis growing toward tgt by rate x accel x 0.02 per tick (rate 1: the real gate).
func gate(end, e, start float64, held, tgt Twist, rate float64) []still.Frame {
	p := DefaultParams()
	var cur Twist
	var out []still.Frame
	for k := 0; float64(k)*0.02 <= end+1e-9; k++ {
		t := float64(k) * 0.02
		if t < e {
			out = append(out, still.Frame{T: t, VX: held.VX, VY: held.VY, WZ: held.WZ})
			continue
		}
		if t >= start-1e-9 {
			step := func(c, g, a float64) float64 {
				d := g - c
				lim := rate * a * 0.02
				return c + math.Max(-lim, math.Min(lim, d))
			}
			cur = Twist{step(cur.VX, tgt.VX, p.MaxAccelLinear), step(cur.VY, tgt.VY, p.MaxAccelLinear), step(cur.WZ, tgt.WZ, p.MaxAccelAngular)}
		}
		out = append(out, still.Frame{T: t, VX: cur.VX, VY: cur.VY, WZ: cur.WZ})
	}
	return out
}

// jump sets every frame from t on to w.
func jump(f []still.Frame, t float64, w Twist) []still.Frame {
	out := append([]still.Frame(nil), f...)
	for i := range out {
		if out[i].T >= t-1e-9 {
			out[i].VX, out[i].VY, out[i].WZ = w.VX, w.VY, w.WZ
		}
	}
	return out
}

// imu is a 100 Hz acceleration record from a to b of the gate's ramp (0.5 m/s² while growing) with a spike.
func imu(a, b, c float64, spikeAt float64, holeFrom, holeTo float64) []Accel {
	var s []Accel
	for k := 0; a+float64(k)*0.01 <= b+1e-9; k++ {
		t := a + float64(k)*0.01
		if t >= holeFrom && t < holeTo {
			continue
		}
		x := 0.05 * math.Sin(float64(k))
		if t >= c && t < c+0.4 {
			x += 0.5
		}
		if math.Abs(t-spikeAt) < 0.005 {
			x = 3
		}
		s = append(s, Accel{T: t, X: x, Y: 0.03})
	}
	return s
}

func TestJudge(t *testing.T) {
	p := DefaultParams()
	fwd := Twist{VX: 0.2}
	small := Twist{VX: 0.02}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name   string
		in     Input
		want   still.Outcome
		broken []Check
		reason string
	}{
		{"ramp from zero", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Pass, nil, ""},
		{"turn ramp", Input{Frames: gate(4, 1, 1.1, Twist{}, Twist{WZ: 0.5}, 1), Enable: 1, Command: 1.1, Target: Twist{WZ: 0.5}, To: 4}, still.Pass, nil, ""},
		{"diagonal and turn", Input{Frames: gate(4, 1, 1.1, Twist{}, Twist{0.1, -0.15, 0.3}, 1), Enable: 1, Command: 1.1, Target: Twist{0.1, -0.15, 0.3}, To: 4}, still.Pass, nil, ""},
		{"zero after timeout, small command (Clearpath)", Input{Frames: gate(4, 0, 2, Twist{}, small, 1), Enable: 1, Command: 2, Target: small, To: 4}, still.Pass, nil, ""},
		{"zero command holds zero", Input{Frames: gate(4, 0, 2, Twist{}, Twist{}, 1), Enable: 1, Command: 2, Target: Twist{}, To: 4}, still.Pass, nil, ""},
		{"a slower ramp is no breach", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 0.5), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Pass, nil, ""},
		{"ramp with accel", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4, Accel: imu(0.5, 4, 1.1, inf, 0, 0)}, still.Pass, nil, ""},
		// Negative controls.
		{"stored speed comes back", Input{Frames: jump(gate(4, 1, 1.1, Twist{}, fwd, 1), 1.12, fwd), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckRamp}, "jumped to 0.20 m/s forward 0.02 s after the first command: the ramp allows 0.045 m/s: a stored speed"},
		{"moved before the command", Input{Frames: gate(4, 1, 1.0, Twist{}, fwd, 1), Enable: 1, Command: 1.5, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckBefore, CheckRamp}, "moved before any command after the enable: the board was told 0.01 m/s forward at 1.00 s"},
		{"held a speed through the enable", Input{Frames: gate(4, 1.1, 1.1, fwd, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckBefore}, "moved before any command after the enable"},
		{"burst after the deadman (Clearpath)", Input{Frames: jump(gate(4, 0, 2, Twist{}, small, 1), 2.02, Twist{VX: 0.12}), Enable: 1, Command: 2, Target: small, To: 4}, still.Fail,
			[]Check{CheckRamp, CheckBurst}, "burst: 0.12 m/s forward at 2.02 s (0.02 s after the first command), outside zero to the command's 0.02 m/s forward"},
		{"burst the wrong way", Input{Frames: jump(gate(4, 1, 1.1, Twist{}, fwd, 1), 1.14, Twist{VX: -0.02}), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckBurst, CheckReach}, "0.02 m/s back"},
		{"never resumes", Input{Frames: gate(4, 0, 99, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckReach}, "never reached 0.20 m/s forward within 0.97 s of the first command (peak 0.000): the resume did not happen"},
		{"reached late", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 0.25), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.Fail,
			[]Check{CheckReach}, "reached 0.20 m/s forward only 1.5"},
		{"accel spike", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4, Accel: imu(0.5, 4, 1.1, 1.2, 0, 0)}, still.Fail,
			[]Check{CheckAccel}, "measured acceleration 3.00 m/s² at 1.20 s"},
		// Holes.
		{"record ends before the deadline", Input{Frames: gate(1.3, 0, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 1.3}, still.NoData, nil, "the record ends at 1.30 s"},
		{"no frame before the enable", Input{Frames: gate(4, 0, 1.1, Twist{}, fwd, 1)[60:], Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.NoData, nil, "no frame at or before the enable"},
		{"NaN frame", Input{Frames: append(gate(4, 1, 1.1, Twist{}, fwd, 1), still.Frame{T: 2, VX: nan}), Enable: 1, Command: 1.1, Target: fwd, To: 4}, still.NoData, nil, "non-finite"},
		{"accel gap", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: fwd, To: 4, Accel: imu(0.5, 4, 1.1, inf, 1.2, 1.5)}, still.NoData, nil, "no accel sample for"},
		{"frame gap, sampled report", Input{Frames: append(gate(1.2, 1, 1.1, Twist{}, fwd, 1), jump(gate(4, 1, 1.1, Twist{}, fwd, 1), 0, fwd)[100:]...), Enable: 1, Command: 1.1, Target: fwd, To: 4},
			still.NoData, nil, "no frame for 0.80 s from 1.20 s"},
		// Bad input.
		{"command before the enable", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 0.5, Target: fwd, To: 4}, still.Fail, nil, "bad moments"},
		{"NaN target", Input{Frames: gate(4, 1, 1.1, Twist{}, fwd, 1), Enable: 1, Command: 1.1, Target: Twist{VX: nan}, To: 4}, still.Fail, nil, "bad target"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pp := p
			if strings.HasPrefix(c.name, "frame gap") {
				pp.MaxFrameGap = 0.5
			}
			v := Judge(c.in, pp)
			if v.Outcome != c.want {
				t.Fatalf("outcome %v, want %v: %s", v.Outcome, c.want, v.Line(c.name))
			}
			var got []Check
			for _, b := range v.Broken {
				got = append(got, b.Check)
			}
			if len(got) != len(c.broken) {
				t.Fatalf("broken %v, want %v: %s", got, c.broken, v.Line(c.name))
			}
			for i := range got {
				if got[i] != c.broken[i] {
					t.Fatalf("broken %v, want %v", got, c.broken)
				}
			}
			if !strings.Contains(v.Reason, c.reason) {
				t.Errorf("reason %q does not contain %q", v.Reason, c.reason)
			}
			if (v.Outcome == still.Pass) != (v.Reason == "") {
				t.Errorf("outcome %v with reason %q", v.Outcome, v.Reason)
			}
		})
	}
}

// The frame held exactly at C at the target counts as reached at once, and a first frame exactly at E counts.
func TestJudgeEdges(t *testing.T) {
	f := []still.Frame{{T: 1}, {T: 2, VX: 0.01}, {T: 2.02, VX: 0.02}}
	v := Judge(Input{Frames: f, Enable: 1, Command: 2, Target: Twist{VX: 0.02}, To: 3}, DefaultParams())
	if !v.Passed() || v.Reached == nil || *v.Reached != 0 {
		t.Fatalf("%s (reached %v)", v.Line("edges"), v.Reached)
	}
	if v.Frames != 3 || v.Peak != 0.02 {
		t.Errorf("frames %d peak %v", v.Frames, v.Peak)
	}
}

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (Params{}).Validate(); err == nil {
		t.Fatal("zero params valid")
	}
	p := DefaultParams()
	p.TimeTol = math.NaN()
	if err := p.Validate(); err == nil {
		t.Fatal("NaN TimeTol valid")
	}
	if v := Judge(Input{}, Params{}); v.Outcome != still.Fail || !strings.Contains(v.Reason, "bad judge parameters") {
		t.Fatal(v.Line("zero"))
	}
}
