package envelope

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// Speed is one tested speed of one path and direction: its runs and the campaign's bounds.
type Speed struct {
	// V is the commanded speed, m/s, > 0.
	V float64
	// Distances are the runs' travels after the trigger (m), Times their times to still (s), one each per run.
	Distances, Times []float64
	// Responses, optional (empty, or one per run): trigger to the first decelerating frame at the board, s.
	// Decels, optional likewise: trigger to the measured deceleration (judge/odometry.DecelOnset), s.
	Responses, Decels []float64
	// BoundDistance and BoundTime are the campaign's tolerance bounds at R and C for this speed, computed by
	// the caller (proofs/campaign); this package never recomputes them.
	BoundDistance, BoundTime float64
}

// Input is one path ("estop") in one direction ("forward", "back", "left", "right") over its tested speeds.
type Input struct {
	Path, Direction string
	Speeds          []Speed
}

// Fit is d(v) = ResponseTime·v + v²/(2·Decel), least squares with regressors v and v², no intercept.
type Fit struct {
	ResponseTime float64 // t_r, s, >= 0
	Decel        float64 // a, m/s², > 0; +Inf when no braking term is measured (Clamped says so)
	// Residuals are measured minus fitted distance (m), in the order of the points fitted (per speed for
	// Envelope.Bound, per run for Envelope.Runs).
	Residuals []float64
	RMS, Max  float64 // of the residuals; Max is the largest |residual|
	// R2 is 1 - SSE/SST with SST about the mean distance (the usual definition, although the model has no
	// intercept); 0 when every distance is the same.
	R2 float64
	// Clamped says which constraint the unconstrained fit broke and what was done; "" when none.
	Clamped string
}

// Distance is the fitted distance at v (no range check: Envelope.Distance is the checked one).
func (f Fit) Distance(v float64) float64 { return f.ResponseTime*v + v*v/(2*f.Decel) }

// Split is a speed's bounded distance split as a safety scanner's maker splits a stopping distance: the
// response part (the controller's, trigger to the first decelerating frame at the board; then the
// actuators', to the measured deceleration) and the braking part (the rest of the bounded distance). Each
// time is the slowest run's (the conservative one); NaN when the runs do not carry it. Only when the runs
// carry at least one of the two.
type Split struct {
	V                  float64
	ResponseTime       float64 // s, trigger to the first decelerating frame at the board
	DecelTime          float64 // s, trigger to the measured deceleration (>= ResponseTime when both are measured)
	ResponseDistance   float64 // m, V × ResponseTime: covered before the board was told to slow
	ActuatorDistance   float64 // m, V × (DecelTime - ResponseTime): covered before the slowing was measured
	BrakingDistance    float64 // m, BoundDistance less the response parts measured
	BoundDistance, Max float64 // m, the speed's bounded distance, and the largest run's distance
}

// Envelope is the stopping envelope of one path in one direction. Build it with New.
type Envelope struct {
	Path, Direction string
	Speeds          []Speed // sorted by V, a copy of the input
	Bound           Fit     // the fit over the bounded distances, one point per speed
	Runs            Fit     // the fit over every run's distance, one point per run
	Splits          []Split // per speed that has response times
}

// ErrExtrapolate is wrapped by Distance and Time when v lies outside the tested speeds.
var ErrExtrapolate = errors.New("the envelope is never extrapolated")

// ErrNoSpeedFits is wrapped by SpeedLimitFor when no tested speed stops within the clearance.
var ErrNoSpeedFits = errors.New("no tested speed stops within the clearance")

// New checks the input and fits the envelope. It refuses fewer than two distinct speeds, a non-finite or
// negative number, runs without distances or with mismatched lists, and data no positive deceleration fits.
func New(in Input) (*Envelope, error) {
	name := in.Path + " " + in.Direction
	if len(in.Speeds) < 2 {
		return nil, fmt.Errorf("envelope %s: %d tested speed(s): an envelope needs at least two (run the campaign at more speeds)", name, len(in.Speeds))
	}
	sp := make([]Speed, len(in.Speeds))
	copy(sp, in.Speeds)
	sort.SliceStable(sp, func(i, j int) bool { return sp[i].V < sp[j].V })
	var rv, rd []float64
	for i, s := range sp {
		if !(s.V > 0) || math.IsInf(s.V, 0) {
			return nil, fmt.Errorf("envelope %s: speed %v m/s: a tested speed must be finite and > 0", name, s.V)
		}
		if i > 0 && s.V == sp[i-1].V {
			return nil, fmt.Errorf("envelope %s: speed %s m/s given twice: one entry per tested speed", name, ms(s.V))
		}
		if err := finiteNonNeg("bounded distance", s.BoundDistance); err != nil {
			return nil, fmt.Errorf("envelope %s at %s m/s: %w", name, ms(s.V), err)
		}
		if err := finiteNonNeg("bounded time", s.BoundTime); err != nil {
			return nil, fmt.Errorf("envelope %s at %s m/s: %w", name, ms(s.V), err)
		}
		if len(s.Distances) == 0 || len(s.Times) != len(s.Distances) {
			return nil, fmt.Errorf("envelope %s at %s m/s: %d distances and %d times: need one of each per run, at least one run", name, ms(s.V), len(s.Distances), len(s.Times))
		}
		if len(s.Responses) != 0 && len(s.Responses) != len(s.Distances) {
			return nil, fmt.Errorf("envelope %s at %s m/s: %d response times for %d runs: give one per run or none", name, ms(s.V), len(s.Responses), len(s.Distances))
		}
		if len(s.Decels) != 0 && len(s.Decels) != len(s.Distances) {
			return nil, fmt.Errorf("envelope %s at %s m/s: %d deceleration times for %d runs: give one per run or none", name, ms(s.V), len(s.Decels), len(s.Distances))
		}
		for k := range s.Distances {
			if err := finiteNonNeg("run distance", s.Distances[k]); err != nil {
				return nil, fmt.Errorf("envelope %s at %s m/s run %d: %w", name, ms(s.V), k+1, err)
			}
			if err := finiteNonNeg("run time", s.Times[k]); err != nil {
				return nil, fmt.Errorf("envelope %s at %s m/s run %d: %w", name, ms(s.V), k+1, err)
			}
			rv, rd = append(rv, s.V), append(rd, s.Distances[k])
		}
		for k, r := range s.Responses {
			if err := finiteNonNeg("response time", r); err != nil {
				return nil, fmt.Errorf("envelope %s at %s m/s run %d: %w", name, ms(s.V), k+1, err)
			}
		}
		for k, r := range s.Decels {
			if err := finiteNonNeg("deceleration time", r); err != nil {
				return nil, fmt.Errorf("envelope %s at %s m/s run %d: %w", name, ms(s.V), k+1, err)
			}
		}
		// Fresh slices: the caller's may change after New returns.
		sp[i].Distances = append([]float64(nil), s.Distances...)
		sp[i].Times = append([]float64(nil), s.Times...)
		sp[i].Responses = append([]float64(nil), s.Responses...)
		sp[i].Decels = append([]float64(nil), s.Decels...)
	}
	bv, bd := make([]float64, len(sp)), make([]float64, len(sp))
	for i, s := range sp {
		bv[i], bd[i] = s.V, s.BoundDistance
	}
	bound, err := FitDistance(bv, bd)
	if err != nil {
		return nil, fmt.Errorf("envelope %s, bounded distances: %w", name, err)
	}
	runs, err := FitDistance(rv, rd)
	if err != nil {
		return nil, fmt.Errorf("envelope %s, runs: %w", name, err)
	}
	e := &Envelope{Path: in.Path, Direction: in.Direction, Speeds: sp, Bound: bound, Runs: runs}
	for _, s := range sp {
		if sp, ok := split(s); ok {
			e.Splits = append(e.Splits, sp)
		}
	}
	return e, nil
}

// split is s's Split, when its runs carry a response or a deceleration time.
func split(s Speed) (Split, bool) {
	if len(s.Responses) == 0 && len(s.Decels) == 0 {
		return Split{}, false
	}
	slowest := func(xs []float64) float64 {
		m := math.NaN()
		for _, x := range xs {
			if !(x <= m) {
				m = x
			}
		}
		return m
	}
	sp := Split{V: s.V, ResponseTime: slowest(s.Responses), DecelTime: slowest(s.Decels), BoundDistance: s.BoundDistance,
		ActuatorDistance: math.NaN(), Max: slowest(s.Distances)}
	sp.ResponseDistance = s.V * sp.ResponseTime
	if !math.IsNaN(sp.ResponseTime) && !math.IsNaN(sp.DecelTime) {
		sp.ActuatorDistance = s.V * math.Max(0, sp.DecelTime-sp.ResponseTime)
	}
	resp := sp.DecelTime
	if math.IsNaN(resp) {
		resp = sp.ResponseTime
	} else if !math.IsNaN(sp.ResponseTime) {
		resp = math.Max(resp, sp.ResponseTime)
	}
	sp.BrakingDistance = math.Max(0, s.BoundDistance-s.V*resp)
	return sp, true
}

func finiteNonNeg(what string, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return fmt.Errorf("%s %v: must be finite and >= 0", what, x)
	}
	return nil
}

// linearWithin reports whether d = t·v fits every point within frac of the largest distance: a braking term
// that is not measured, rather than distances that curve the wrong way.
func linearWithin(v, d []float64, t, frac float64) bool {
	dmax := 0.0
	for _, x := range d {
		dmax = math.Max(dmax, math.Abs(x))
	}
	for i := range v {
		if math.Abs(d[i]-t*v[i]) > frac*dmax {
			return false
		}
	}
	return true
}

// FitDistance fits d = t_r·v + b·v², b = 1/(2a), by linear least squares (gonum's QR) over the points (v[i],
// d[i]), constrained to t_r >= 0 and a > 0:
//
//   - the unconstrained fit first; if it has t_r >= 0 and b > 0 it is the answer;
//   - otherwise the optimum lies on a boundary: t_r = 0 (b = Σd·v²/Σv⁴) or b = 0 (t_r = Σd·v/Σv²); the
//     feasible one with the smaller squared error is kept and Fit.Clamped says so;
//   - b = 0 (the distances grow linearly with the speed, d = t_r·v) is kept, with Decel = +Inf and Clamped
//     saying so: no braking term is measured. A brake that follows a lag rather than a constant deceleration
//     gives it (the sim's wheels run down as a first-order lag: distance = speed x 0.13 s), as does one much
//     faster than the response. The distances and the bounds stay valid; only a deceleration limit cannot be
//     derived from it (Config.SmootherDecel refuses).
//
// It refuses fewer than two distinct speeds, non-finite input and non-finite results.
func FitDistance(v, d []float64) (Fit, error) {
	if len(v) != len(d) {
		return Fit{}, fmt.Errorf("fit: %d speeds and %d distances", len(v), len(d))
	}
	distinct := map[float64]bool{}
	for i := range v {
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) || math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return Fit{}, fmt.Errorf("fit: point %d (%v m/s, %v m) is not finite", i+1, v[i], d[i])
		}
		if !(v[i] > 0) {
			return Fit{}, fmt.Errorf("fit: speed %v m/s: speeds must be > 0", v[i])
		}
		distinct[v[i]] = true
	}
	if len(distinct) < 2 {
		return Fit{}, fmt.Errorf("fit: %d distinct speed(s): the two parameters need at least two", len(distinct))
	}
	n := len(v)
	x := mat.NewDense(n, 2, nil)
	y := mat.NewVecDense(n, append([]float64(nil), d...))
	var svd, svv, sv2d, sv3, sv4 float64
	for i := range v {
		x.Set(i, 0, v[i])
		x.Set(i, 1, v[i]*v[i])
		svd += v[i] * d[i]
		svv += v[i] * v[i]
		sv2d += v[i] * v[i] * d[i]
		sv3 += v[i] * v[i] * v[i]
		sv4 += v[i] * v[i] * v[i] * v[i]
	}
	sse := func(tr, b float64) float64 {
		s := 0.0
		for i := range v {
			r := d[i] - tr*v[i] - b*v[i]*v[i]
			s += r * r
		}
		return s
	}
	var tr, b float64
	clamped := ""
	var beta mat.VecDense
	err := beta.SolveVec(x, y)
	if err == nil {
		tr, b = beta.AtVec(0), beta.AtVec(1)
	}
	if err != nil || !(tr >= 0 && b > 0) || !finite(tr) || !finite(b) {
		// The boundaries of the feasible quadrant.
		b0 := math.Max(sv2d/sv4, 0) // t_r = 0
		t0 := math.Max(svd/svv, 0)  // b = 0
		if b0 > 0 && sse(0, b0) <= sse(t0, 0) {
			if err == nil {
				clamped = fmt.Sprintf("response time clamped to 0 s (the unconstrained fit gave t_r = %.4g s, a = %.4g m/s²)", tr, 1/(2*b))
			} else {
				clamped = fmt.Sprintf("response time set to 0 s (the unconstrained fit failed: %v)", err)
			}
			tr, b = 0, b0
		} else if t0 > 0 && linearWithin(v, d, t0, 0.05) {
			clamped = fmt.Sprintf("no braking term: the distances grow linearly with the speed (d = %.4g s x v; the unconstrained fit gave t_r = %.4g s, 1/(2a) = %.4g s²/m): the braking follows a lag or is faster than the response; no deceleration is measured", t0, tr, b)
			tr, b = t0, 0
		} else {
			return Fit{}, fmt.Errorf("fit: the distances do not grow with the square of the speed, nor linearly within 5 %% (best constrained fit: t_r = %.4g s, 1/(2a) = 0): no deceleration fits them; check the runs or test more speeds", t0)
		}
	}
	// A braking distance that is a rounding error of the distances is an unmeasured brake, not a perfect one.
	vmax, dmax := 0.0, 0.0
	for i := range v {
		vmax, dmax = math.Max(vmax, v[i]), math.Max(dmax, math.Abs(d[i]))
	}
	if b != 0 && b*vmax*vmax <= 1e-9*dmax {
		return Fit{}, fmt.Errorf("fit: the braking part v²/(2a) is %.3g m at %s m/s, nothing against %.3g m of travel: no finite deceleration is measured; check the runs or test more speeds", b*vmax*vmax, ms(vmax), dmax)
	}
	a := math.Inf(1) // b = 0: no braking term measured
	if b != 0 {
		a = 1 / (2 * b)
	}
	if !finite(tr) || (b != 0 && !finite(a)) || !(a > 0) {
		return Fit{}, fmt.Errorf("fit: non-finite parameters (t_r = %v s, a = %v m/s²) from the input: its numbers are out of range", tr, a)
	}
	f := Fit{ResponseTime: tr, Decel: a, Residuals: make([]float64, n), Clamped: clamped}
	var mean float64
	for _, di := range d {
		mean += di / float64(n)
	}
	var ss, st float64
	for i := range v {
		r := d[i] - f.Distance(v[i])
		f.Residuals[i] = r
		ss += r * r
		st += (d[i] - mean) * (d[i] - mean)
		f.Max = math.Max(f.Max, math.Abs(r))
	}
	f.RMS = math.Sqrt(ss / float64(n))
	if st > 0 {
		f.R2 = 1 - ss/st
	}
	if !finite(f.RMS) || !finite(f.Max) || !finite(f.R2) {
		return Fit{}, fmt.Errorf("fit: non-finite residuals from the input: its numbers are out of range")
	}
	return f, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// MinSpeed and MaxSpeed are the slowest and the fastest tested speeds.
func (e *Envelope) MinSpeed() float64 { return e.Speeds[0].V }

// MaxSpeed is the fastest tested speed.
func (e *Envelope) MaxSpeed() float64 { return e.Speeds[len(e.Speeds)-1].V }

// AtMax is the fastest tested speed's entry (its BoundDistance and BoundTime are what the exported
// configuration uses, as measured, not as fitted).
func (e *Envelope) AtMax() Speed { return e.Speeds[len(e.Speeds)-1] }

func (e *Envelope) inRange(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("speed NaN: %w", ErrExtrapolate)
	case v < e.MinSpeed():
		return fmt.Errorf("%s m/s is below the slowest tested speed %s m/s: %w", ms(v), ms(e.MinSpeed()), ErrExtrapolate)
	case v > e.MaxSpeed():
		return fmt.Errorf("%s m/s is above the fastest tested speed %s m/s: %w", ms(v), ms(e.MaxSpeed()), ErrExtrapolate)
	}
	return nil
}

// Distance is the stopping distance at v, for v inside the tested speeds only: the larger of the bounded fit
// and the straight-line interpolation of the bounded distances between the neighbouring tested speeds, so at
// a tested speed it is never below that speed's bound, and between them never below either reading.
func (e *Envelope) Distance(v float64) (float64, error) {
	if err := e.inRange(v); err != nil {
		return 0, err
	}
	return math.Max(e.Bound.Distance(v), e.interp(v, func(s Speed) float64 { return s.BoundDistance })), nil
}

// Time is the bounded stop time at v, for v inside the tested speeds only: the straight-line interpolation of
// the bounded times between the neighbouring tested speeds (the time has no fitted model: the time to still
// includes the judge's resolution, which no physics predicts).
func (e *Envelope) Time(v float64) (float64, error) {
	if err := e.inRange(v); err != nil {
		return 0, err
	}
	return e.interp(v, func(s Speed) float64 { return s.BoundTime }), nil
}

func (e *Envelope) interp(v float64, y func(Speed) float64) float64 {
	i := sort.Search(len(e.Speeds), func(i int) bool { return e.Speeds[i].V >= v })
	if e.Speeds[i].V == v || i == 0 {
		return y(e.Speeds[i])
	}
	lo, hi := e.Speeds[i-1], e.Speeds[i]
	w := (v - lo.V) / (hi.V - lo.V)
	return y(lo) + w*(y(hi)-y(lo))
}

// SpeedLimitFor is the driver's speed limit for a clearance (m): the fastest TESTED speed whose bounded
// stopping distance fits the clearance, and every slower tested speed's too (a limit lets the robot drive at
// any speed below it, so a slower speed that does not fit caps it). It is never an interpolated speed.
func (e *Envelope) SpeedLimitFor(clearance float64) (float64, error) {
	if !(clearance > 0) || math.IsInf(clearance, 0) {
		return 0, fmt.Errorf("clearance %v m: must be finite and > 0", clearance)
	}
	limit := 0.0
	for _, s := range e.Speeds {
		if s.BoundDistance > clearance {
			break
		}
		limit = s.V
	}
	if limit == 0 {
		s := e.Speeds[0]
		return 0, fmt.Errorf("%s %s: the slowest tested speed %s m/s needs %.3f m (bounded) and the clearance is %.3f m: %w",
			e.Path, e.Direction, ms(s.V), s.BoundDistance, clearance, ErrNoSpeedFits)
	}
	return limit, nil
}

// ms formats a speed as the messages print it: two decimals when they hold it exactly, all its digits else.
func ms(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if p, err := strconv.ParseFloat(s, 64); err == nil && p == v {
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
