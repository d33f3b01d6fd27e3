package still

import (
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/vibration"
)

// frames50 is what the board holds at 50 Hz from a to b: v, with the step at stepAt (if finite) to w.
func frames50(a, b float64, v Frame, stepAt float64, w Frame) []Frame {
	var out []Frame
	for k := 0; a+float64(k)*0.02 <= b+1e-9; k++ {
		t := a + float64(k)*0.02
		f := v
		if t >= stepAt {
			f = w
		}
		f.T = t
		out = append(out, f)
	}
	return out
}

// gyro110 is a 110 Hz gyro recording from a to b: level (rad/s score) before loudAt, 0.0015 after the quiet,
// louder (0.0060) from loudAt on; holes drop samples in [h0, h1).
func gyro110(a, b, level, loudAt float64, holes ...[2]float64) []vibration.Sample {
	var s []vibration.Sample
next:
	for k := 0; a+float64(k)/110 <= b; k++ {
		t := a + float64(k)/110
		for _, h := range holes {
			if t >= h[0] && t < h[1] {
				continue next
			}
		}
		l := level
		if t >= loudAt {
			l = 0.0060
		}
		s = append(s, vibration.Sample{T: t, GyroX: 0.01 + l*math.Sin(2*math.Pi*17*t), GyroY: -0.02 + l*math.Sin(2*math.Pi*23*t+1)})
	}
	return s
}

func speed10(a, b, v, fastAt float64) []Speed {
	var s []Speed
	for k := 0; a+float64(k)*0.1 <= b+1e-9; k++ {
		t := a + float64(k)*0.1
		x := v
		if t >= fastAt {
			x = 0.06
		}
		s = append(s, Speed{T: t, V: x})
	}
	return s
}

var (
	zero  = Frame{}
	fwd02 = Frame{VX: 0.2}
	inf   = math.Inf(1)
)

func TestJudge(t *testing.T) {
	p := DefaultParams()
	pGap := p
	pGap.MaxFrameGap = 0.5
	cases := []struct {
		name    string
		in      Input
		from    float64
		to      float64
		p       Params
		want    Outcome
		first   float64 // NaN: FirstMotion nil
		board   bool    // BoardMotion set
		measure bool    // MeasuredMotion set
		reason  string  // substring of Reason
	}{
		{"still frames only", Input{Frames: frames50(0, 6, zero, inf, zero)}, 1, 6, p, Pass, math.NaN(), false, false, ""},
		{"still with gyro", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 6, 0.0015, inf)}, 1, 6, p, Pass, math.NaN(), false, false, ""},
		{"still with speed", Input{Frames: frames50(0, 6, zero, inf, zero), Speed: speed10(0, 6, 0.01, inf)}, 1, 6, p, Pass, math.NaN(), false, false, ""},
		{"a single early frame held (complete record)", Input{Frames: []Frame{{T: 0.5}}}, 1, 6, p, Pass, math.NaN(), false, false, ""},
		// Negative controls.
		{"stored speed comes back (board)", Input{Frames: frames50(0, 6, zero, 2.35, fwd02)}, 1, 6, p, Fail, 1.36, true, false,
			"the board was told 0.20 m/s forward at 2.36 s (1.36 s into the hold)"},
		{"motion during the hold (gyro)", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 6, 0.0015, 3.0)}, 1, 6, p, Fail, 2.1, false, true,
			"vibration 0.00"},
		{"motion during the hold (speed)", Input{Frames: frames50(0, 6, zero, inf, zero), Speed: speed10(0, 6, 0.01, 3.0)}, 1, 6, p, Fail, 2.0, false, true,
			"speed 0.060 m/s at 3.00 s (2.00 s into the hold)"},
		{"board and gyro both", Input{Frames: frames50(0, 6, zero, 2.0, fwd02), Gyro: gyro110(0, 6, 0.0015, 2.1)}, 1, 6, p, Fail, 1.0, true, true, "the board was told"},
		{"moving at start (held frame)", Input{Frames: frames50(0, 6, fwd02, inf, zero)}, 1, 6, p, NotRun, math.NaN(), false, false,
			"moving at the start of the hold: the board was told 0.20 m/s forward"},
		{"moving at start (gyro)", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 6, 0.0060, inf)}, 1, 6, p, NotRun, math.NaN(), false, false,
			"moving at the start of the hold: vibration"},
		{"moving at start (speed)", Input{Frames: frames50(0, 6, zero, inf, zero), Speed: speed10(0, 6, 0.05, inf)}, 1, 6, p, NotRun, math.NaN(), false, false,
			"moving at the start of the hold: speed 0.050 m/s at 1.00 s"},
		{"told to move within the first window is a FAIL", Input{Frames: frames50(0, 6, zero, 1.04, fwd02), Gyro: gyro110(0, 6, 0.0015, 1.05)}, 1, 6, p, Fail, 0.04, true, true, "the board was told"},
		{"gyro gap", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 6, 0.0015, inf, [2]float64{3, 3.5})}, 1, 6, p, NoData, math.NaN(), false, false,
			"gyro samples in the window ending"},
		{"gyro stops early", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 4, 0.0015, inf)}, 1, 6, p, NoData, math.NaN(), false, false, "gyro samples"},
		{"speed gap", Input{Frames: frames50(0, 6, zero, inf, zero), Speed: append(speed10(0, 2, 0.01, inf), speed10(3, 6, 0.01, inf)...)}, 1, 6, p, NoData, math.NaN(), false, false,
			"no speed sample for 1.00 s from 2.00 s"},
		{"no speed in the hold", Input{Frames: frames50(0, 6, zero, inf, zero), Speed: speed10(7, 8, 0.01, inf)}, 1, 6, p, NoData, math.NaN(), false, false, "no speed samples in the hold"},
		{"frames start late", Input{Frames: frames50(2, 6, zero, inf, zero)}, 1, 6, p, NoData, math.NaN(), false, false, "no frame at or before the start"},
		{"frame gap, sampled report", Input{Frames: append(frames50(0, 2, zero, inf, zero), frames50(3, 6, zero, inf, zero)...)}, 1, 6, pGap, NoData, math.NaN(), false, false,
			"no frame for 1.00 s from 2.00 s"},
		{"NaN frame", Input{Frames: append(frames50(0, 6, zero, inf, zero), Frame{T: 3, VX: math.NaN()})}, 1, 6, p, NoData, math.NaN(), false, false, "non-finite"},
		{"hold shorter than a window, gyro", Input{Frames: frames50(0, 6, zero, inf, zero), Gyro: gyro110(0, 6, 0.0015, inf)}, 1, 1.1, p, NoData, math.NaN(), false, false, "no vibration window"},
		{"bad range", Input{Frames: frames50(0, 6, zero, inf, zero)}, 6, 1, p, Fail, math.NaN(), false, false, "bad time range"},
		{"bad params", Input{Frames: frames50(0, 6, zero, inf, zero)}, 1, 6, Params{}, Fail, math.NaN(), false, false, "bad judge parameters"},
		{"motion with a hole is still a FAIL", Input{Frames: frames50(2, 6, zero, 4, fwd02)}, 1, 6, p, Fail, 3, true, false, "the evidence also has a hole"},
		{"unsorted frames", Input{Frames: reverse(frames50(0, 6, zero, 2.35, fwd02))}, 1, 6, p, Fail, 1.36, true, false, "2.36 s"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Judge(c.in, c.from, c.to, c.p)
			if v.Outcome != c.want {
				t.Fatalf("outcome %v, want %v: %s", v.Outcome, c.want, v.Line(c.name))
			}
			if !strings.Contains(v.Reason, c.reason) {
				t.Errorf("reason %q does not contain %q", v.Reason, c.reason)
			}
			if math.IsNaN(c.first) != (v.FirstMotion == nil) || (v.FirstMotion != nil && math.Abs(*v.FirstMotion-c.first) > 1e-6) {
				t.Errorf("FirstMotion %v, want %v", ptr(v.FirstMotion), c.first)
			}
			if (v.BoardMotion != nil) != c.board || (v.MeasuredMotion != nil) != c.measure {
				t.Errorf("board %v measured %v, want %v %v", ptr(v.BoardMotion), ptr(v.MeasuredMotion), c.board, c.measure)
			}
			if (v.Outcome == Pass) != (v.Reason == "") {
				t.Errorf("outcome %v with reason %q", v.Outcome, v.Reason)
			}
		})
	}
}

func reverse(f []Frame) []Frame {
	out := make([]Frame, len(f))
	for i := range f {
		out[len(f)-1-i] = f[i]
	}
	return out
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestFrameString(t *testing.T) {
	for _, c := range []struct {
		f    Frame
		want string
	}{
		{Frame{}, "zero"},
		{Frame{VX: 0.2}, "0.20 m/s forward"},
		{Frame{VX: -0.1, VY: -0.05, WZ: 0.5}, "0.10 m/s back, 0.05 m/s right, 0.50 rad/s turning left"},
		{Frame{WZ: -1}, "1.00 rad/s turning right"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

func TestOutcomeText(t *testing.T) {
	for o := Fail; o <= NoData; o++ {
		b, err := o.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Outcome
		if err := back.UnmarshalText(b); err != nil || back != o {
			t.Errorf("%v: round trip %v %v", o, back, err)
		}
	}
	if _, err := Outcome(9).MarshalText(); err == nil {
		t.Error("unknown outcome marshalled")
	}
	var zero Outcome
	if zero != Fail {
		t.Error("zero outcome is not FAIL")
	}
}
