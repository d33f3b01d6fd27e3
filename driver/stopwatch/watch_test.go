package stopwatch

import (
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/scanmatch"
)

// A synthetic robot, on a 1 ms grid: the board IMU at ~111 Hz (every 9 ms), the commands at 50 Hz, the LiDAR
// odometry at 10 Hz. The wheels' vibration follows the stand levels of judge/vibration's synthetic series
// (still 0.002 rad/s, 0.2 m/s 0.0055) and sim/imu.go's bias; the robot decelerates at decel after the
// trigger (never, for the negative control).

const (
	stillLevel = 0.0020 // rad/s, hypot of the x and y standard deviations
	spinLevel  = 0.0055 // at 0.2 m/s
)

type scene struct {
	body     [3]float64 // commanded before the trigger (and again after resume)
	trig     float64    // s: the trigger (0: none)
	kind     string
	decel    float64 // m/s^2 (rad/s^2 for a turn) after the trigger; 0: the wheels never stop
	resume   float64 // s after the trigger at which the command comes again (0: never)
	odo      bool    // the LiDAR odometry runs
	degen    bool    // its estimates are degenerate along x
	imuHole  [2]float64
	odoHole  [2]float64 // s after the trigger: no odometry estimate (the scans stopped)
	extra    []Trigger  // more triggers, At as seconds after the trigger in At's nanoseconds (see run)
	extraAt  []float64
	noCmd    bool // no commands at all (a kill timed by the next driver)
	body0    *[3]float64
	noIMUpre bool    // no IMU before the trigger (the next driver starts after it)
	wallStep float64 // s added to the wall clock from the trigger on
	cmdFrom  float64 // s: the command (and the wheels) start here
	backdate float64 // s: the trigger is made at trig but dated this much earlier (a deadman's silence start)
	end      float64 // run length, s
}

type runOut struct {
	recs  []api.StopRecord
	w     *Watch
	walls []time.Time
}

// run plays a scene into a fresh watch. base carries the monotonic reading when it comes from time.Now.
func (sc scene) run(t *testing.T, base time.Time) runOut {
	t.Helper()
	w, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	wallBase := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	end := sc.end
	if end == 0 {
		end = sc.trig + 6
	}
	v0 := math.Hypot(sc.body[0], sc.body[1])
	dx, dy := 0.0, 0.0
	if v0 > 0 {
		dx, dy = sc.body[0]/v0, sc.body[1]/v0
	}
	var x, y, yaw float64
	speed, rate := 0.0, 0.0 // the robot's actual speed and yaw rate
	resumed := false
	fired := false
	extraDone := make([]bool, len(sc.extra))
	var out runOut
	const bx, by = -1.7, -1.6 // deg/s: sim/imu.go's nominal bias
	for ms := 0; ms <= int(end*1000); ms++ {
		ts := float64(ms) / 1000
		at := base.Add(time.Duration(ms) * time.Millisecond)
		after := ts - sc.trig
		moving := ts >= sc.cmdFrom && (sc.trig == 0 || after < 0 || (sc.resume > 0 && after >= sc.resume))
		if sc.trig > 0 && !fired && after >= 0 {
			back := time.Duration(sc.backdate * float64(time.Second))
			tr := Trigger{Kind: sc.kind, Reason: "test", At: at.Add(-back), Wall: wallBase.Add(time.Duration(ms)*time.Millisecond - back + time.Duration(sc.wallStep*float64(time.Second))), UptimeS: ts - sc.backdate, Body: sc.body0}
			out.walls = append(out.walls, tr.Wall)
			w.Trigger(tr)
			fired = true
		}
		for i, e := range sc.extra {
			if !extraDone[i] && sc.trig > 0 && after >= sc.extraAt[i] {
				e.At = at
				w.Trigger(e)
				extraDone[i] = true
			}
		}
		// the robot
		const dt = 0.001
		wantV, wantW := 0.0, 0.0
		if moving {
			wantV, wantW = v0, sc.body[2]
		}
		if sc.decel == 0 && fired {
			wantV, wantW = v0, sc.body[2] // the negative control: the board ignored the stop
		}
		step := func(cur, want, a float64) float64 {
			if a == 0 || math.Abs(want-cur) <= a*dt {
				return want
			}
			if want > cur {
				return cur + a*dt
			}
			return cur - a*dt
		}
		if !fired || resumed || moving {
			speed, rate = wantV, wantW
			if moving && fired {
				resumed = true
			}
		} else {
			speed = step(speed, wantV, sc.decel)
			rate = step(rate, wantW, sc.decel)
		}
		x += speed * dx * dt
		y += speed * dy * dt
		yaw += rate * dt
		if ms%20 == 0 && !sc.noCmd {
			b := [3]float64{}
			if moving {
				b = sc.body
			}
			w.Commanded(at, b)
		}
		inHole := ts >= sc.imuHole[0] && ts < sc.imuHole[1]
		if ms%9 == 0 && !inHole && !(sc.noIMUpre && after < 0) {
			lvl := stillLevel
			full := math.Max(v0, math.Abs(sc.body[2])*0.4)
			if full > 0 {
				cur := math.Max(speed, math.Abs(rate)*0.4)
				lvl = stillLevel + (spinLevel-stillLevel)*cur/full
			}
			s := lvl / math.Sqrt2 * 180 / math.Pi
			w.IMU(at, [3]float32{float32(bx + rng.NormFloat64()*s), float32(by + rng.NormFloat64()*s),
				float32(0.05 + rate*180/math.Pi + rng.NormFloat64()*0.05)})
		}
		if ms%100 == 0 && sc.odo && !(after >= sc.odoHole[0] && after < sc.odoHole[1]) {
			e := scanmatch.Estimate{Pose: scanmatch.Pose2{X: x + rng.NormFloat64()*0.001, Y: y + rng.NormFloat64()*0.001, Yaw: yaw}}
			if sc.degen {
				e.Degenerate, e.Weak = true, [3]float64{1, 0, 0}
			}
			w.Odo(at, e) // the pose's own instant (mid-sweep)
		}
		if ms%20 == 0 {
			out.recs = append(out.recs, w.Poll(at)...)
		}
	}
	out.w = w
	return out
}

func fwd(v float64) [3]float64 { return [3]float64{v, 0, 0} }

func TestStops(t *testing.T) {
	type want struct {
		n          int // records
		conf       string
		outcome    string
		from       string
		stillMin   float64 // NaN: StillS must be null
		stillMax   float64
		travelMin  float64 // NaN: TravelM must be null; 0 with travelMax 0: not checked
		travelMax  float64
		note       string
		direction  string
		notCounted bool
	}
	nan := math.NaN()
	// 0.2 m/s stopping at 0.667 m/s^2: still 0.3 s after the trigger, travel 0.03 m.
	cases := []struct {
		name string
		sc   scene
		want want
	}{
		{"stand stop", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667},
			want{n: 1, conf: api.ConfidenceOK, outcome: "PASS", from: FromVibration, stillMin: 0.25, stillMax: 0.7, travelMin: nan, direction: "fwd"}},
		{"floor stop", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, odo: true},
			want{n: 1, conf: api.ConfidenceOK, outcome: "PASS", from: FromOdometry, stillMin: 0.15, stillMax: 0.5, travelMin: 0.025, travelMax: 0.035, direction: "fwd",
				note: "board gyro vibration"}},
		{"floor stop strafing left", scene{body: [3]float64{0, 0.2, 0}, trig: 3, kind: api.StopDisable, decel: 0.667, odo: true},
			want{n: 1, conf: api.ConfidenceOK, outcome: "PASS", from: FromOdometry, stillMin: 0.15, stillMax: 0.5, travelMin: 0.025, travelMax: 0.035, direction: "left"}},
		{"negative control stand: never stops", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop},
			want{n: 1, conf: api.ConfidenceOK, outcome: "FAIL", from: FromVibration, stillMin: nan, travelMin: nan, note: "NEVER settled"}},
		{"negative control floor: never stops", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, odo: true},
			want{n: 1, conf: api.ConfidenceOK, outcome: "FAIL", from: FromOdometry, stillMin: nan, travelMin: nan, note: "STILL MOVING"}},
		{"scan gate: the scans stop after the trigger for 1.5 s", scene{body: fwd(0.2), trig: 3, kind: api.StopScanGate, decel: 0.667, odo: true, odoHole: [2]float64{0.05, 1.55}},
			want{n: 1, conf: api.ConfidenceNoData, notCounted: true, direction: "fwd", note: "hole"}},
		{"crawl", scene{body: fwd(0.02), trig: 3, kind: api.StopEStop, decel: 0.667, odo: true},
			want{n: 1, conf: api.ConfidenceCrawl, notCounted: true, direction: "fwd"}},
		{"turn on the floor", scene{body: [3]float64{0, 0, 0.5}, trig: 3, kind: api.StopEStop, decel: 2, odo: true},
			want{n: 1, conf: api.ConfidenceTurning, outcome: "PASS", from: FromGyroZ, stillMin: 0.1, stillMax: 0.5, travelMin: nan, direction: "turn"}},
		{"turn on the stand", scene{body: [3]float64{0, 0, 0.5}, trig: 3, kind: api.StopEStop, decel: 2},
			want{n: 1, conf: api.ConfidenceTurning, from: FromVibration, travelMin: nan, direction: "turn"}},
		{"linear stop while turning", scene{body: [3]float64{0.2, 0, 0.3}, trig: 3, kind: api.StopEStop, decel: 0.667, odo: true},
			want{n: 1, conf: api.ConfidenceTurning, from: FromOdometry, direction: "fwd", note: "while turning"}},
		{"degenerate odometry", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667, odo: true, degen: true},
			want{n: 1, conf: api.ConfidenceDegenerate, outcome: "NOT JUDGED", from: FromVibration, travelMin: nan, note: "degenerate"}},
		{"interrupted before still", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, resume: 0.1},
			want{n: 1, conf: api.ConfidenceInterrupt, stillMin: nan, note: "motion commanded again 0.10 s after the trigger, before"}},
		{"floor, interrupted before still", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, resume: 0.1, odo: true},
			want{n: 1, conf: api.ConfidenceInterrupt, stillMin: nan, travelMin: nan, note: "before the wheels were measured still"}},
		{"resumed after still", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, resume: 2.5},
			want{n: 1, conf: api.ConfidenceOK, outcome: "PASS", from: FromVibration, stillMin: 0.25, stillMax: 0.7, note: "the window ends there"}},
		{"resumed just after still", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, resume: 0.8},
			want{n: 1, conf: api.ConfidenceInterrupt, note: "need 0.50 s of quiet"}},
		{"trigger while still", scene{body: [3]float64{}, trig: 3, kind: api.StopEStop, decel: 0.667, odo: true},
			want{n: 0}},
		{"two triggers folded", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667,
			extra: []Trigger{{Kind: api.StopDisable, Reason: "enable false"}}, extraAt: []float64{0.2}},
			want{n: 1, conf: api.ConfidenceOK, outcome: "PASS", from: FromVibration, stillMin: 0.25, stillMax: 0.7, note: "also disable 0.20 s after the trigger"}},
		{"IMU hole after the trigger", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667, imuHole: [2]float64{3.1, 4}},
			want{n: 1, conf: api.ConfidenceNoData, from: FromVibration, notCounted: true}},
		{"wheels commanded too briefly", scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667, cmdFrom: 2.9},
			want{n: 1, conf: api.ConfidenceNoData, note: "commanded for only"}},
		{"deadman dated before the wheels started", scene{body: fwd(0.2), trig: 3, kind: api.StopDeadman, decel: 0.667, cmdFrom: 2.75, backdate: 0.3},
			want{n: 1, conf: api.ConfidenceNoData, note: "first commanded 0.06 s after the trigger"}},
		{"kill timed by the next driver", scene{body: fwd(0.2), trig: 3, kind: api.StopKill, decel: 0.667, noCmd: true, noIMUpre: true, body0: &[3]float64{0.2, 0, 0}},
			want{n: 1, conf: api.ConfidenceNoData, outcome: "FAIL", stillMin: nan, from: FromVibration}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.sc.run(t, time.Unix(1_700_000_000, 0))
			if len(o.recs) != c.want.n {
				t.Fatalf("%d records, want %d: %+v", len(o.recs), c.want.n, o.recs)
			}
			if o.w.Active() {
				t.Error("still active after the run")
			}
			if c.want.n == 0 {
				if st := o.w.Stats(); st.Ignored != 1 {
					t.Errorf("stats %+v, want one ignored trigger", st)
				}
				return
			}
			r := o.recs[0]
			t.Logf("%s: conf %s outcome %s still %v from %s travel %v notes %q", c.name, r.Confidence, r.Outcome, f(r.StillS), r.StillFrom, f(r.TravelM), r.Notes)
			w := c.want
			if r.Confidence != w.conf {
				t.Errorf("confidence %q, want %q", r.Confidence, w.conf)
			}
			if w.outcome != "" && r.Outcome != w.outcome {
				t.Errorf("outcome %q, want %q", r.Outcome, w.outcome)
			}
			if w.from != "" && r.StillFrom != w.from {
				t.Errorf("still from %q, want %q", r.StillFrom, w.from)
			}
			switch {
			case math.IsNaN(w.stillMin):
				if r.StillS != nil {
					t.Errorf("still_s %v, want null", *r.StillS)
				}
			case w.stillMax > 0:
				if r.StillS == nil || *r.StillS < w.stillMin || *r.StillS > w.stillMax {
					t.Errorf("still_s %v, want in [%v, %v]", f(r.StillS), w.stillMin, w.stillMax)
				}
			}
			switch {
			case math.IsNaN(w.travelMin):
				if r.TravelM != nil {
					t.Errorf("travel_m %v, want null", *r.TravelM)
				}
			case w.travelMax > 0:
				if r.TravelM == nil || *r.TravelM < w.travelMin || *r.TravelM > w.travelMax {
					t.Errorf("travel_m %v, want in [%v, %v]", f(r.TravelM), w.travelMin, w.travelMax)
				}
			}
			if w.note != "" && !strings.Contains(strings.Join(r.Notes, "\n"), w.note) {
				t.Errorf("no note with %q in %q", w.note, r.Notes)
			}
			if w.direction != "" && r.Direction != w.direction {
				t.Errorf("direction %q, want %q", r.Direction, w.direction)
			}
			if r.Kind != c.sc.kind || r.UptimeS != c.sc.trig-c.sc.backdate || !r.Wall.Equal(o.walls[0]) {
				t.Errorf("kind %q uptime %v wall %v, want %q %v %v", r.Kind, r.UptimeS, r.Wall, c.sc.kind, c.sc.trig-c.sc.backdate, o.walls[0])
			}
			if (r.Confidence != api.ConfidenceOK) != (w.conf != api.ConfidenceOK) {
				t.Errorf("counted %v", r.Confidence == api.ConfidenceOK)
			}
		})
	}
}

func f(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestWallStep: the wall clock steps an hour back at the trigger; the stop's times come from the monotonic
// instants given (here time.Now's, which carry the monotonic reading), so StillS and TravelM do not change
// and Wall is the stepped one the driver gave.
func TestWallStep(t *testing.T) {
	sc := scene{body: fwd(0.2), trig: 3, kind: api.StopEStop, decel: 0.667, odo: true}
	a := sc.run(t, time.Now())
	sc.wallStep = -3600
	b := sc.run(t, time.Now())
	if len(a.recs) != 1 || len(b.recs) != 1 {
		t.Fatalf("records %d, %d", len(a.recs), len(b.recs))
	}
	ra, rb := a.recs[0], b.recs[0]
	if ra.StillS == nil || rb.StillS == nil || *ra.StillS != *rb.StillS || *ra.TravelM != *rb.TravelM {
		t.Errorf("still %v / %v, travel %v / %v: a wall step changed them", f(ra.StillS), f(rb.StillS), f(ra.TravelM), f(rb.TravelM))
	}
	if got := ra.Wall.Sub(rb.Wall); got != time.Hour {
		t.Errorf("walls %v and %v, want an hour apart", ra.Wall, rb.Wall)
	}
}

// TestFlush: a shutdown during a window judges it at once, interrupted if not yet still.
func TestFlush(t *testing.T) {
	w, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	base := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return base.Add(time.Duration(s * float64(time.Second))) }
	for ms := 0; ms < 3000; ms += 10 {
		w.Commanded(at(float64(ms)/1000), fwd(0.2))
		w.IMU(at(float64(ms)/1000), [3]float32{float32(ms%7) / 10, float32(ms%5) / 10, 0})
	}
	if !w.Trigger(Trigger{Kind: api.StopEStop, At: at(3)}) || !w.Active() {
		t.Fatal("not timing a stop of moving wheels")
	}
	if rs := w.Poll(at(3.5)); rs != nil {
		t.Fatalf("judged before the window ended: %+v", rs)
	}
	rs := w.Flush(at(3.1))
	if len(rs) != 1 || rs[0].Confidence != api.ConfidenceInterrupt || w.Active() {
		t.Fatalf("flush: %+v", rs)
	}
	if !strings.Contains(strings.Join(rs[0].Notes, "\n"), "flushed") {
		t.Errorf("notes %q", rs[0].Notes)
	}
}

func TestParams(t *testing.T) {
	p := DefaultParams()
	p.IMURing = 1
	if _, err := New(p); err == nil {
		t.Error("a ring of 1 accepted")
	}
	p = DefaultParams()
	p.Vibration.Step = 0
	if _, err := New(p); err == nil {
		t.Error("bad vibration params accepted")
	}
	w, err := New(DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Params().After; got != 4050*time.Millisecond {
		t.Errorf("After %v, want 4.05 s", got)
	}
}

func TestDirection(t *testing.T) {
	for _, c := range []struct {
		b    [3]float64
		want string
	}{{fwd(0.2), "fwd"}, {fwd(-0.2), "back"}, {[3]float64{0, 0.2, 0}, "left"}, {[3]float64{0.01, -0.2, 0}, "right"},
		{[3]float64{0.2, 0.2, 0}, "mixed"}, {[3]float64{0, 0, -0.5}, "turn"}, {[3]float64{}, ""}} {
		if got := Direction(c.b, 1e-3); got != c.want {
			t.Errorf("Direction(%v) = %q, want %q", c.b, got, c.want)
		}
	}
}
