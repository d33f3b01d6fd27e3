package stopmon

import "math"

// zq is the standard normal's q-quantile.
func zq(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }

// tolFactor is the one-sided normal tolerance factor k: with confidence conf, mean + k*sd of n values from a
// normal distribution is at or above its p-quantile. Exact (the noncentral t's, computed): the coverage of k
// is the integral over the chi distribution of x = sd*sqrt(n-1)/sigma of Phi(sqrt(n)*(k*x/sqrt(n-1) - z_p)),
// by Simpson's rule, and k is found by bisection (n = 10, p = conf = 0.9: 2.066; Natrella's approximation,
// NIST/SEMATECH e-Handbook 7.2.6.3, gives 2.012, which covers only 88.7 % in TestTolFactor's simulation).
// NaN when n < 2 or p or conf is outside (0, 1).
func tolFactor(n int, p, conf float64) float64 {
	if n < 2 || !(p > 0 && p < 1 && conf > 0 && conf < 1) {
		return math.NaN()
	}
	zp := zq(p)
	df := float64(n - 1)
	lg, _ := math.Lgamma(df / 2)
	lnorm := (df/2-1)*math.Ln2 + lg
	hi := math.Sqrt(df) + 12
	const steps = 2000
	h := hi / steps
	coverage := func(k float64) float64 {
		sum := 0.0
		for i := 0; i <= steps; i++ {
			x := float64(i) * h
			var f float64
			if x > 0 {
				f = math.Exp((df-1)*math.Log(x) - x*x/2 - lnorm)
			} else if df == 1 {
				f = math.Exp(-lnorm)
			}
			f *= 0.5 * math.Erfc(-math.Sqrt(float64(n))*(k*x/math.Sqrt(df)-zp)/math.Sqrt2)
			w := 2.0
			switch {
			case i == 0 || i == steps:
				w = 1
			case i%2 == 1:
				w = 4
			}
			sum += w * f
		}
		return sum * h / 3
	}
	lo, up := zp-10, zp+1
	for coverage(up) < conf {
		up += 10
		if up > 1e4 {
			return math.NaN()
		}
	}
	for range 60 {
		mid := (lo + up) / 2
		if coverage(mid) < conf {
			lo = mid
		} else {
			up = mid
		}
	}
	return up
}

// meanSD is the mean and sample standard deviation.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return mean, sd
}
