package sim

import (
	"math"
	"time"
)

// A replica of the chapter 19 stand judge (scripts/stop_proof.py), used only to fit and check the model:
// score = hypot(std gyro_x, std gyro_y) in rad/s over sliding 0.2 s windows, threshold 0.0035.
const (
	judgeThr = 0.0035
	judgeWin = 0.2
)

type gyroSample struct {
	t    float64 // s
	x, y float64 // rad/s
}

type window struct{ start, end, score float64 }

func windows(s []gyroSample) []window {
	var out []window
	j := 0
	for i := range s {
		for s[i].t-s[j].t > judgeWin {
			j++
		}
		if s[i].t-s[0].t < judgeWin-0.02 {
			continue
		}
		out = append(out, window{s[j].t, s[i].t, scoreOf(s[j : i+1])})
	}
	return out
}

func scoreOf(s []gyroSample) float64 {
	return math.Hypot(stdOf(s, func(g gyroSample) float64 { return g.x }), stdOf(s, func(g gyroSample) float64 { return g.y }))
}

func stdOf(s []gyroSample, f func(gyroSample) float64) float64 {
	if len(s) < 2 {
		return 0
	}
	m := 0.0
	for _, g := range s {
		m += f(g)
	}
	m /= float64(len(s))
	v := 0.0
	for _, g := range s {
		d := f(g) - m
		v += d * d
	}
	return math.Sqrt(v / float64(len(s)))
}

// settleTime returns the time (relative to tStop) from which the vibration stays below the threshold,
// labelling windows by their end time as the chapter's judge does ("the end of the first window after the
// last loud window"); ok is false when it never settles. Only windows ending after tStop count.
func settleTime(s []gyroSample, tStop float64) (float64, bool) {
	w := windows(s)
	lastLoud := -1
	for i, x := range w {
		if x.end > tStop && x.score >= judgeThr {
			lastLoud = i
		}
	}
	if lastLoud < 0 {
		return 0, true
	}
	if lastLoud+1 >= len(w) {
		return 0, false
	}
	return w[lastLoud+1].end - tStop, true
}

// meanScore is the mean window score over windows fully inside [a, b].
func meanScore(s []gyroSample, a, b float64) float64 {
	sum, n := 0.0, 0
	for _, x := range windows(s) {
		if x.start >= a && x.end <= b {
			sum += x.score
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

func gyroFromReading(t time.Duration, r IMUReading) gyroSample {
	return gyroSample{t.Seconds(), r.Gyro[0] * math.Pi / 180, r.Gyro[1] * math.Pi / 180}
}
