package ramp

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/rosorin/rosorin/judge/still"
)

func floats(b []byte) []float64 {
	out := make([]float64, 0, len(b)/8)
	for ; len(b) >= 8; b = b[8:] {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}
	return out
}

func bytesOf(xs ...float64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// FuzzJudge: arbitrary frames, accel samples, moments and targets never panic and never PASS with a
// non-finite number in the input; a PASS never holds a frame that breaks the ramp or burst bound.
func FuzzJudge(f *testing.F) {
	f.Add(bytesOf(0, 0, 0, 0, 1.1, 0.01, 0, 0, 1.12, 0.02, 0, 0), bytesOf(), 1.0, 1.1, 3.0, 0.02, 0.0, 0.0)
	f.Add(bytesOf(0, 0, 0, 0, 1.12, 0.2, 0, 0), bytesOf(1, 0, 0), 1.0, 1.1, 3.0, 0.2, 0.0, 0.0)
	f.Add(bytesOf(0, math.NaN(), 0, 0), bytesOf(), 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
	f.Add(bytesOf(0, 0, 0, 0), bytesOf(0.5, math.Inf(1), 0), 0.0, 0.1, 1.0, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, fb, ab []byte, e, c, to, vx, vy, wz float64) {
		fl, al := floats(fb), floats(ab)
		if len(fl) > 4000 || len(al) > 4000 {
			t.Skip()
		}
		in := Input{Enable: e, Command: c, To: to, Target: Twist{vx, vy, wz}}
		nan := !finite(e) || !finite(c) || !finite(to) || !finite(vx) || !finite(vy) || !finite(wz)
		for i := 0; i+4 <= len(fl); i += 4 {
			fr := still.Frame{T: fl[i], VX: fl[i+1], VY: fl[i+2], WZ: fl[i+3]}
			nan = nan || !fr.Valid()
			in.Frames = append(in.Frames, fr)
		}
		for i := 0; i+3 <= len(al); i += 3 {
			a := Accel{T: al[i], X: al[i+1], Y: al[i+2]}
			nan = nan || !finite(a.T) || !finite(a.X) || !finite(a.Y)
			in.Accel = append(in.Accel, a)
		}
		p := DefaultParams()
		v := Judge(in, p)
		_ = v.Line("fuzz")
		if v.Outcome != still.Pass {
			return
		}
		if nan {
			t.Fatalf("PASS with a non-finite number in the input: %s", v.Line("fuzz"))
		}
		if v.Reached == nil || *v.Reached > v.Deadline+1e-6 {
			t.Fatalf("PASS without reaching the target in time: %s", v.Line("fuzz"))
		}
		acc := [3]float64{p.MaxAccelLinear, p.MaxAccelLinear, p.MaxAccelAngular}
		tv := [3]float64{vx, vy, wz}
		for _, fr := range in.Frames {
			if fr.T <= e || fr.T > to {
				continue
			}
			vals := [3]float64{fr.VX, fr.VY, fr.WZ}
			if fr.T < c && fr.Moving(p.Epsilon) {
				t.Fatalf("PASS with motion %+v before the command: %s", fr, v.Line("fuzz"))
			}
			for i, x := range vals {
				if fr.T >= c && math.Abs(x) > acc[i]*(fr.T-c+p.Tick+p.TimeTol)+1e-6 {
					t.Fatalf("PASS with %+v above the ramp: %s", fr, v.Line("fuzz"))
				}
				if x > max(0, tv[i])+p.TargetTol+1e-6 || x < min(0, tv[i])-p.TargetTol-1e-6 {
					t.Fatalf("PASS with a burst %+v: %s", fr, v.Line("fuzz"))
				}
			}
		}
	})
}
