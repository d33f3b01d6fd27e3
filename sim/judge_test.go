package sim

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/vibration"
)

// The sim is calibrated and checked with the stand judge CI itself runs (judge/vibration), not a copy of it:
// a copy can drift from the real judge (window grid, "no data" rule, time labels) and then the sim would be
// fitted to a judge nobody uses. These are thin adapters only.

// judgeParams are the seed's limits (threshold 0.0035 rad/s, 0.2 s windows every 0.05 s).
var judgeParams = vibration.DefaultParams()

// sampleFromReading converts a pure-model IMU reading as the board's frame would carry it (float32 deg/s).
func sampleFromReading(t time.Duration, r IMUReading) vibration.Sample {
	return vibration.SampleFromBoard(t.Seconds(), [3]float32{float32(r.Gyro[0]), float32(r.Gyro[1]), float32(r.Gyro[2])})
}

// meanScore is the mean score of the judge's windows that lie inside [a, b] and hold data; NaN if none does.
func meanScore(s []vibration.Sample, a, b float64) float64 {
	sum, n := 0.0, 0
	for _, w := range vibration.WindowsBetween(s, a, b, judgeParams) {
		if !w.NoData {
			sum += w.Score
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// judgeStop runs stand.Judge with the trigger at trigger and the end at the last sample (an end past the
// data would add no-data windows, which the judge rightly never calls still). Verdict.StillFrom is NaN
// when the vibration never settles.
func judgeStop(s []vibration.Sample, trigger float64) vibration.Verdict {
	end := trigger
	for _, x := range s {
		end = math.Max(end, x.T)
	}
	if end <= trigger {
		end = trigger + judgeParams.Step // no data after the trigger: let the judge say so
	}
	return vibration.Judge(s, trigger, end, judgeParams)
}

// boundS is testkit.Bound for a bound in seconds: s, or wider under the race detector.
func boundS(s float64) float64 {
	return testkit.Bound(time.Duration(s * float64(time.Second))).Seconds()
}

// minCount is the least number of frames, bytes or scans a real-time test accepts in a wall-time window:
// n, or n/RaceFactor (at least 1) under the race detector, where a loaded machine starves the sim. The
// upper bounds stay: a sim that falls behind never sends more.
func minCount(n int) int {
	if testkit.RaceEnabled {
		return max(1, n/testkit.RaceFactor)
	}
	return n
}
