package driver

// Rate meters and tick timing for the state record.

import (
	"slices"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// rateMeter measures an event rate: the number of events in the last second (a sliding window over the last
// len(ring) arrival times, enough for the IMU's 110 Hz).
type rateMeter struct {
	ring [256]time.Time
	n    int
}

func (m *rateMeter) add(at time.Time) {
	m.ring[m.n%len(m.ring)] = at
	m.n++
}

// hz returns the events within the second before now.
func (m *rateMeter) hz(now time.Time) float64 {
	c := 0
	for i := range min(m.n, len(m.ring)) {
		at := m.ring[(m.n-1-i)%len(m.ring)]
		if now.Sub(at) > time.Second {
			break
		}
		c++
	}
	return float64(c)
}

// jitterStats keeps the last tick intervals for percentiles, and counts overruns since start.
type jitterStats struct {
	ring     [500]time.Duration // 10 s at 50 Hz
	n        int
	overruns uint64
	cached   api.LoopStats
	cachedAt int
}

func (j *jitterStats) add(dt, tick time.Duration) {
	j.ring[j.n%len(j.ring)] = dt
	j.n++
	if dt > tick*3/2 {
		j.overruns++
	}
}

// Intervals returns a copy of the recorded intervals (oldest first order is not kept).
func (j *jitterStats) intervals() []time.Duration {
	k := min(j.n, len(j.ring))
	return slices.Clone(j.ring[:k])
}

func (j *jitterStats) stats(rate float64) api.LoopStats {
	if j.n == j.cachedAt && j.n > 0 {
		return j.cached
	}
	v := j.intervals()
	s := api.LoopStats{RateHz: rate, Overruns: j.overruns}
	if len(v) > 0 {
		slices.Sort(v)
		ms := func(d time.Duration) float64 { return round3(float64(d) / 1e6) }
		s.TickP50Ms = ms(v[len(v)/2])
		s.TickP99Ms = ms(v[min(len(v)-1, len(v)*99/100)])
		s.TickMaxMs = ms(v[len(v)-1])
	}
	j.cached, j.cachedAt = s, j.n
	return s
}

func round3(v float64) float64 {
	if v < 0 {
		return -round3(-v)
	}
	return float64(int64(v*1000+0.5)) / 1000
}
