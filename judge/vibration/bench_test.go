package vibration

import "testing"

// BenchmarkJudge: a 10 s recording at the IMU's 110 Hz (3 s spinning, the trigger, 7 s after), judged with
// the default parameters.
func BenchmarkJudge(b *testing.B) {
	s := series{seed: 1, from: 0, to: 10, segs: []seg{{trig + 0.4, fwd02Level}, {1e9, stillLevel}}}.gen()
	p := DefaultParams()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if v := Judge(s, trig, 10, p); v.Outcome != Pass {
			b.Fatal(v.Line("bench"))
		}
	}
}

// BenchmarkJudgeUnsorted: the same recording out of order with one NaN sample: the copy-and-sort path.
func BenchmarkJudgeUnsorted(b *testing.B) {
	s := series{seed: 1, from: 0, to: 10, segs: []seg{{trig + 0.4, fwd02Level}, {1e9, stillLevel}}}.gen()
	s[10], s[500] = s[500], s[10]
	s[700].GyroX = nan()
	p := DefaultParams()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Judge(s, trig, 10, p)
	}
}
