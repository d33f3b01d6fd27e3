package stopmon

import "math"

// zq is the standard normal's q-quantile.
func zq(q float64) float64 { return math.Sqrt2 * math.Erfinv(2*q-1) }

// tolFactor is the one-sided normal tolerance factor k: with confidence conf, mean + k*sd of n values from a
// normal distribution is at or above its p-quantile. The Natrella approximation (NIST/SEMATECH e-Handbook of
// Statistical Methods, 7.2.6.3): a = 1 - z_conf²/(2(n-1)), b = z_p² - z_conf²/n, k = (z_p + sqrt(z_p² - ab))/a;
// within about 1 % of the exact (noncentral t) factor for n >= 10 (n = 10, p = conf = 0.9: 1.856 against
// the exact 1.8746). NaN when n < 2 or a <= 0 (too few values for that confidence).
func tolFactor(n int, p, conf float64) float64 {
	if n < 2 || !(p > 0 && p < 1 && conf > 0 && conf < 1) {
		return math.NaN()
	}
	zp, zc := zq(p), zq(conf)
	a := 1 - zc*zc/(2*float64(n-1))
	b := zp*zp - zc*zc/float64(n)
	if a <= 0 || zp*zp-a*b < 0 {
		return math.NaN()
	}
	return (zp + math.Sqrt(zp*zp-a*b)) / a
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
