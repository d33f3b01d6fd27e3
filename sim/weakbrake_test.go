package sim

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWeakBrakeParse: weak-brake takes a fraction in (0, 1]; anything else is refused with a message that
// quotes the input and says what a valid factor is.
func TestWeakBrakeParse(t *testing.T) {
	for in, want := range map[string]float64{"weak-brake=0.5": 0.5, "weak-brake=1": 1, "weak-brake=0.05": 0.05, "weak-brake=1e-1": 0.1} {
		f, err := ParseFault(in)
		if err != nil || f.Kind != FaultWeakBrake || f.Factor != want {
			t.Errorf("ParseFault(%q) = %+v, %v; want factor %v", in, f, err, want)
		}
	}
	for _, in := range []string{"weak-brake", "weak-brake=", "weak-brake=0", "weak-brake=-0.5", "weak-brake=1.5",
		"weak-brake=NaN", "weak-brake=Inf", "weak-brake=half", "weak-brake=50%"} {
		f, err := ParseFault(in)
		if err == nil {
			t.Errorf("ParseFault(%q) = %+v, want an error", in, f)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, in) || !strings.Contains(msg, "0 < FACTOR <= 1") {
			t.Errorf("ParseFault(%q): %v; want the input quoted and the valid range", in, err)
		}
	}
	sp, _ := FaultSpecFor(FaultWeakBrake)
	if _, err := sp.Request([]string{"2"}, ""); err == nil || !strings.Contains(err.Error(), "0 < FACTOR <= 1") {
		t.Errorf("rosorin-sim weak-brake 2: %v", err)
	}
}

// pureCore is a core on its own in virtual time (no ptys, no goroutine), as TestBoardResetPure drives it:
// run advances whole physics steps, motor obeys a body command at the current instant (on a step).
type pureCore struct {
	t   *testing.T
	s   *Sim
	c   *core
	now time.Time
}

func newPureCore(t *testing.T, kind WorldKind) *pureCore {
	s := &Sim{kind: kind, room: DefaultRoom()}
	s.hang.init()
	now := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	return &pureCore{t: t, s: s, c: newCore(s, now), now: now}
}

// step advances one physics step (1/IMURateHz) and returns the body velocity and the wheels after it.
func (p *pureCore) step() {
	p.now = p.now.Add(time.Second / IMURateHz)
	p.c.tick(p.now)
}

func (p *pureCore) run(d time.Duration) {
	for end := p.now.Add(d); p.now.Before(end); {
		p.step()
	}
}

func (p *pureCore) motor(v [3]float64) {
	p.c.motorFrame(motorCmd{p.now, motorOf(p.t, wheelFrame(p.t, v))})
}

func (p *pureCore) fault(s string) {
	f, err := ParseFault(s)
	if err != nil {
		p.t.Fatal(err)
	}
	p.c.applyFault(f, p.now)
}

// coreStop is what the pure core measures for one stop: driving at cmd for 4 s (the wheels at their
// target within 1e-7), the stop frame on a step, then stepping until every wheel is at zero: the travel
// from the stop, the time the body speed first falls below still and below frac of its steady speed, and
// when the wheels are at rest.
type coreStop struct {
	travel, still, frac, rest float64
}

func measureCoreStop(t *testing.T, kind WorldKind, cmd [3]float64, brake string, still, frac float64) coreStop {
	p := newPureCore(t, kind)
	if brake != "" {
		p.fault(brake)
	}
	p.motor(cmd)
	p.run(4 * time.Second)
	// On the stand the body never moves: the speed judged is the one the wheels would give on the floor.
	speed := func() float64 { return speedOf(FloorVelocity(BodyVelocity(p.c.phys.Wheel))) }
	v0 := speed()
	p0 := p.c.phys.Pose
	p.motor([3]float64{})
	if p.c.phys.Target != ([4]float64{}) {
		t.Fatalf("the stop frame did not zero the targets: %v", p.c.phys.Target)
	}
	m := coreStop{still: math.NaN(), frac: math.NaN(), rest: math.NaN()}
	h := (time.Second / IMURateHz).Seconds()
	for n := 1; n <= 60*IMURateHz; n++ {
		p.step()
		v := speed()
		if math.IsNaN(m.still) && v < still {
			m.still = float64(n) * h
		}
		if math.IsNaN(m.frac) && v < frac*v0 {
			m.frac = float64(n) * h
		}
		if p.c.phys.Wheel == ([4]float64{}) {
			m.rest = float64(n) * h
			break
		}
	}
	m.travel = math.Hypot(p.c.phys.Pose[0]-p0[0], p.c.phys.Pose[1]-p0[1])
	return m
}

// TestWeakBrakePure: weak-brake=0.5 on the core alone, in virtual time. On the floor a stop takes the body
// to a tenth of its speed in about twice the time (the run-down constant doubled), on the stand the wheels
// likewise; spin-up is unchanged; the truth lists the fault; a board-reset does not heal it; 1 is off.
func TestWeakBrakePure(t *testing.T) {
	fwd := [3]float64{0.2, 0, 0}
	for _, kind := range []WorldKind{Floor, Stand} {
		normal := measureCoreStop(t, kind, fwd, "", TruthStillSpeed, 0.1)
		weak := measureCoreStop(t, kind, fwd, "weak-brake=0.5", TruthStillSpeed, 0.1)
		off := measureCoreStop(t, kind, fwd, "weak-brake=1", TruthStillSpeed, 0.1)
		t.Logf("%s: to 10%% of the speed %.3f s normal, %.3f s at weak-brake=0.5 (x%.2f); rest %.3f / %.3f s",
			kind, normal.frac, weak.frac, weak.frac/normal.frac, normal.rest, weak.rest)
		if r := weak.frac / normal.frac; r < 1.9 || r > 2.1 {
			t.Errorf("%s: weak-brake=0.5 slows to 10%% in %.3f s against %.3f s: x%.2f, want about 2", kind, weak.frac, normal.frac, r)
		}
		if off != normal {
			t.Errorf("%s: weak-brake=1 %+v differs from no fault %+v", kind, off, normal)
		}
	}
	// Spin-up is untouched: the same wheel speeds step by step.
	a, b := newPureCore(t, Floor), newPureCore(t, Floor)
	b.fault("weak-brake=0.25")
	a.motor([3]float64{0.35, 0, 0})
	b.motor([3]float64{0.35, 0, 0})
	for range 100 {
		a.step()
		b.step()
		if a.c.phys.Wheel != b.c.phys.Wheel {
			t.Fatalf("spin-up differs under weak-brake: %v against %v", b.c.phys.Wheel, a.c.phys.Wheel)
		}
	}
	// The truth lists it; a board reset (firmware) leaves the brakes worn; weak-brake=1 clears it.
	faults := func() []string { b.c.publish(b.now); return b.s.Truth().Faults }
	if f := faults(); !slices.Contains(f, "weak-brake=0.25") {
		t.Errorf("faults %v, want weak-brake=0.25", f)
	}
	b.fault("board-reset=100ms")
	if b.c.phys.Brake != 0.25 {
		t.Errorf("after a board reset the brake factor is %v, want 0.25", b.c.phys.Brake)
	}
	b.fault("weak-brake=1")
	if f := faults(); slices.ContainsFunc(f, func(s string) bool { return strings.HasPrefix(s, "weak-brake") }) {
		t.Errorf("faults after weak-brake=1: %v", f)
	}
}

// TestStoppingTruthMatchesCore: StoppingTruth against the pure core on the floor at 0.1, 0.2, 0.35 m/s
// forward and 0.2 m/s left, normal and at weak-brake=0.5: the distance agrees within 1 mm (in fact to a
// micrometre: the same steps), the still and rest times to the step; the distance is the closed form of the
// model's discrete run-down, and weak-brake=0.5 multiplies it by that form's ratio (2.04).
func TestStoppingTruthMatchesCore(t *testing.T) {
	h := (time.Second / IMURateHz).Seconds()
	closed := func(speed, brake float64) float64 { // Speed x h x q/(1-q)
		q := math.Exp(-h * brake / FloorRunDownTau)
		return speed * h * q / (1 - q)
	}
	cases := []struct {
		name string
		cmd  [3]float64
	}{
		{"fwd 0.1", [3]float64{0.1, 0, 0}},
		{"fwd 0.2", [3]float64{0.2, 0, 0}},
		{"fwd 0.35", [3]float64{0.35, 0, 0}},
		{"left 0.2", [3]float64{0, 0.2, 0}},
	}
	for _, tc := range cases {
		var dist [2]float64
		for i, brake := range []float64{1, 0.5} {
			fault := ""
			if brake != 1 {
				fault = "weak-brake=0.5"
			}
			tr, err := StoppingTruth(tc.cmd, brake, 0)
			if err != nil {
				t.Fatal(err)
			}
			m := measureCoreStop(t, Floor, tc.cmd, fault, TruthStillSpeed, 0.1)
			t.Logf("%-8s brake %.1f: truth %.1f mm, still %.3f s, rest %.3f s (speed %.3f m/s); core %.1f mm, still %.3f s, rest %.3f s; closed form %.1f mm",
				tc.name, brake, tr.Distance*1e3, tr.Time, tr.Rest, tr.Speed, m.travel*1e3, m.still, m.rest, closed(tr.Speed, brake)*1e3)
			if math.Abs(tr.Distance-m.travel) > 0.001 {
				t.Errorf("%s brake %v: truth %.4f m, the core travelled %.4f m", tc.name, brake, tr.Distance, m.travel)
			}
			if math.Abs(tr.Time-m.still) > 1e-9 || math.Abs(tr.Rest-m.rest) > 1e-9 {
				t.Errorf("%s brake %v: truth still %.4f s rest %.4f s, core %.4f s %.4f s", tc.name, brake, tr.Time, tr.Rest, m.still, m.rest)
			}
			if c := closed(tr.Speed, brake); math.Abs(tr.Distance-c) > 1e-6 {
				t.Errorf("%s brake %v: truth %.6f m, the model's closed form %.6f m", tc.name, brake, tr.Distance, c)
			}
			dist[i] = tr.Distance
		}
		want := closed(1, 0.5) / closed(1, 1)
		if r := dist[1] / dist[0]; math.Abs(r-want) > 1e-3 {
			t.Errorf("%s: weak-brake=0.5 multiplies the distance by %.4f, the model %.4f", tc.name, r, want)
		}
	}
	// The strafe's body speed carries the floor loss; the travel is along +y only.
	if tr, _ := StoppingTruth([3]float64{0, 0.2, 0}, 1, 0); math.Abs(tr.Speed-0.2*FloorScaleY) > 1e-9 ||
		math.Abs(tr.Travel[0]) > 1e-9 || tr.Travel[1] <= 0 {
		t.Errorf("strafe left: %+v", tr)
	}
}

// TestStoppingTruthBad: inputs the truth cannot answer are refused, saying why.
func TestStoppingTruthBad(t *testing.T) {
	for _, c := range []struct {
		cmd          [3]float64
		brake, still float64
		want         string
	}{
		{[3]float64{0.2, 0, 0}, 0, 0, "0 < factor <= 1"},
		{[3]float64{0.2, 0, 0}, 1.5, 0, "0 < factor <= 1"},
		{[3]float64{0.2, 0, 0}, math.NaN(), 0, "0 < factor <= 1"},
		{[3]float64{0.2, 0, 0}, 1, -1, "positive speed"},
		{[3]float64{}, 1, 0, "already still"},
		{[3]float64{2, 0, 0}, 1, 0, "beyond the board's"},
		{[3]float64{math.NaN(), 0, 0}, 1, 0, "not a number"},
	} {
		if _, err := StoppingTruth(c.cmd, c.brake, c.still); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("StoppingTruth(%v, %v, %v): %v; want %q", c.cmd, c.brake, c.still, err, c.want)
		}
	}
}
