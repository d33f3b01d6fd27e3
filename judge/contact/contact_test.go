package contact

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/scanmatch"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// scenario drives a monitor through a simulated run: a requested command ramped as the driver's gate ramps
// it (0.5 m/s², 2 rad/s²), wheels following with the sim's 0.22 s lag, the body moving at Slip of the wheels
// (1 = free, 0 = held) from StallAt on, odometry at 10 Hz with 1.5 mm of noise, the gyro at 110 Hz.
type scenario struct {
	name    string
	req     func(t float64) kinematics.Twist // requested command
	slip    float64                          // body motion / wheel motion before StallAt (1 = free)
	stallAt float64                          // from here the body is held (NaN: never)
	// degenerateAlong, when set, makes the odometry degenerate along this base-frame direction.
	degenerateAlong *[2]float64
	odoUntil        float64 // no odometry after this (NaN: always)
	gyroNone        bool
	dur             float64
}

type outcome struct {
	contacts []Event
	final    Status
	whys     map[string]bool
}

func (sc scenario) run(t *testing.T, cfg Config, seed uint64) outcome {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	const h = 0.002
	var gated, vel kinematics.Twist
	var pose scanmatch.Pose2
	out := outcome{whys: map[string]bool{}}
	slip := sc.slip
	if slip == 0 {
		slip = 1
	}
	for k := 0; float64(k)*h <= sc.dur; k++ {
		ts := float64(k) * h
		r := sc.req(ts)
		gated.VX = rampTo(gated.VX, r.VX, 0.5*h)
		gated.VY = rampTo(gated.VY, r.VY, 0.5*h)
		gated.WZ = rampTo(gated.WZ, r.WZ, 2*h)
		a := 1 - math.Exp(-h/0.22)
		s := slip
		if !math.IsNaN(sc.stallAt) && ts >= sc.stallAt {
			s = 0
		}
		vel.VX += (gated.VX*s - vel.VX) * a
		vel.VY += (gated.VY*s - vel.VY) * a
		vel.WZ += (gated.WZ*s - vel.WZ) * a
		if s == 0 {
			vel = kinematics.Twist{}
		}
		pose = pose.Compose(scanmatch.Twist{Vx: vel.VX, Vy: vel.VY, W: vel.WZ}.Exp(h))
		if k%10 == 0 { // 50 Hz control tick
			m.Command(at(ts), gated)
			m.Tick(at(ts))
			out.whys[m.Status().Why] = true
		}
		if k%4 == 0 && !sc.gyroNone { // ~110 Hz gyro (125 here)
			m.Gyro(at(ts), vel.WZ+rng.NormFloat64()*0.003)
		}
		if k%50 == 25 && (math.IsNaN(sc.odoUntil) || ts < sc.odoUntil) { // 10 Hz odometry, mid-sweep times
			e := scanmatch.Estimate{Pose: scanmatch.Pose2{X: pose.X + rng.NormFloat64()*0.0015, Y: pose.Y + rng.NormFloat64()*0.0015, Yaw: pose.Yaw}}
			if d := sc.degenerateAlong; d != nil {
				e.Degenerate, e.Weak = true, [3]float64{d[0], d[1], 0}
			}
			if dec := m.Odometry(Odo{T: at(ts), E: e}); dec.Contact {
				out.contacts = append(out.contacts, dec.Event)
			}
			out.whys[m.Status().Why] = true
		}
	}
	out.final = m.Status()
	return out
}

func rampTo(cur, target, step float64) float64 {
	switch {
	case target == 0 || math.Abs(target) < math.Abs(cur) || target*cur < 0:
		return target // stops are immediate (the gate's rule)
	case target > cur:
		return math.Min(cur+step, target)
	default:
		return math.Max(cur-step, target)
	}
}

func const_(v kinematics.Twist) func(float64) kinematics.Twist {
	return func(float64) kinematics.Twist { return v }
}

// startAt commands v from `from` seconds on.
func startAt(from float64, v kinematics.Twist) func(float64) kinematics.Twist {
	return func(t float64) kinematics.Twist {
		if t < from {
			return kinematics.Twist{}
		}
		return v
	}
}

var nan = math.NaN()

func TestFreeDrivingNeverTrips(t *testing.T) {
	// Negative controls: motion present along every direction the robot drives, including the floor's
	// losses (strafe 0.765) and a rug at 30 % of the command: no contact.
	for _, sc := range []scenario{
		{name: "fwd 0.1", req: const_(kinematics.Twist{VX: 0.1})},
		{name: "fwd 0.2", req: const_(kinematics.Twist{VX: 0.2})},
		{name: "fwd 0.35", req: const_(kinematics.Twist{VX: 0.35})},
		{name: "back 0.2", req: const_(kinematics.Twist{VX: -0.2})},
		{name: "strafe left 0.2 (floor loss 0.765)", req: const_(kinematics.Twist{VY: 0.2}), slip: 0.765},
		{name: "strafe right 0.2", req: const_(kinematics.Twist{VY: -0.2}), slip: 0.765},
		{name: "diagonal", req: const_(kinematics.Twist{VX: 0.15, VY: 0.15})},
		{name: "turn 0.5", req: const_(kinematics.Twist{WZ: 0.5})},
		{name: "turn -1.0", req: const_(kinematics.Twist{WZ: -1.0})},
		{name: "arc fwd 0.2 turning 0.5", req: const_(kinematics.Twist{VX: 0.2, WZ: 0.5})},
		{name: "rug: 30 % of the command", req: const_(kinematics.Twist{VX: 0.2}), slip: 0.3},
		{name: "stop and go", req: func(t float64) kinematics.Twist {
			if math.Mod(t, 2) < 1.2 {
				return kinematics.Twist{VX: 0.2}
			}
			return kinematics.Twist{}
		}},
		{name: "reversing", req: func(t float64) kinematics.Twist {
			if math.Mod(t, 3) < 1.5 {
				return kinematics.Twist{VX: 0.2}
			}
			return kinematics.Twist{VX: -0.2}
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			sc.stallAt, sc.odoUntil, sc.dur = nan, nan, 20
			for seed := uint64(1); seed <= 5; seed++ {
				o := sc.run(t, DefaultConfig(), seed)
				if len(o.contacts) > 0 {
					t.Fatalf("seed %d: false contact: %s at %.2f s", seed, o.contacts[0].Reason, o.contacts[0].At.Sub(t0).Seconds())
				}
				if !o.whys["judging"] {
					t.Fatalf("seed %d: never judged (%v): a negative control that judges nothing proves nothing", seed, o.whys)
				}
			}
		})
	}
}

func TestStallTrips(t *testing.T) {
	// The stand (held from the start) and a stall under way; the expected trip time follows from the
	// constants: a held start trips at the first estimate >= ramp to v_min + LAG + SETTLE, plus HOLD.
	cases := []struct {
		sc       scenario
		from, to float64 // expected contact time (s)
		turn     bool
		reason   string
	}{
		// cmd reaches 0.08 at 0.16 s; settled at 0.16+0.2+0.5 = 0.86; first estimate 0.95; + 0.3 = 1.25.
		{sc: scenario{name: "stand fwd 0.2", req: const_(kinematics.Twist{VX: 0.2}), stallAt: 0}, from: 1.249, to: 1.251,
			reason: "contact: commanded 0.20 m/s, measured "},
		{sc: scenario{name: "stand strafe 0.2", req: const_(kinematics.Twist{VY: 0.2}), stallAt: 0}, from: 1.249, to: 1.251},
		{sc: scenario{name: "stand back 0.35", req: const_(kinematics.Twist{VX: -0.35}), stallAt: 0}, from: 1.249, to: 1.251},
		// wz reaches 0.3 at 0.15 s: settled 0.85, first estimate 0.85 (+tolerance) or 0.95.
		{sc: scenario{name: "stand turn 1.0", req: const_(kinematics.Twist{WZ: 1.0}), stallAt: 0}, from: 1.149, to: 1.251, turn: true,
			reason: "rad/s"},
		// Held after 3 s of free driving: the window (0.3 s) must empty of motion, then HOLD.
		{sc: scenario{name: "held at 3 s fwd 0.1", req: const_(kinematics.Twist{VX: 0.1}), stallAt: 3}, from: 3.3, to: 3.75},
		{sc: scenario{name: "held at 3 s fwd 0.2", req: const_(kinematics.Twist{VX: 0.2}), stallAt: 3}, from: 3.3, to: 3.75},
		{sc: scenario{name: "held at 3 s fwd 0.35", req: const_(kinematics.Twist{VX: 0.35}), stallAt: 3}, from: 3.3, to: 3.75},
		{sc: scenario{name: "held at 3 s strafe right", req: const_(kinematics.Twist{VY: -0.2}), slip: 0.765, stallAt: 3}, from: 3.3, to: 3.75},
		{sc: scenario{name: "held at 3 s turning", req: const_(kinematics.Twist{WZ: 0.5}), stallAt: 3}, from: 3.3, to: 3.75, turn: true},
		// Degenerate along x (a corridor): a strafe across it is still judged.
		{sc: scenario{name: "corridor strafe held", req: const_(kinematics.Twist{VY: 0.2}), stallAt: 0, degenerateAlong: &[2]float64{1, 0}}, from: 1.249, to: 1.251},
		// Rug ratio: 10 % of the command is a stall.
		{sc: scenario{name: "10 % of the command", req: const_(kinematics.Twist{VX: 0.2}), slip: 0.1}, from: 1.249, to: 1.251},
		// Started late: the event's CmdStart is the wheels' start.
		{sc: scenario{name: "stand, wheels started at 2 s", req: startAt(2, kinematics.Twist{VX: 0.2}), stallAt: 0}, from: 3.249, to: 3.251},
	}
	for _, c := range cases {
		t.Run(c.sc.name, func(t *testing.T) {
			sc := c.sc
			sc.odoUntil, sc.dur = nan, 6
			o := sc.run(t, DefaultConfig(), 7)
			if len(o.contacts) != 1 {
				t.Fatalf("want one contact, got %d (%v)", len(o.contacts), o.whys)
			}
			e := o.contacts[0]
			ts := e.At.Sub(t0).Seconds()
			if ts < c.from || ts > c.to {
				t.Errorf("contact at %.3f s, want %.3f..%.3f (%s)", ts, c.from, c.to, e.Reason)
			}
			if e.Turn != c.turn {
				t.Errorf("turn %v, want %v: %s", e.Turn, c.turn, e.Reason)
			}
			if c.reason != "" && !strings.Contains(e.Reason, c.reason) || !strings.HasSuffix(e.Reason, " for 0.3 s") {
				t.Errorf("reason %q, want %q", e.Reason, c.reason)
			}
			if e.For < 285*time.Millisecond || len(e.Cmds) == 0 || len(e.Odo) == 0 || (!sc.gyroNone && len(e.Gyro) == 0) {
				t.Errorf("event for %v, history %d cmds %d odo %d gyro", e.For, len(e.Cmds), len(e.Odo), len(e.Gyro))
			}
			if sc.req(0) == (kinematics.Twist{}) && e.CmdStart.Sub(t0) < 2*time.Second {
				t.Errorf("CmdStart %v, want the wheels' start at 2 s", e.CmdStart.Sub(t0))
			}
			if o.final.Contacts != 1 {
				t.Errorf("status contacts %d", o.final.Contacts)
			}
			t.Logf("%s at %.3f s", e.Reason, ts)
		})
	}
}

func TestCannotJudge(t *testing.T) {
	// Stalled, but the evidence is missing: no contact, and the status says why.
	for _, c := range []struct {
		sc  scenario
		why string
	}{
		{scenario{name: "corridor: degenerate along the command", req: const_(kinematics.Twist{VX: 0.2}), stallAt: 0, degenerateAlong: &[2]float64{1, 0}},
			"cannot judge: the LiDAR odometry cannot see motion along the command"},
		{scenario{name: "LiDAR silent", req: const_(kinematics.Twist{VX: 0.2}), stallAt: 0, odoUntil: 0.5},
			"cannot judge: no LiDAR odometry (none for"},
		{scenario{name: "no gyro, turning", req: const_(kinematics.Twist{WZ: 1.0}), stallAt: 0, gyroNone: true},
			"cannot judge the turn: no gyro samples"},
		{scenario{name: "a tap shorter than settle", req: func(t float64) kinematics.Twist {
			if math.Mod(t, 1.5) < 0.6 {
				return kinematics.Twist{VX: 0.2}
			}
			return kinematics.Twist{}
		}, stallAt: 0}, "not judged: command settling"},
		{scenario{name: "under v_min", req: const_(kinematics.Twist{VX: 0.05}), stallAt: 0}, "not judged: command under v_min"},
		{scenario{name: "idle", req: const_(kinematics.Twist{}), stallAt: 0}, "idle: no command"},
	} {
		t.Run(c.sc.name, func(t *testing.T) {
			sc := c.sc
			if sc.odoUntil == 0 {
				sc.odoUntil = nan
			}
			sc.dur = 6
			o := sc.run(t, DefaultConfig(), 3)
			if len(o.contacts) != 0 {
				t.Fatalf("contact without evidence: %s", o.contacts[0].Reason)
			}
			found := false
			for w := range o.whys {
				found = found || strings.HasPrefix(w, c.why)
			}
			if !found {
				t.Fatalf("status never said %q: %v", c.why, o.whys)
			}
		})
	}
}

func TestOneContactPerEpisode(t *testing.T) {
	// Log mode keeps judging: a stall that goes on is one contact; a new one after motion is another.
	sc := scenario{name: "episodes", req: func(t float64) kinematics.Twist {
		if math.Mod(t, 4) < 3 {
			return kinematics.Twist{VX: 0.2}
		}
		return kinematics.Twist{}
	}, stallAt: 0, odoUntil: nan, dur: 11.9}
	o := sc.run(t, DefaultConfig(), 1)
	if len(o.contacts) != 3 || o.final.Contacts != 3 {
		t.Fatalf("want 3 contacts (one per drive), got %d", len(o.contacts))
	}
}

func TestOdometryFailureBreaksTheWindow(t *testing.T) {
	// Poses across a failed match are not compared: the window must fill again first.
	m, _ := New(DefaultConfig())
	for k := 0; k <= 100; k++ {
		ts := float64(k) * 0.02
		m.Command(at(ts), kinematics.Twist{VX: 0.2})
		if k%5 != 0 {
			continue
		}
		switch {
		case k == 60:
			m.OdometryFailed(at(ts))
		default:
			m.Odometry(Odo{T: at(ts), E: scanmatch.Estimate{}})
			if k == 65 || k == 70 {
				if w := m.Status().Why; !strings.HasPrefix(w, "cannot judge: not enough LiDAR odometry") {
					t.Fatalf("%.2f s, just after a failed match: %q", ts, w)
				}
			}
		}
	}
	if st := m.Status(); st.OdoFailures != 1 || st.Why != "judging" {
		t.Fatalf("status %+v", st)
	}
}

func TestConfigAndMode(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := DefaultConfig()
	bad.Ratio = 1.5
	if _, err := New(bad); err == nil || !strings.Contains(err.Error(), "contact_ratio") {
		t.Fatalf("ratio 1.5: %v", err)
	}
	bad = DefaultConfig()
	bad.Win = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "contact_win") {
		t.Fatalf("win 0: %v", err)
	}
	bad = DefaultConfig()
	bad.VMin = math.NaN()
	if err := bad.Validate(); err == nil {
		t.Fatal("NaN v_min accepted")
	}
	for s, want := range map[string]Mode{"": Act, "act": Act, "log": Log, "off": Off} {
		if m, err := ParseMode(s); err != nil || m != want || (s != "" && m.String() != s) {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseMode("on"); err == nil {
		t.Error("mode on accepted")
	}
}

func TestConstantsMatter(t *testing.T) {
	// The constants are used: a longer HOLD trips later by the difference, a higher RATIO trips on the rug.
	sc := scenario{req: const_(kinematics.Twist{VX: 0.2}), stallAt: 0, odoUntil: nan, dur: 4}
	cfg := DefaultConfig()
	cfg.Hold = 600 * time.Millisecond
	o := sc.run(t, cfg, 1)
	if len(o.contacts) != 1 || math.Abs(o.contacts[0].At.Sub(t0).Seconds()-1.55) > 0.001 {
		t.Fatalf("hold 0.6 s: %v", o.contacts)
	}
	rug := scenario{req: const_(kinematics.Twist{VX: 0.2}), slip: 0.3, stallAt: nan, odoUntil: nan, dur: 4}
	cfg = DefaultConfig()
	cfg.Ratio = 0.5
	if o := rug.run(t, cfg, 1); len(o.contacts) != 1 {
		t.Fatalf("ratio 0.5 on a 30 %% rug: %d contacts", len(o.contacts))
	}
}
