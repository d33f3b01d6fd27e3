package vibration

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand"
	"testing"
)

// allLoudAfter reports whether every post-trigger window that has data is loud (naive recomputation on the
// judge's grid). For such a series no judge may say the wheels stopped.
func allLoudAfter(s []Sample, trigger, end float64, p Params) bool {
	n := gridCount(p.Step, end-trigger, p)
	for k := 1; k <= n; k++ {
		if w := naiveWindow(s, trigger+float64(k)*p.Step, p); !w.NoData && w.Score < p.Threshold {
			return false
		}
	}
	return true
}

// TestJudgePropertyLoudNeverPasses: random recordings (rate, jitter, holes, NaN, order, levels) whose
// post-trigger windows all stay loud never PASS, and every PASS holds up to a naive recomputation.
func TestJudgePropertyLoudNeverPasses(t *testing.T) {
	p := DefaultParams()
	rng := rand.New(rand.NewSource(20261002))
	loudRuns, passes := 0, 0
	for i := 0; i < 400; i++ {
		// 60-250 Hz: at 110 Hz a window holds 22 samples; below ~50 Hz every window is "no data" (MinSamples 10).
		c := series{seed: rng.Int63(), hz: 60 + rng.Float64()*190, from: 0, to: trig + 1 + rng.Float64()*6, jitter: rng.Float64()}
		if i%2 == 0 { // loud to the end, at any level above the threshold
			c.segs = []seg{{math.Inf(1), p.Threshold * (1.4 + 2*rng.Float64())}}
		} else { // a stop somewhere, or none
			c.segs = []seg{{trig + rng.Float64()*3, fwd02Level}, {math.Inf(1), stillLevel * (0.5 + rng.Float64())}}
		}
		for g := rng.Intn(5) - 2; g > 0; g-- {
			a := rng.Float64() * c.to
			c.gaps = append(c.gaps, [2]float64{a, a + rng.Float64()*1.5})
		}
		s := c.gen()
		for k := rng.Intn(4); k > 0 && len(s) > 0; k-- {
			s[rng.Intn(len(s))].GyroY = math.NaN()
		}
		if rng.Intn(4) == 0 {
			rng.Shuffle(len(s), func(a, b int) { s[a], s[b] = s[b], s[a] })
		}
		end := c.to - rng.Float64()*rng.Float64()*(c.to-trig)
		v := Judge(s, trig, end, p)
		checkVerdict(t, s, v)
		if allLoudAfter(s, trig, end, p) {
			loudRuns++
			if v.Outcome == Pass {
				t.Fatalf("case %d: every window after the trigger is loud, yet %s", i, v.Line("loud"))
			}
		}
		if v.Outcome == Pass {
			passes++
		}
	}
	t.Logf("400 random recordings: %d loud to the end (none passed), %d passed", loudRuns, passes)
	if loudRuns < 100 || passes < 20 {
		t.Fatalf("the generator covers too little: %d loud, %d passed", loudRuns, passes)
	}
}

// decodeFuzz turns bytes into samples, 5 bytes each: time step in ms (255 = NaN time), then gyro x and y as
// int16 in units of 1e-4 rad/s (-32768 = NaN, 32767 = +Inf).
func decodeFuzz(data []byte) []Sample {
	var out []Sample
	t := 0.0
	val := func(u uint16) float64 {
		switch int16(u) {
		case math.MinInt16:
			return math.NaN()
		case math.MaxInt16:
			return math.Inf(1)
		}
		return float64(int16(u)) * 1e-4
	}
	for ; len(data) >= 5; data = data[5:] {
		s := Sample{T: t, GyroX: val(binary.LittleEndian.Uint16(data[1:])), GyroY: val(binary.LittleEndian.Uint16(data[3:]))}
		if data[0] == 255 {
			s.T = math.NaN()
		} else {
			t += float64(data[0]) / 1000
			s.T = t
		}
		out = append(out, s)
	}
	return out
}

func encodeFuzz(s []Sample) []byte {
	var b []byte
	prev := 0.0
	if len(s) > 0 {
		prev = s[0].T // decoded, the first sample is at 0
	}
	for _, x := range s {
		dt := math.Round((x.T - prev) * 1000)
		prev += dt / 1000
		b = append(b, byte(min(max(dt, 0), 254)))
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(x.GyroX*1e4)))
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(x.GyroY*1e4)))
	}
	return b
}

// fuzzSeed encodes a short recording (1.2 s of spin before the trigger, 2.4 s after; 5 bytes a sample at
// 110 Hz keeps the mutator fast). Decoded, the trigger is at 1.2 s. The levels of the seeds are scaled x4 so
// that the int16 encoding in 1e-4 rad/s resolves them (with the threshold scaled x4 too).
func fuzzSeed(c series) []byte {
	c.from, c.to = trig-1.2, trig+2.4
	return encodeFuzz(c.gen())
}

// TestFuzzSeeds: the seeds mean what they say once encoded, so the fuzzer starts from a PASS and a FAIL.
func TestFuzzSeeds(t *testing.T) {
	p := DefaultParams()
	p.Threshold *= 4
	p.NeedQuiet = 1.5
	if v := Judge(decodeFuzz(fuzzSeed(stopAt(1, fwd35Level*4, 0.4))), 1.2, 3.6, p); v.Outcome != Pass {
		t.Fatalf("stop seed: %s", v.Line("seed"))
	}
	if v := Judge(decodeFuzz(fuzzSeed(series{seed: 2, segs: []seg{{math.Inf(1), fwd35Level * 4}}})), 1.2, 3.6, p); v.Reason != "NEVER settled in 2.4 s" {
		t.Fatalf("loud seed: %s", v.Line("seed"))
	}
}

// FuzzJudge: no input makes the judges panic or produce an unrecordable verdict, and no PASS fails the naive
// recomputation (which includes: never PASS when the windows after the trigger stay loud).
func FuzzJudge(f *testing.F) {
	f.Add(fuzzSeed(stopAt(1, fwd35Level*4, 0.4)), 1.2, 2.4, uint16(140))
	f.Add(fuzzSeed(series{seed: 2, segs: []seg{{math.Inf(1), fwd35Level * 4}}}), 1.2, 2.4, uint16(140))
	f.Add(fuzzSeed(stopAt(3, fwd35Level*4, 0.4)), 1.2, 1.5, uint16(140))
	f.Add([]byte{255, 0, 128, 255, 127}, 0.0, 1.0, uint16(0))
	f.Add([]byte{}, math.NaN(), math.Inf(1), uint16(35))
	f.Fuzz(func(t *testing.T, data []byte, trigger, span float64, thr uint16) {
		// Spans a stand run can have (NaN and infinities stay or become NaN): a span of hours only costs time
		// (2^20 windows, see TestJudgeBadInput for the refusal beyond), and the naive check costs windows x
		// samples.
		span = math.Mod(span, 60)
		s := decodeFuzz(data)
		p := DefaultParams()
		p.Threshold = float64(thr) * 1e-4
		p.NeedQuiet = 1.5 // the seeds are short (TestFuzzSeeds)
		v := Judge(s, trigger, trigger+span, p)
		checkVerdict(t, s, v)
		if v.Outcome == Pass && allLoudAfter(s, trigger, trigger+span, p) {
			t.Fatalf("PASS on a series loud to the end: %s", v.Line("fuzz"))
		}
		_ = v.Line("fuzz")
		r := ReleaseCheck(s, trigger, trigger+span, p)
		_ = r.Line("fuzz")
		for _, x := range []Verdict{v, r} {
			if _, err := json.Marshal(x); err != nil {
				t.Fatal(err)
			}
		}
		_ = PhaseLevels(s, []Phase{{Name: "a", From: trigger, To: trigger + span}})
	})
}
