package stopwatch

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/scanmatch"
)

// Params are the judges' limits and the watch's windows. Start from DefaultParams.
type Params struct {
	Vibration vibration.Params
	Odometry  odometry.Params
	// After is the window after the trigger the judges see (0: vibration MaxStop + NeedQuiet + Step, so that
	// a stop within the stand limit can show its 2 s of quiet).
	After time.Duration
	// Lag: a stop is judged this long after its window ends, so that samples in flight (an odometry estimate
	// is timed at mid-sweep and comes a match later) are in.
	Lag time.Duration
	// MinQuiet: when motion is commanded again after the stop was measured still, the stop counts only if at
	// least this much quiet was seen before the new motion; otherwise it is "interrupted".
	MinQuiet time.Duration
	// Recent: a non-zero command this long before a trigger still counts as the velocity at the trigger
	// when the stop's own zero was reported first (one control tick is 20 ms).
	Recent time.Duration
	// Idle (m/s and rad/s): a body velocity whose every component is at most this is no motion.
	Idle float64
	// IMURing and OdoRing are the rings' sizes: they must hold the before window (the vibration judge's
	// SpinWindow + Window + Step, 1.25 s; the odometry's Window + MaxGap + 0.1 s, 0.65 s) at the streams'
	// rates (IMU ~110 Hz, odometry 10 Hz). Too small a ring only costs evidence: the record says "no data".
	IMURing, OdoRing int
}

// DefaultParams are the proofs' judges' defaults and rings for the board's 110 Hz IMU (up to 400 Hz) and
// the 10 Hz LiDAR.
func DefaultParams() Params {
	return Params{Vibration: vibration.DefaultParams(), Odometry: odometry.DefaultParams(), Lag: 300 * time.Millisecond,
		MinQuiet: 500 * time.Millisecond, Recent: 50 * time.Millisecond, Idle: 1e-3, IMURing: 512, OdoRing: 32}
}

// Validate says what is wrong with p.
func (p Params) Validate() error {
	if err := p.Vibration.Validate(); err != nil {
		return fmt.Errorf("stopwatch: vibration params: %w", err)
	}
	if err := p.Odometry.Validate(); err != nil {
		return fmt.Errorf("stopwatch: odometry params: %w", err)
	}
	switch {
	case p.After < 0 || p.Lag < 0 || p.MinQuiet < 0 || p.Recent < 0:
		return errors.New("stopwatch: After, Lag, MinQuiet and Recent must not be negative")
	case !(p.Idle >= 0) || math.IsInf(p.Idle, 0):
		return fmt.Errorf("stopwatch: Idle %v must be a finite number >= 0", p.Idle)
	case p.IMURing < 2 || p.OdoRing < 2:
		return fmt.Errorf("stopwatch: rings of %d IMU and %d odometry samples are too small (DefaultParams: 512, 32)", p.IMURing, p.OdoRing)
	}
	return nil
}

// Trigger is one stop the driver made.
type Trigger struct {
	Kind   string // api.Stop*
	Reason string // the driver's own words
	// At is the trigger on the driver's monotonic clock; Wall its wall time (the record's, may step);
	// UptimeS the trigger since the driver's start.
	At      time.Time
	Wall    time.Time
	UptimeS float64
	// Body, if not nil, is the velocity the board was told at the trigger, instead of the last Commanded
	// (a kill stop timed by the next driver: the supervisor's word).
	Body *[3]float64
}

// Stats count what the watch did.
type Stats struct {
	Timed, Folded, Ignored uint64 // stops started, triggers folded into a stop, triggers while not moving
}

// imuSample and odoSample are the stored forms: times in seconds since the watch's origin.
type odoSample struct {
	t float64
	e scanmatch.Estimate
}

// ring is a fixed ring of samples, oldest first.
type ring[T any] struct {
	buf  []T
	head int // next write
	n    int
}

func (r *ring[T]) push(v T) {
	r.buf[r.head] = v
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	if r.n < len(r.buf) {
		r.n++
	}
}

// each calls f on every sample, oldest first.
func (r *ring[T]) each(f func(*T)) {
	start := r.head - r.n
	if start < 0 {
		start += len(r.buf)
	}
	for i := 0; i < r.n; i++ {
		f(&r.buf[(start+i)%len(r.buf)])
	}
}

// stop is one stop being timed.
type stop struct {
	tr        Trigger
	trig      float64 // s since origin
	end       float64 // the natural end of the window
	cut       float64 // NaN, or where motion again (or Flush) ended the window
	cutWhy    string
	body      [3]float64
	movingFor float64 // s of motion before the trigger (NaN: unknown)
	notes     []string
}

// Watch times the driver's stops. The zero value is not usable: New.
type Watch struct {
	p                  Params
	after, lag         float64
	beforeIMU, beforeO float64

	origin    time.Time
	hasOrigin bool

	imu ring[vibration.Sample]
	odo ring[odoSample]

	// the command: the last reported, the last non-zero and when, since when the wheels are commanded
	cmd, lastMoving     [3]float64
	cmdMoving           bool
	lastMovingAt, since float64

	// while stops are pending: every sample since the first one's before window
	pending []*stop
	recIMU  []vibration.Sample
	recOdo  []odoSample
	// scratch for the judges, reused
	odoIn  []odometry.Odo
	gyroIn []odometry.Gyro

	stats Stats
}

// New makes a watch.
func New(p Params) (*Watch, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	vp := p.Vibration
	if p.After == 0 {
		p.After = time.Duration((vp.MaxStop + vp.NeedQuiet + vp.Step) * float64(time.Second))
	}
	w := &Watch{p: p, after: p.After.Seconds(), lag: p.Lag.Seconds(),
		beforeIMU: vp.SpinWindow + vp.Window + vp.Step, beforeO: p.Odometry.Window + p.Odometry.MaxGap + 0.1,
		since: math.NaN(), lastMovingAt: math.NaN()}
	w.imu.buf = make([]vibration.Sample, p.IMURing)
	w.odo.buf = make([]odoSample, p.OdoRing)
	return w, nil
}

// Params returns the watch's parameters, After filled in.
func (w *Watch) Params() Params { return w.p }

// Stats returns the counts so far.
func (w *Watch) Stats() Stats { return w.stats }

// Active reports whether a stop is being timed (its samples recorded, its judging due).
func (w *Watch) Active() bool { return len(w.pending) > 0 }

// rel places an instant on the watch's timeline: seconds since the first instant it was given, on the
// monotonic clock when both carry it.
func (w *Watch) rel(at time.Time) float64 {
	if !w.hasOrigin {
		w.origin, w.hasOrigin = at, true
	}
	return at.Sub(w.origin).Seconds()
}

// IMU takes one board IMU reading: gyro in deg/s, as the board reports it (driver/telemetry.go onIMU).
func (w *Watch) IMU(at time.Time, gyroDPS [3]float32) {
	s := vibration.SampleFromBoard(w.rel(at), gyroDPS)
	w.imu.push(s)
	if len(w.pending) > 0 {
		w.recIMU = append(w.recIMU, s)
	}
}

// Odo takes one LiDAR odometry estimate (scanmatch's, as the contact reflex makes it); at is the instant
// its pose refers to (mid-sweep) on the driver's monotonic clock. The estimate is kept whole so that its
// observability is asked along the stop's own direction when it is judged.
func (w *Watch) Odo(at time.Time, e scanmatch.Estimate) {
	s := odoSample{t: w.rel(at), e: e}
	w.odo.push(s)
	if len(w.pending) > 0 {
		w.recOdo = append(w.recOdo, s)
	}
}

// moving reports whether a body velocity is motion.
func (w *Watch) moving(b [3]float64) bool {
	return math.Abs(b[0]) > w.p.Idle || math.Abs(b[1]) > w.p.Idle || math.Abs(b[2]) > w.p.Idle
}

// Commanded takes the body velocity [vx, vy, wz] the board is told, every control tick. A non-zero one
// after a trigger ends that stop's window (motion again).
func (w *Watch) Commanded(at time.Time, body [3]float64) {
	t := w.rel(at)
	m := w.moving(body)
	if m {
		if !w.cmdMoving {
			w.since = t
		}
		w.lastMoving, w.lastMovingAt = body, t
		for _, s := range w.pending {
			if math.IsNaN(s.cut) && t > s.trig && t < s.end {
				s.cut, s.cutWhy = t, "motion commanded again"
			}
		}
	}
	w.cmd, w.cmdMoving = body, m
}

// Trigger tells the watch the driver made a stop. It starts timing it when the wheels were commanded to
// move at the trigger, folds it into a stop being timed (noted in its record), or ignores it (the wheels
// were not commanded: nothing to time). It reports whether the trigger was timed or folded.
func (w *Watch) Trigger(tr Trigger) bool {
	t := w.rel(tr.At)
	for _, s := range w.pending {
		if math.IsNaN(s.cut) && t >= s.trig && t < s.end {
			s.notes = append(s.notes, fmt.Sprintf("also %s %.2f s after the trigger (%s): folded into this stop", tr.Kind, t-s.trig, tr.Reason))
			w.stats.Folded++
			return true
		}
	}
	var body [3]float64
	movingFor := math.NaN()
	switch {
	case tr.Body != nil:
		body = *tr.Body
	case w.cmdMoving:
		body, movingFor = w.cmd, t-w.since
	case !math.IsNaN(w.lastMovingAt) && t-w.lastMovingAt <= w.p.Recent.Seconds()+1e-9 && t >= w.lastMovingAt:
		body, movingFor = w.lastMoving, w.lastMovingAt-w.since
	}
	if !w.moving(body) {
		w.stats.Ignored++
		return false
	}
	if len(w.pending) == 0 {
		w.recIMU, w.recOdo = w.recIMU[:0], w.recOdo[:0]
		w.imu.each(func(s *vibration.Sample) {
			if s.T >= t-w.beforeIMU {
				w.recIMU = append(w.recIMU, *s)
			}
		})
		w.odo.each(func(s *odoSample) {
			if s.t >= t-w.beforeO {
				w.recOdo = append(w.recOdo, *s)
			}
		})
	}
	w.pending = append(w.pending, &stop{tr: tr, trig: t, end: t + w.after, cut: math.NaN(), body: body, movingFor: movingFor})
	w.stats.Timed++
	return true
}

// Poll judges the stops whose window (and Lag) has ended by now and returns their records, oldest first;
// nil when none.
func (w *Watch) Poll(now time.Time) []api.StopRecord {
	t := w.rel(now)
	var out []api.StopRecord
	kept := w.pending[:0]
	for _, s := range w.pending {
		if s.windowEnd()+w.lag <= t {
			out = append(out, w.judge(s))
		} else {
			kept = append(kept, s)
		}
	}
	clear(w.pending[len(kept):])
	w.pending = kept
	w.trim()
	return out
}

// Flush ends every pending window at now (a shutdown: said in the record, which is then "interrupted" if
// the stop was not yet shown) and judges them all.
func (w *Watch) Flush(now time.Time) []api.StopRecord {
	t := w.rel(now)
	var out []api.StopRecord
	for _, s := range w.pending {
		if t < s.windowEnd() {
			s.cut, s.cutWhy = math.Max(t, s.trig), "the watch was flushed (shutdown)"
		}
		out = append(out, w.judge(s))
	}
	clear(w.pending)
	w.pending = w.pending[:0]
	w.trim()
	return out
}

// trim drops the recording when nothing is pending, or its samples older than every pending stop needs.
func (w *Watch) trim() {
	if len(w.pending) == 0 {
		w.recIMU, w.recOdo = w.recIMU[:0], w.recOdo[:0]
		return
	}
	from := math.Inf(1)
	for _, s := range w.pending {
		from = math.Min(from, s.trig)
	}
	i := 0
	for i < len(w.recIMU) && w.recIMU[i].T < from-w.beforeIMU {
		i++
	}
	w.recIMU = w.recIMU[:copy(w.recIMU, w.recIMU[i:])]
	j := 0
	for j < len(w.recOdo) && w.recOdo[j].t < from-w.beforeO {
		j++
	}
	w.recOdo = w.recOdo[:copy(w.recOdo, w.recOdo[j:])]
}

// windowEnd is where the judges' window ends: the natural end, or the cut before it.
func (s *stop) windowEnd() float64 {
	if !math.IsNaN(s.cut) && s.cut < s.end {
		return s.cut
	}
	return s.end
}
