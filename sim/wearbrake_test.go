package sim

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWearBrakeParse: wear-brake takes RATE%/stop or RATE%/min with an optional floor, 0 or off for off;
// anything else is refused with a message that quotes the input and says what a valid value is.
func TestWearBrakeParse(t *testing.T) {
	for in, want := range map[string]Wear{
		"wear-brake=5%/stop":             {Rate: 0.05},
		"wear-brake=2%/min":              {Rate: 0.02, PerMin: true},
		"wear-brake=2.5%/min,min=0.2":    {Rate: 0.025, PerMin: true, Min: 0.2},
		"wear-brake=5%/stop,min=0.1":     {Rate: 0.05}, // the default floor spelt out: the same law
		"wear-brake=100%/stop,min=0.05":  {Rate: 1, Min: 0.05},
		"wear-brake= 5 %/stop , min=1 ":  {Rate: 0.05, Min: 1},
		"wear-brake=0":                   {},
		"wear-brake=off":                 {},
		"wear-brake=5%/stop@3s":          {Rate: 0.05},
		"WEAR-BRAKE=1e-1%/stop,min=0.99": {Rate: 0.001, Min: 0.99},
	} {
		f, err := ParseFault(in)
		if err != nil || f.Kind != FaultWearBrake || math.Abs(f.Wear.Rate-want.Rate) > 1e-15 || f.Wear.PerMin != want.PerMin || f.Wear.Min != want.Min {
			t.Errorf("ParseFault(%q) = %+v, %v; want wear %+v", in, f, err, want)
		}
	}
	for _, in := range []string{"wear-brake", "wear-brake=", "wear-brake=5", "wear-brake=5%", "wear-brake=5%/hour",
		"wear-brake=0%/stop", "wear-brake=-5%/stop", "wear-brake=101%/stop", "wear-brake=NaN%/stop", "wear-brake=x%/min",
		"wear-brake=5%/stop,min=0", "wear-brake=5%/stop,min=0.01", "wear-brake=5%/stop,min=1.5", "wear-brake=5%/stop,floor=0.2",
		"wear-brake=5%/stop,min=", "wear-brake=0.05/stop"} {
		f, err := ParseFault(in)
		if err == nil {
			t.Errorf("ParseFault(%q) = %+v, want an error", in, f)
			continue
		}
		_, val, _ := strings.Cut(in, "=")
		if msg := err.Error(); !strings.Contains(msg, in) || !strings.Contains(msg, "RATE%/stop or RATE%/min") ||
			(val != "" && !strings.Contains(msg, `"`+val+`" is not a wear rate`)) {
			t.Errorf("ParseFault(%q): %v; want the input quoted and the valid forms", in, err)
		}
	}
	sp, _ := FaultSpecFor(FaultWearBrake)
	if req, err := sp.Request([]string{"2%/min,min=0.2"}, ""); err != nil || req != "wear-brake=2%/min,min=0.2" {
		t.Errorf("rosorin-sim wear-brake 2%%/min,min=0.2: %q, %v", req, err)
	}
	if _, err := sp.Request([]string{"5%"}, ""); err == nil || !strings.Contains(err.Error(), "RATE%/stop") {
		t.Errorf("rosorin-sim wear-brake 5%%: %v", err)
	}
	for _, w := range []Wear{{Rate: 0.05}, {Rate: 0.02, PerMin: true, Min: 0.2}, {Rate: 0.125, Min: 0.05}, {}} {
		if got, err := ParseWear(w.String()); err != nil || got != w {
			t.Errorf("ParseWear(%q) = %+v, %v; want %+v back", w.String(), got, err, w)
		}
	}
}

// TestWearLaw: the factor after k stops is base x (1+RATE)^-k, after t minutes base x (1+RATE)^-t, never
// below the floor (nor raised to it from a weaker base); off it is the base.
func TestWearLaw(t *testing.T) {
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	stop := Wear{Rate: 0.05}
	for k, want := range map[int]float64{0: 1, 1: 1 / 1.05, 10: 0.6139132535, 20: 0.3768894829, 47: math.Pow(1.05, -47), 48: DefaultWearMin, 1000: DefaultWearMin} {
		if got := stop.Factor(1, k, time.Hour); math.Abs(got-want) > 1e-9 {
			t.Errorf("5%%/stop after %d stops: factor %.10f, want %.10f", k, got, want)
		}
	}
	if got := stop.Factor(0.5, 3, 0); !near(got, 0.5/math.Pow(1.05, 3)) {
		t.Errorf("5%%/stop from weak-brake=0.5 after 3 stops: %v", got)
	}
	if got := stop.Factor(0.05, 3, 0); got != 0.05 {
		t.Errorf("from 0.05, below the floor 0.1: %v, want 0.05 kept", got)
	}
	if got := stop.Factor(0, 1, 0); !near(got, 1/1.05) {
		t.Errorf("the physics' 0 (normal) as base: %v", got)
	}
	perMin := Wear{Rate: 0.02, PerMin: true, Min: 0.2}
	for d, want := range map[time.Duration]float64{0: 1, 30 * time.Second: math.Pow(1.02, -0.5), time.Minute: 1 / 1.02,
		30 * time.Minute: math.Pow(1.02, -30), 90 * time.Minute: 0.2} {
		if got := perMin.Factor(1, 99, d); !near(got, want) {
			t.Errorf("2%%/min after %v: factor %v, want %v (stops do not count)", d, got, want)
		}
	}
	if got := (Wear{}).Factor(0.5, 10, time.Hour); got != 0.5 {
		t.Errorf("off: %v, want the base", got)
	}
	// In the model's continuous time the stop lengthens by exactly RATE per stop; on the sim's step the
	// truth's distance ratio stays within 0.3 % of it (the step's q/(1-q) form: x1.0518 at the first stop).
	cmd := [3]float64{0.35, 0, 0}
	prev, _ := StoppingTruth(cmd, 1, 0)
	for k := 1; k <= 20; k++ {
		tr, err := StoppingTruth(cmd, stop.Factor(1, k, 0), 0)
		if err != nil {
			t.Fatal(err)
		}
		if r := tr.Distance / prev.Distance; math.Abs(r-1.05) > 3e-3 {
			t.Errorf("stop %d: distance x%.5f over stop %d, want about 1.05", k, r, k-1)
		}
		prev = tr
	}
}

// stopOnce drives at cmd for 4 s, stops on a step and steps until every wheel is at rest, then sends the
// robot home: the travel from the stop, the time the speed first falls below TruthStillSpeed and the rest
// time, as measureCoreStop measures them, on one core whose faults persist.
func (p *pureCore) stopOnce(cmd [3]float64) coreStop {
	p.motor(cmd)
	p.run(4 * time.Second)
	p0 := p.c.phys.Pose
	p.motor([3]float64{})
	m := coreStop{still: math.NaN(), frac: math.NaN(), rest: math.NaN()}
	h := (time.Second / IMURateHz).Seconds()
	for n := 1; n <= 60*IMURateHz; n++ {
		p.step()
		if math.IsNaN(m.still) && speedOf(p.c.phys.Vel) < TruthStillSpeed {
			m.still = float64(n) * h
		}
		if p.c.phys.Wheel == ([4]float64{}) {
			m.rest = float64(n) * h
			break
		}
	}
	m.travel = math.Hypot(p.c.phys.Pose[0]-p0[0], p.c.phys.Pose[1]-p0[1])
	p.fault("home")
	return m
}

// wear is the core's truth as a test or tool sees it (published, then Sim.BrakeWear).
func (p *pureCore) wear() (float64, int) {
	p.c.publish(p.now)
	return p.s.BrakeWear()
}

// TestWearBrakePure: wear-brake=5%/stop on the floor core in virtual time. The k-th stop under the fault
// runs at 1.05^-k and is the true stop at that factor (StoppingTruth) to TestStoppingTruthMatchesCore's
// tolerances: the travel within 1 mm, the still and rest times to the step; Sim.BrakeWear says the factor
// and the stops; the truth lists the fault.
func TestWearBrakePure(t *testing.T) {
	cmd := [3]float64{0.35, 0, 0}
	p := newPureCore(t, Floor)
	if f, n := p.wear(); f != 1 || n != 0 {
		t.Errorf("before the fault: BrakeWear %v, %d; want 1, 0", f, n)
	}
	p.fault("wear-brake=5%/stop")
	stops := 8
	if testing.Short() {
		stops = 4
	}
	for k := 1; k <= stops; k++ {
		m := p.stopOnce(cmd)
		want := math.Pow(1.05, -float64(k))
		f, n := p.wear()
		if n != k || math.Abs(f-want) > 1e-12 {
			t.Fatalf("after stop %d: BrakeWear %v, %d; want %v, %d", k, f, n, want, k)
		}
		tr, err := StoppingTruth(cmd, want, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("stop %d at factor %.4f: core %.2f mm, still %.3f s, rest %.3f s; truth %.2f mm, %.3f s, %.3f s",
			k, want, m.travel*1e3, m.still, m.rest, tr.Distance*1e3, tr.Time, tr.Rest)
		if math.Abs(m.travel-tr.Distance) > 0.001 {
			t.Errorf("stop %d: the core travelled %.4f m, the truth at factor %.4f %.4f m", k, m.travel, want, tr.Distance)
		}
		if math.Abs(m.still-tr.Time) > 1e-9 || math.Abs(m.rest-tr.Rest) > 1e-9 {
			t.Errorf("stop %d: core still %.4f s rest %.4f s, truth %.4f s %.4f s", k, m.still, m.rest, tr.Time, tr.Rest)
		}
	}
	p.c.publish(p.now)
	if f := p.s.Truth().Faults; !slices.Contains(f, "wear-brake=5%/stop") {
		t.Errorf("faults %v, want wear-brake=5%%/stop", f)
	}

	// The same value again (a proof's fault at each trigger) keeps wearing; zero frames on still wheels and
	// a stop the board ignores (flaky-stop) are no stops; a board reset of turning wheels is one, and the
	// wear survives it.
	p.fault("wear-brake=5%/stop,min=0.1")
	p.motor([3]float64{})
	if _, n := p.wear(); n != stops {
		t.Errorf("the same law again and a zero frame at rest: %d stops, want %d", n, stops)
	}
	p.fault("flaky-stop=1")
	p.motor(cmd)
	p.step()
	p.motor([3]float64{})
	if _, n := p.wear(); n != stops {
		t.Errorf("a stop flaky-stop ignored counted: %d stops, want %d", n, stops)
	}
	p.fault("flaky-stop=0")
	p.fault("board-reset=100ms")
	f, n := p.wear()
	if want := math.Pow(1.05, -float64(stops+1)); n != stops+1 || math.Abs(f-want) > 1e-12 {
		t.Errorf("after a board reset of turning wheels: %v, %d; want %v, %d", f, n, want, stops+1)
	}
	p.run(time.Second)

	// 0 stops the wear and keeps the factor; weak-brake=1 puts new brakes in.
	p.fault("wear-brake=0")
	p.stopOnce(cmd)
	if g, m := p.wear(); g != f || m != n {
		t.Errorf("after wear-brake=0 and a stop: %v, %d; want %v, %d kept", g, m, f, n)
	}
	p.c.publish(p.now)
	if fl := p.s.Truth().Faults; slices.ContainsFunc(fl, func(s string) bool { return strings.HasPrefix(s, "wear-brake") }) {
		t.Errorf("faults after wear-brake=0: %v", fl)
	}
	p.fault("weak-brake=1")
	if g, _ := p.wear(); g != 1 {
		t.Errorf("after weak-brake=1: factor %v", g)
	}

	// weak-brake while wearing: the wear restarts from its factor.
	p.fault("wear-brake=10%/stop,min=0.3")
	p.stopOnce(cmd)
	p.fault("weak-brake=0.5")
	p.stopOnce(cmd)
	if g, m := p.wear(); m != 1 || math.Abs(g-0.5/1.1) > 1e-12 {
		t.Errorf("weak-brake=0.5 while wearing, then a stop: %v, %d; want %v, 1", g, m, 0.5/1.1)
	}
	for range 20 {
		p.stopOnce(cmd)
	}
	if g, _ := p.wear(); g != 0.3 {
		t.Errorf("after 21 stops at 10%%/stop from 0.5: %v, want the floor 0.3", g)
	}
}

// TestWearBrakePerMinute: wear-brake=20%/min wears with the sim's time, stopped or not, and not with stops;
// a stop started at t runs (to the step) at the factor of t.
func TestWearBrakePerMinute(t *testing.T) {
	p := newPureCore(t, Floor)
	start := p.now
	p.fault("wear-brake=20%/min")
	p.run(30 * time.Second)
	f, n := p.wear()
	if want := math.Pow(1.2, -p.now.Sub(start).Minutes()); n != 0 || math.Abs(f-want) > 1e-12 {
		t.Errorf("after %v at rest: %v, %d; want %v, 0", p.now.Sub(start), f, n, want)
	}
	cmd := [3]float64{0.2, 0, 0}
	m := p.stopOnce(cmd)
	f, n = p.wear()
	if want := math.Pow(1.2, -p.now.Sub(start).Minutes()); n != 1 || math.Abs(f-want) > 1e-12 {
		t.Errorf("after a stop at %v: %v, %d; want %v, 1", p.now.Sub(start), f, n, want)
	}
	// The stop ran while the factor fell by about 0.5 %: its travel lies between the truths at the factors
	// at its start and at its end.
	end := f
	begin := math.Pow(1.2, -(p.now.Sub(start) - time.Duration(m.rest*float64(time.Second))).Minutes())
	lo, _ := StoppingTruth(cmd, begin, 0)
	hi, _ := StoppingTruth(cmd, end, 0)
	t.Logf("stop at minute %.3f: %.3f mm, truth %.3f..%.3f mm", p.now.Sub(start).Minutes(), m.travel*1e3, lo.Distance*1e3, hi.Distance*1e3)
	if m.travel < lo.Distance-1e-6 || m.travel > hi.Distance+1e-6 {
		t.Errorf("travel %.6f m outside the truth's %.6f..%.6f m", m.travel, lo.Distance, hi.Distance)
	}
}

// TestWearBrakeOff: wear-brake=0 (and the fault never set) leaves every stop as it was, on both worlds.
func TestWearBrakeOff(t *testing.T) {
	fwd := [3]float64{0.2, 0, 0}
	for _, kind := range []WorldKind{Floor, Stand} {
		normal := measureCoreStop(t, kind, fwd, "", TruthStillSpeed, 0.1)
		off := measureCoreStop(t, kind, fwd, "wear-brake=0", TruthStillSpeed, 0.1)
		if off != normal {
			t.Errorf("%s: wear-brake=0 %+v differs from no fault %+v", kind, off, normal)
		}
	}
}

// TestWearCrossingBrute: WearCrossing's bisection against a loop over every stop (per stop) or over the
// minutes in steps of 0.001 min (per minute), for limits on time, on distance and on both.
func TestWearCrossingBrute(t *testing.T) {
	exceeded := func(cmd [3]float64, f float64, l StopLimit) bool {
		tr, err := StoppingTruth(cmd, f, l.Still)
		if err != nil {
			t.Fatal(err)
		}
		return l.exceeded(tr)
	}
	cases := []struct {
		w     Wear
		base  float64
		cmd   [3]float64
		limit StopLimit
	}{
		{Wear{Rate: 0.05}, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.08}},
		{Wear{Rate: 0.05}, 1, [3]float64{0.35, 0, 0}, StopLimit{Time: 0.5, Still: 0.04}},
		{Wear{Rate: 0.02}, 1, [3]float64{0.2, 0, 0}, StopLimit{Time: 1.2, Distance: 0.04}},
		{Wear{Rate: 0.1, Min: 0.3}, 0.5, [3]float64{0, 0.2, 0}, StopLimit{Distance: 0.05}},
		{Wear{Rate: 0.05}, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.01}},          // the first stop already
		{Wear{Rate: 0.05, Min: 0.5}, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.2}}, // never: the floor holds
		{Wear{Rate: 0.02, PerMin: true}, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.08}},
		{Wear{Rate: 0.02, PerMin: true, Min: 0.2}, 1, [3]float64{0.2, 0, 0}, StopLimit{Time: 0.5, Still: 0.04}},
		{Wear{Rate: 0.5, PerMin: true}, 0.8, [3]float64{0.1, 0, 0.5}, StopLimit{Time: 1.5}},
		{Wear{Rate: 0.02, PerMin: true}, 1, [3]float64{0.35, 0, 0}, StopLimit{Distance: 0.01}},
	}
	for _, c := range cases {
		got, err := WearCrossing(c.w, c.base, c.cmd, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		floor := math.Min(c.w.floor(), c.base)
		if !c.w.PerMin {
			want := 0
			for k := 1; ; k++ {
				f := c.w.Factor(c.base, k, 0)
				if exceeded(c.cmd, f, c.limit) {
					want = k
					break
				}
				if f == floor {
					break
				}
			}
			t.Logf("%s from %v, %v, %+v: stop %d (factor %.4f, %.1f mm, %.3f s); brute force %d", c.w, c.base, c.cmd, c.limit,
				got.Stop, got.Factor, got.Truth.Distance*1e3, got.Truth.Time, want)
			if got.Stop != want || got.Reached != (want > 0) {
				t.Errorf("%s %+v: crossing %+v, the loop says stop %d", c.w, c.limit, got, want)
			}
			continue
		}
		want := -1.0
		for m := 0.0; m < 1000; m += 0.001 {
			f := c.w.Factor(c.base, 0, time.Duration(m*float64(time.Minute)))
			if exceeded(c.cmd, f, c.limit) {
				want = m
				break
			}
			if f == floor {
				break
			}
		}
		t.Logf("%s from %v, %v, %+v: minute %.4f (factor %.4f, %.1f mm, %.3f s); brute force %.3f", c.w, c.base, c.cmd, c.limit,
			got.Minute, got.Factor, got.Truth.Distance*1e3, got.Truth.Time, want)
		if got.Reached != (want >= 0) || (want >= 0 && (got.Minute > want+1e-9 || got.Minute < want-0.001-1e-9)) {
			t.Errorf("%s %+v: crossing %+v, the loop says minute %.3f", c.w, c.limit, got, want)
		}
		if got.Reached && !c.limit.exceeded(got.Truth) {
			t.Errorf("%s %+v: the truth at the crossing %+v is within the limit", c.w, c.limit, got.Truth)
		}
	}
	for _, bad := range []struct {
		w    Wear
		base float64
		l    StopLimit
		want string
	}{
		{Wear{}, 1, StopLimit{Distance: 0.1}, "rate"},
		{Wear{Rate: 0.05, Min: 0.01}, 1, StopLimit{Distance: 0.1}, "floor"},
		{Wear{Rate: 0.05}, 0, StopLimit{Distance: 0.1}, "base factor"},
		{Wear{Rate: 0.05}, 1, StopLimit{}, "limit"},
		{Wear{Rate: 0.05}, 1, StopLimit{Time: -1, Distance: 0.1}, "limit"},
	} {
		if _, err := WearCrossing(bad.w, bad.base, [3]float64{0.2, 0, 0}, bad.l); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("WearCrossing(%+v, %v, %+v): %v; want %q", bad.w, bad.base, bad.l, err, bad.want)
		}
	}
}

// TestWearFigures logs the figures of docs/sim.md: the true stop at 0.35 m/s after 0, 10, 20 stops at
// 5 %/stop, and when a 60 mm / 80 mm / 0.5 s (at the floor judge's 0.04 m/s) limit is crossed.
func TestWearFigures(t *testing.T) {
	cmd := [3]float64{0.35, 0, 0}
	w := Wear{Rate: 0.05}
	for _, k := range []int{0, 10, 20} {
		tr, _ := StoppingTruth(cmd, w.Factor(1, k, 0), 0)
		j, _ := StoppingTruth(cmd, w.Factor(1, k, 0), 0.04)
		t.Logf("after %2d stops: factor %.4f, %.1f mm, still after %.3f s (%.3f s at 0.04 m/s)", k, w.Factor(1, k, 0), tr.Distance*1e3, tr.Time, j.Time)
	}
	for _, l := range []StopLimit{{Distance: 0.06}, {Distance: 0.08}, {Time: 0.5, Still: 0.04}} {
		c, _ := WearCrossing(w, 1, cmd, l)
		m, _ := WearCrossing(Wear{Rate: 0.02, PerMin: true}, 1, cmd, l)
		t.Logf("limit %+v: 5%%/stop crosses at stop %d (%.1f mm, %.3f s); 2%%/min at minute %.2f", l, c.Stop, c.Truth.Distance*1e3, c.Truth.Time, m.Minute)
	}
}
