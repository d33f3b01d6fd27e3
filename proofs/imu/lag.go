package imu

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Lag is how far the receipt of the driver's IMU samples trailed the driver's own stamps: receipt minus
// stamp, both read as wall-clock times. On one machine that is the delivery latency (the driver's queue,
// JSON, the socket) plus any offset of the driver's clock from this machine's wall clock: a wall-clock step
// since the driver started shows up here as a lag of its size. The proof times samples on receipt, so
// neither moves a stop time; the lag says how late "receipt" is, and whether the clocks disagree.
type Lag struct {
	N        int     `json:"n"` // samples with a driver stamp
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
}

// SkewLimitMS is the median lag beyond which Lag.Note speaks up: the socket delivers in well under a
// millisecond, and 50 ms is a quarter of a judge window.
const SkewLimitMS = 50

// LagOf measures the lag of the samples that carry a driver stamp (the others are skipped).
func LagOf(ss []Sample) Lag { return LagFromMS(LagsMS(ss)) }

// LagsMS lists the lag of each sample that carries a driver stamp, in milliseconds.
func LagsMS(ss []Sample) []float64 {
	ms := make([]float64, 0, len(ss))
	for _, s := range ss {
		if s.Stamp.IsZero() || s.At.IsZero() {
			continue
		}
		// Round(0) drops the monotonic reading: the stamp has none, and the difference of two wall times
		// is what is meant (Sub would use wall times anyway; this says so).
		ms = append(ms, float64(s.At.Round(0).Sub(s.Stamp))/1e6)
	}
	return ms
}

// LagFromMS summarises lags given in milliseconds (a run's lags gathered over its paths).
func LagFromMS(ms []float64) Lag {
	if len(ms) == 0 {
		return Lag{}
	}
	xs := slices.Clone(ms)
	slices.Sort(xs)
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, xs, nil) } // nearest rank
	return Lag{N: len(xs), MedianMS: q(0.5), MinMS: xs[0], P99MS: q(0.99), MaxMS: xs[len(xs)-1]}
}

// String is the evidence log's and the summary's wording.
func (l Lag) String() string {
	if l.N == 0 {
		return "no driver stamps"
	}
	return fmt.Sprintf("driver stamp to receipt: median %.2f ms, min %.2f, p99 %.2f, max %.2f ms over %d samples",
		l.MedianMS, l.MinMS, l.P99MS, l.MaxMS, l.N)
}

// Note is a warning when the median lag says the driver's clock and this machine's disagree (or the stream
// runs a backlog), "" otherwise.
func (l Lag) Note() string {
	if l.N == 0 || math.Abs(l.MedianMS) <= SkewLimitMS {
		return ""
	}
	return fmt.Sprintf("the driver's stamps are %.3f s off their receipt here (a wall-clock step since the driver started, or a backlog in its IMU stream); the proof times samples on receipt, so its stop times are not affected",
		l.MedianMS/1000)
}
