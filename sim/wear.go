package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultWearMin is the wear-brake fault's floor when none is given: the brake factor never wears below a
// tenth of the model's deceleration (stops ten times as long), so the factor never reaches 0 and the sim's
// truth (StoppingTruth, which follows a stop for 60 s) still sees every stop end.
const DefaultWearMin = 0.1

// MinWearFloor is the lowest floor wear-brake accepts: at 0.05 a floor stop runs down to the physics'
// cut-off in about 41 s, inside StoppingTruth's 60 s.
const MinWearFloor = 0.05

// Wear is the wear-brake fault's law: brakes that wear in service, so the stops lengthen by Rate per stop
// or per minute. The brake factor is weak-brake's (the fraction of the model's deceleration; the wheels'
// run-down time constant is divided by it), and wear multiplies the time constant by 1+Rate per unit,
// compounding:
//
//	factor(n) = max(base x (1+Rate)^-n, min(Min, base))
//
// with base the factor in effect when the wear started (1, or weak-brake's) and n the stops the sim has
// seen since (PerMin false) or the minutes of sim time since (PerMin true, continuous). Under the model's
// first-order run-down every stop's time and distance are proportional to the time constant, so each stop
// (or each minute) lengthens them by Rate, to the physics' step (StoppingTruth).
type Wear struct {
	Rate   float64 // per stop or per minute, a fraction: 0.05 is 5 %; 0 is off
	PerMin bool    // false: per stop; true: per minute of sim time
	Min    float64 // the floor of the factor, in [MinWearFloor, 1]; DefaultWearMin when 0
}

func (w Wear) floor() float64 {
	if w.Min == 0 {
		return DefaultWearMin
	}
	return w.Min
}

// Factor is the brake factor after stops stops (per-stop wear) or elapsed sim time (per-minute wear) from
// the factor base (0 counts as 1, the normal model). Off (Rate 0) it is base.
func (w Wear) Factor(base float64, stops int, elapsed time.Duration) float64 {
	if !(base > 0 && base <= 1) {
		base = 1
	}
	if w.Rate <= 0 {
		return base
	}
	n := float64(stops)
	if w.PerMin {
		n = elapsed.Minutes()
	}
	return math.Max(base*math.Pow(1+w.Rate, -n), math.Min(w.floor(), base))
}

// String is the fault's value: "5%/stop", "2%/min,min=0.2"; "0" when off.
func (w Wear) String() string {
	if w.Rate <= 0 {
		return "0"
	}
	unit := "stop"
	if w.PerMin {
		unit = "min"
	}
	s := strconv.FormatFloat(w.Rate*100, 'g', 6, 64) + "%/" + unit
	if w.Min != 0 && w.Min != DefaultWearMin {
		s += ",min=" + strconv.FormatFloat(w.Min, 'g', -1, 64)
	}
	return s
}

const wearNeed = "RATE%/stop or RATE%/min with 0 < RATE <= 100, optionally ,min=FLOOR with 0.05 <= FLOOR <= 1 " +
	"(default 0.1); 0 = off, e.g. wear-brake=5%/stop or wear-brake=2%/min,min=0.2"

// ParseWear parses wear-brake's value: "5%/stop", "2%/min", either with ",min=0.2"; "0" or "off" is off.
func ParseWear(val string) (Wear, error) {
	bad := func(why string) (Wear, error) {
		return Wear{}, fmt.Errorf("%q is not a wear rate (%s): needs %s", val, why, wearNeed)
	}
	v := strings.TrimSpace(val)
	if v == "0" || strings.EqualFold(v, "off") {
		return Wear{}, nil
	}
	rate, opt, hasOpt := strings.Cut(v, ",")
	num, unit, ok := strings.Cut(rate, "%/")
	if !ok {
		return bad("no %/stop or %/min")
	}
	var w Wear
	switch strings.TrimSpace(unit) {
	case "stop":
	case "min":
		w.PerMin = true
	default:
		return bad("the unit must be stop or min")
	}
	pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(pct > 0 && pct <= 100) {
		return bad("the rate must be a percentage in (0, 100]")
	}
	w.Rate = pct / 100
	if hasOpt {
		k, m, ok := strings.Cut(strings.TrimSpace(opt), "=")
		x, err := strconv.ParseFloat(strings.TrimSpace(m), 64)
		if !ok || strings.TrimSpace(k) != "min" || err != nil || !(x >= MinWearFloor && x <= 1) {
			return bad("the floor must be min=FLOOR with 0.05 <= FLOOR <= 1")
		}
		if x != DefaultWearMin { // one law, one value: the default floor spelt out is the same wear
			w.Min = x
		}
	}
	return w, nil
}

// brake is the brake factor in effect (the physics' 0 is the normal model, 1).
func (c *core) brake() float64 {
	if b := c.phys.Brake; b > 0 && b < 1 {
		return b
	}
	return 1
}

// setWear is the wear-brake fault. The same law again (a proof applies its fault at each trigger) keeps
// wearing; another starts from the factor in effect, counting stops and minutes from now; 0 stops the wear
// and keeps the factor reached and the stops counted (worn brakes do not heal: weak-brake=1 puts new ones
// in).
func (c *core) setWear(w Wear, now time.Time) {
	if w == c.wear {
		return
	}
	c.wear = w
	if w.Rate > 0 {
		c.restartWear(c.brake(), now)
	}
}

// restartWear starts the wear from the factor base at now (wear-brake set, or weak-brake while wearing: new
// brakes of that factor, which wear from then on).
func (c *core) restartWear(base float64, now time.Time) {
	c.wearBase, c.wearStops, c.wearFrom = base, 0, now
}

// stopSeen is a stop the board obeys (the wheels' targets from turning to all zero, by a motor frame, a
// lagged stop or a board reset): per-stop wear wears the brakes at it, before the stop's run-down, so the
// k-th stop since the wear started runs at factor(k).
func (c *core) stopSeen() {
	if c.wear.Rate <= 0 {
		return
	}
	c.wearStops++
	if !c.wear.PerMin {
		c.phys.Brake = c.wear.Factor(c.wearBase, c.wearStops, 0)
	}
}

// wearTick is per-minute wear: the factor at now, set before the physics steps to it.
func (c *core) wearTick(now time.Time) {
	if c.wear.Rate > 0 && c.wear.PerMin {
		c.phys.Brake = c.wear.Factor(c.wearBase, 0, now.Sub(c.wearFrom))
	}
}

// setTarget sets the wheels' targets, counting a stop for the wear.
func (c *core) setTarget(next [4]float64) {
	if next == ([4]float64{}) && c.phys.Target != ([4]float64{}) {
		c.stopSeen()
	}
	c.phys.Target = next
}

// BrakeWear is the sim's truth about its brakes now: the brake factor in effect (1 normal; weak-brake's
// FACTOR; worn by wear-brake) and the stops the sim has seen since the wear started (0 without wear-brake;
// under per-minute wear they are counted but do not wear). Tests and reports only: a monitor must judge
// from the bytes.
func (s *Sim) BrakeWear() (factor float64, stops int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.truth.Brake, s.truth.BrakeStops
}

// StopLimit is a limit on a stop, for WearCrossing: the stop's time to still (StopTruth.Time with Still,
// TruthStillSpeed when 0) must not exceed Time (s), its distance not Distance (m); a zero limit is not
// checked, and at least one must be set.
type StopLimit struct {
	Time, Distance, Still float64
}

// exceeded reports whether the true stop t breaks the limit (a stop that never gets still breaks a time
// limit).
func (l StopLimit) exceeded(t StopTruth) bool {
	return (l.Time > 0 && !(t.Time <= l.Time)) || (l.Distance > 0 && t.Distance > l.Distance)
}

// BrakeCrossing is when worn brakes first break a stop limit, by the sim's truth.
type BrakeCrossing struct {
	// Reached is false when the factor's floor still keeps the stop within the limit: the truth never
	// crosses it (Stop and Minute are then 0, Factor and Truth at the floor).
	Reached bool
	// Stop (per-stop wear) is the first stop since the wear started that breaks the limit, 1 the first;
	// under per-stop wear the k-th stop runs at factor(k).
	Stop int
	// Minute (per-minute wear) is the sim time since the wear started, in minutes, from which a stop
	// breaks the limit (the first instant whose factor does, to 1e-9 min): 0 when the unworn brake does.
	Minute float64
	// Factor and Truth are the brake factor and the true stop at the crossing.
	Factor float64
	Truth  StopTruth
}

// WearCrossing says when the wear w, starting from the brake factor base (1 normal, or weak-brake's),
// first makes the true stop from the command cmd (StoppingTruth) break the limit: at which stop (per-stop
// wear) or after how many minutes (per-minute wear). The stop's time and distance only grow as the factor
// falls, so it bisects over the stops or the minutes up to the floor; a brute-force loop agrees
// (TestWearCrossingBrute). This is the truth a monitor's report compares its flag against.
func WearCrossing(w Wear, base float64, cmd [3]float64, limit StopLimit) (BrakeCrossing, error) {
	if !(w.Rate > 0 && w.Rate <= 1) {
		return BrakeCrossing{}, fmt.Errorf("wear crossing: rate %v: needs 0 < rate <= 1 (a fraction per stop or per minute)", w.Rate)
	}
	if w.Min != 0 && !(w.Min >= MinWearFloor && w.Min <= 1) {
		return BrakeCrossing{}, fmt.Errorf("wear crossing: floor %v: needs %v <= floor <= 1", w.Min, MinWearFloor)
	}
	if !(base > 0 && base <= 1) {
		return BrakeCrossing{}, fmt.Errorf("wear crossing: base factor %v: needs 0 < factor <= 1 (1 = normal braking)", base)
	}
	if !(limit.Time >= 0 && limit.Distance >= 0) || (limit.Time == 0 && limit.Distance == 0) {
		return BrakeCrossing{}, errors.New("wear crossing: the limit needs a positive Time (s) or Distance (m), and none negative")
	}
	at := func(f float64) (StopTruth, bool, error) {
		t, err := StoppingTruth(cmd, f, limit.Still)
		return t, limit.exceeded(t), err
	}
	floor := math.Min(w.floor(), base)
	ft, over, err := at(floor)
	if err != nil {
		return BrakeCrossing{}, fmt.Errorf("wear crossing: %w", err)
	}
	if !over {
		return BrakeCrossing{Factor: floor, Truth: ft}, nil
	}
	// Reached: the first n (stops or minutes) in [lo, hi] whose factor breaks the limit; hi breaks it.
	n := math.Log(base/floor) / math.Log(1+w.Rate) // where the factor reaches the floor
	var c BrakeCrossing
	if !w.PerMin {
		lo, hi := 1, int(math.Ceil(n))+1 // the factor is at the floor at hi
		for lo < hi {
			mid := lo + (hi-lo)/2
			if _, over, _ := at(w.Factor(base, mid, 0)); over {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		c.Stop, c.Factor = lo, w.Factor(base, lo, 0)
	} else {
		minutes := func(m float64) time.Duration { return time.Duration(m * float64(time.Minute)) }
		if _, over, _ := at(base); over {
			c.Factor = base
		} else {
			lo, hi := 0.0, n+1e-6 // lo within the limit, hi beyond it (at the floor)
			for hi-lo > 1e-9 {
				mid := (lo + hi) / 2
				if _, over, _ := at(w.Factor(base, 0, minutes(mid))); over {
					hi = mid
				} else {
					lo = mid
				}
			}
			c.Minute, c.Factor = hi, w.Factor(base, 0, minutes(hi))
		}
	}
	c.Reached = true
	c.Truth, _, _ = at(c.Factor)
	return c, nil
}
