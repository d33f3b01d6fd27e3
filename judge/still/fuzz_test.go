package still

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/rosorin/rosorin/judge/vibration"
)

// floats reads b as little-endian float64s.
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

// FuzzJudge: arbitrary frames, gyro and speed samples and ranges never panic, never PASS with a non-finite
// number in the input, and never PASS while a frame in the hold commands motion or a speed sample is fast.
func FuzzJudge(f *testing.F) {
	f.Add(bytesOf(0, 0, 0, 0, 1, 0, 0, 0, 2, 0.2, 0, 0), bytesOf(), bytesOf(0.5, 0.01, 1.5, 0.01), 0.5, 2.0)
	f.Add(bytesOf(0, 0, 0, 0), bytesOf(0, 0.01, 0.02, 0.01, 0.01, 0.02), bytesOf(), 0.0, 1.0)
	f.Add(bytesOf(0, math.NaN(), 0, 0), bytesOf(), bytesOf(), 0.0, 1.0)
	f.Add(bytesOf(0, 0, 0, 0, 0.5, 0, 0, 0.3), bytesOf(), bytesOf(0.1, math.Inf(1)), 0.0, 1.0)
	f.Fuzz(func(t *testing.T, fb, gb, sb []byte, from, to float64) {
		fl, gl, sl := floats(fb), floats(gb), floats(sb)
		if len(fl) > 4000 || len(gl) > 4000 || len(sl) > 4000 || math.Abs(to-from) > 1000 {
			t.Skip()
		}
		var in Input
		nan := false
		for i := 0; i+4 <= len(fl); i += 4 {
			fr := Frame{T: fl[i], VX: fl[i+1], VY: fl[i+2], WZ: fl[i+3]}
			nan = nan || !fr.Valid()
			in.Frames = append(in.Frames, fr)
		}
		for i := 0; i+3 <= len(gl); i += 3 {
			s := vibration.Sample{T: gl[i], GyroX: gl[i+1], GyroY: gl[i+2]}
			nan = nan || !finite(s.T) || !finite(s.GyroX) || !finite(s.GyroY)
			in.Gyro = append(in.Gyro, s)
		}
		for i := 0; i+2 <= len(sl); i += 2 {
			s := Speed{T: sl[i], V: sl[i+1]}
			nan = nan || !finite(s.T) || !finite(s.V)
			in.Speed = append(in.Speed, s)
		}
		nan = nan || !finite(from) || !finite(to)
		p := DefaultParams()
		v := Judge(in, from, to, p)
		_ = v.Line("fuzz")
		if v.Outcome != Pass {
			return
		}
		if nan {
			t.Fatalf("PASS with a non-finite number in the input: %s", v.Line("fuzz"))
		}
		for _, fr := range in.Frames {
			if fr.T > from && fr.T <= to && fr.Moving(p.Epsilon) {
				t.Fatalf("PASS with a moving frame %+v in the hold: %s", fr, v.Line("fuzz"))
			}
		}
		for _, s := range in.Speed {
			if s.T >= from && s.T <= to && math.Abs(s.V) >= p.SpeedThreshold {
				t.Fatalf("PASS with a fast sample %+v in the hold: %s", s, v.Line("fuzz"))
			}
		}
		if v.Reason != "" || v.FirstMotion != nil {
			t.Fatalf("PASS with a reason or a motion: %+v", v)
		}
	})
}
