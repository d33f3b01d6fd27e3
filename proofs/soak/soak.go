package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/target"
)

// The stops the soak makes, by the driver's stop kind (api.Stop*).
var AllKinds = []string{api.StopDeadman, api.StopEStop, api.StopDisable, api.StopGamepad, api.StopTakeOver, api.StopScanGate, api.StopKill}

// Options configure Run. The zero value of a field takes the default named beside it.
type Options struct {
	Duration time.Duration // 30 min
	Seed     uint64        // 1
	// Kinds are the stops made, in a shuffled round (AllKinds); Speeds the commanded speeds (0.1, 0.2, 0.3
	// m/s); Directions the motions ("fwd", "left", "right", "turn").
	Kinds      []string
	Speeds     []float64
	Directions []string
	// Drive is how long each motion is commanded before its stop (1 s); Settle how long after the stop the
	// soak waits before the next motion: the driver's judging window (stopwatch's 4.05 s), its lag and a
	// deadman's or a scan gate's own delay (5.2 s).
	Drive, Settle time.Duration
	// KillServiceEvery: every so many stops the service's supervisor is SIGKILLed just after a stop's record
	// was due (inside the log's batch delay) and started again (0: never; needs target.ServiceKiller).
	KillServiceEvery int
	// Out receives one progress line per stop; Clock times everything (clock.Real{}).
	Out   io.Writer
	Clock clock.Full
	// OnStop, when set, is called after each stop is made, before its progress line (the simulator's brake
	// wear is read there: Stop.Truth).
	OnStop func(*Stop)
	// Ack: when the monitor holds enable, acknowledge it (the safety role; needs target.StopsAcker) and
	// check that enable works again; the soak ends either way.
	Ack bool
}

func (o *Options) defaults() {
	if o.Duration <= 0 {
		o.Duration = 30 * time.Minute
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if len(o.Kinds) == 0 {
		o.Kinds = AllKinds
	}
	if len(o.Speeds) == 0 {
		o.Speeds = []float64{0.1, 0.2, 0.3}
	}
	if len(o.Directions) == 0 {
		o.Directions = []string{"fwd", "left", "right", "turn"}
	}
	if o.Drive <= 0 {
		o.Drive = time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 5200 * time.Millisecond
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
}

// Stop is one stop the soak made.
type Stop struct {
	N         int       `json:"n"`
	Kind      string    `json:"kind"`
	At        time.Time `json:"at"` // the trigger (wall)
	Motion    string    `json:"motion"`
	Speed     float64   `json:"speed"`
	AfterKill bool      `json:"after_kill,omitempty"` // the supervisor was SIGKILLed right after this stop
	Err       string    `json:"err,omitempty"`        // the trigger failed: no record is expected
	// Record is the driver's record matched to it (nil: none found).
	Record *api.StopRecord `json:"record"`
	// Truth is what the simulator says of this stop (its brake factor, stops worn, true stop), when known.
	Truth map[string]float64 `json:"truth,omitempty"`
}

// KindCount is one kind's tally.
type KindCount struct {
	Kind                             string  `json:"kind"`
	Made, Recorded, Counted          int     `json:"-"`
	Warn, Error                      int     `json:"-"`
	MedianStill, WorstStill, WorstTr float64 `json:"-"` // s, s, m; NaN when none
}

// MarshalJSON writes the counts and the NaN figures as null.
func (k KindCount) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		Kind                                    string
		Made, Recorded, Counted, Warn, Error    int
		MedianStillS, WorstStillS, WorstTravelM *float64
	}{k.Kind, k.Made, k.Recorded, k.Counted, k.Warn, k.Error, num(k.MedianStill), num(k.WorstStill), num(k.WorstTr)})
}

// Hold is what the soak saw when the stop monitor held enable (mode hold, an ERROR).
type Hold struct {
	AfterStop int    `json:"after_stop"` // the last stop made before enable was refused
	Why       string `json:"why"`        // the monitor's why, as the state showed it
	Acked     bool   `json:"acked"`      // the soak acknowledged it (Options.Ack)
	// EnabledAfterAck: enable worked after the acknowledgement; Err why not.
	EnabledAfterAck bool   `json:"enabled_after_ack"`
	Err             string `json:"err,omitempty"`
}

// Result is a soak's outcome.
type Result struct {
	// Hold is set when the monitor held enable; the soak ends there.
	Hold         *Hold
	Stops        []Stop
	Records      []api.StopRecord // the whole log after the soak
	LogErr       string           // bad records the log named
	Missing      []Stop           // made while moving, no record
	Flagged      []api.StopRecord // records at level warn or error
	ServiceKills int
	Duration     time.Duration
	Kinds        []KindCount
}

// Passed: every stop made has its record and nothing was flagged.
func (r *Result) Passed() bool { return len(r.Missing) == 0 && len(r.Flagged) == 0 && r.LogErr == "" }

// Target is what the soak needs of a robot: the proofs' target, its stop log and a way to put it back on its
// mark (the floor world's, or the stand's trivially).
type Target interface {
	target.Target
	target.StopLogReader
}

// ErrCannot is wrapped when the target lacks a role a chosen kind needs.
var ErrCannot = errors.New("the target cannot make this stop")

// Run drives t in a loop for o.Duration: a motion, a stop of the next kind, the judging window, again; the
// service's supervisor SIGKILLed every o.KillServiceEvery stops. Then it reads the driver's stop log and
// matches every stop it made to a record.
func Run(ctx context.Context, t Target, o Options) (*Result, error) {
	o.defaults()
	for _, k := range o.Kinds {
		if err := can(t, k); err != nil {
			return nil, err
		}
	}
	if o.KillServiceEvery > 0 {
		if _, ok := t.(target.ServiceKiller); !ok {
			return nil, fmt.Errorf("--kill-service-every: %w: no way to SIGKILL the service's supervisor", ErrCannot)
		}
	}
	s := &soaker{t: t, o: o, rng: rand.New(rand.NewPCG(o.Seed, 35)), OnStop: o.OnStop}
	before, err := t.StopRecords(ctx)
	if err != nil && len(before) == 0 && !strings.Contains(err.Error(), "bad") {
		before = nil
	}
	start := o.Clock.Now()
	res := &Result{}
	defer s.closePub()
	var round []string
	for n := 1; o.Clock.Now().Sub(start) < o.Duration && ctx.Err() == nil; n++ {
		if len(round) == 0 {
			round = slices.Clone(o.Kinds)
			s.rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		kind := round[0]
		round = round[1:]
		st := s.one(ctx, n, kind)
		if ctx.Err() != nil {
			break
		}
		if h := s.held(ctx); h != nil {
			h.AfterStop = n - 1
			if st.Err == "" {
				h.AfterStop = n
			}
			if st.Err != "" {
				st.Err = "enable refused: the stop monitor holds"
			}
			res.Stops = append(res.Stops, st)
			fmt.Fprintf(o.Out, "[%d] the stop monitor holds enable: %s\n", n, h.Why)
			if o.Ack {
				s.ack(ctx, h)
			}
			res.Hold = h
			break
		}
		if o.KillServiceEvery > 0 && n%o.KillServiceEvery == 0 && st.Err == "" {
			// Just after the record was due: the log's batch (200 ms) may still hold it.
			if err := s.killService(ctx); err != nil {
				st.Err = "SIGKILL of the supervisor: " + err.Error()
			} else {
				st.AfterKill = true
				res.ServiceKills++
			}
		}
		if s.OnStop != nil {
			s.OnStop(&st)
		}
		res.Stops = append(res.Stops, st)
		fmt.Fprintln(o.Out, progress(st, s.latest(ctx, st), n, o.Clock.Now().Sub(start), o.Duration))
	}
	res.Duration = o.Clock.Now().Sub(start)
	s.closePub()
	if err := s.ready(ctx); err == nil {
		_ = t.Enable(ctx, false)
	}
	// The last stop's record comes after its window.
	if err := o.Clock.Sleep(ctx, o.Settle); err != nil && !errors.Is(err, context.Canceled) {
		return res, err
	}
	recs, err := t.StopRecords(context.WithoutCancel(ctx))
	if err != nil {
		res.LogErr = err.Error()
	}
	res.Records = recs[min(len(before), len(recs)):]
	match(res)
	return res, nil
}

// can says whether t can make a stop of kind.
func can(t Target, kind string) error {
	switch kind {
	case api.StopDeadman, api.StopEStop, api.StopDisable, api.StopTakeOver, api.StopGamepad:
		return nil
	case api.StopScanGate, api.StopKill:
		return nil // target.Killer is in target.Target
	}
	return fmt.Errorf("stop kind %q: %w (the soak makes %s)", kind, ErrCannot, strings.Join(AllKinds, ", "))
}

type soaker struct {
	t   Target
	o   Options
	rng *rand.Rand
	pub target.Publisher
	// OnStop, when set, sees every stop as it is made (Options.OnStop).
	OnStop func(*Stop)
}

// latest is the record of st if the log has it already (for the progress line; Run matches at the end).
func (s *soaker) latest(ctx context.Context, st Stop) *api.StopRecord {
	if st.Err != "" {
		return nil
	}
	recs, _ := s.t.StopRecords(ctx)
	for i := len(recs) - 1; i >= 0 && i >= len(recs)-20; i-- {
		if r := recs[i]; r.Kind == st.Kind && near(r, st) {
			return &r
		}
	}
	return nil
}

func (s *soaker) closePub() {
	if s.pub != nil {
		s.pub.Close()
		s.pub = nil
	}
}

// ready brings the driver to enabled and unlatched, with scans (a reset and an enable are the soak's own
// deliberate acts, as an operator's would be).
func (s *soaker) ready(ctx context.Context) error {
	deadline := s.o.Clock.Now().Add(20 * time.Second)
	for {
		st, err := s.t.State(ctx)
		if err == nil {
			switch {
			case st.Estop != "":
				err = s.t.Reset(ctx)
			case !st.Enabled:
				err = s.t.Enable(ctx, true)
			case st.Blocked != "" && st.Blocked != "cmd timeout" && !strings.HasPrefix(st.Blocked, "cmd timeout"):
				err = fmt.Errorf("blocked: %s", st.Blocked)
			case math.IsNaN(st.ScanAge) || st.ScanAge > 0.5:
				err = fmt.Errorf("no scans (age %v s)", st.ScanAge)
			default:
				return nil
			}
		}
		if s.o.Clock.Now().After(deadline) {
			return fmt.Errorf("the driver did not become ready to drive within 20 s: %v", err)
		}
		if err := s.o.Clock.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// motion picks the next motion.
func (s *soaker) motion() (string, kinematics.Twist, float64) {
	v := s.o.Speeds[s.rng.IntN(len(s.o.Speeds))]
	d := s.o.Directions[s.rng.IntN(len(s.o.Directions))]
	switch d {
	case "left":
		return fmt.Sprintf("left %g", v), kinematics.Twist{VY: v}, v
	case "right":
		return fmt.Sprintf("right %g", v), kinematics.Twist{VY: -v}, v
	case "turn":
		w := math.Round(v*5*10) / 10 // 0.5, 1.0, 1.5 rad/s
		return fmt.Sprintf("turn %g", w), kinematics.Twist{WZ: w}, 0
	case "back":
		return fmt.Sprintf("back %g", v), kinematics.Twist{VX: -v}, v
	}
	return fmt.Sprintf("fwd %g", v), kinematics.Twist{VX: v}, v
}

// one makes one stop of kind after a motion and waits out its judging window.
func (s *soaker) one(ctx context.Context, n int, kind string) Stop {
	name, tw, v := s.motion()
	st := Stop{N: n, Kind: kind, Motion: name, Speed: v}
	fail := func(err error) Stop {
		st.Err = err.Error()
		s.closePub()
		_ = s.o.Clock.Sleep(ctx, time.Second)
		return st
	}
	if err := s.quiesce(ctx); err != nil {
		return fail(err)
	}
	if h, ok := s.t.(target.Homer); ok {
		if err := h.Home(ctx); err != nil {
			return fail(fmt.Errorf("home: %w", err))
		}
	}
	if err := s.ready(ctx); err != nil {
		return fail(err)
	}
	input := "autonomous"
	if s.pub == nil {
		p, err := s.t.Publisher(ctx, input)
		if err != nil {
			return fail(fmt.Errorf("publisher: %w", err))
		}
		s.pub = p
	}
	end := s.o.Clock.Now().Add(s.o.Drive)
	for s.o.Clock.Now().Before(end) {
		if err := s.pub.Send(ctx, tw); err != nil {
			return fail(fmt.Errorf("driving: %w", err))
		}
		if err := s.o.Clock.Sleep(ctx, 50*time.Millisecond); err != nil {
			return fail(err)
		}
	}
	var err error
	keep := true // keep commanding through the stop (a velocity source does not know about stops)
	st.At = s.o.Clock.Now()
	switch kind {
	case api.StopDeadman:
		keep = false
	case api.StopEStop:
		err = s.t.Estop(ctx)
	case api.StopDisable:
		err = s.t.Enable(ctx, false)
	case api.StopGamepad:
		var at time.Time
		at, _, err = s.t.PressButton(ctx, func(string) {})
		if err == nil && !at.IsZero() {
			st.At = at
		}
	case api.StopTakeOver:
		var m target.Publisher
		if m, err = s.t.Publisher(ctx, "manual"); err == nil {
			st.At = s.o.Clock.Now()
			err = s.hold(ctx, s.o.Settle, func(ctx context.Context) error {
				if err := m.Send(ctx, kinematics.Twist{}); err != nil {
					return err
				}
				return s.pub.Send(ctx, tw)
			})
			m.Close()
			if err != nil {
				return fail(err)
			}
			return st
		}
	case api.StopScanGate:
		// Commanded until the gate blocked, then silent: the gate's release resumes by design, and a
		// resume inside the judging window would end the stop's record as interrupted.
		if _, err = s.t.KillLidarReader(ctx); err == nil {
			err = s.hold(ctx, 300*time.Millisecond, func(ctx context.Context) error { return s.pub.Send(ctx, tw) })
		}
		keep = false
	case api.StopKill:
		_, err = s.t.KillDriver(ctx)
		keep = false
		s.closePub() // its connection died with the driver; the next motion opens a new one
	}
	if err != nil {
		return fail(fmt.Errorf("trigger: %w", err))
	}
	if !keep {
		err = s.hold(ctx, s.o.Settle, nil)
	} else {
		err = s.hold(ctx, s.o.Settle, func(ctx context.Context) error { return s.pub.Send(ctx, tw) })
	}
	if err != nil && ctx.Err() == nil && kind != api.StopKill {
		return fail(err)
	}
	return st
}

// held is the monitor's hold when the driver's state shows one.
func (s *soaker) held(ctx context.Context) *Hold {
	st, err := s.t.State(ctx)
	if err != nil {
		return nil
	}
	if m := target.StopMonitor(st); m != nil && m.Holding {
		return &Hold{Why: m.Why}
	}
	return nil
}

// ack acknowledges the hold and checks that enable works again.
func (s *soaker) ack(ctx context.Context, h *Hold) {
	a, ok := s.t.(target.StopsAcker)
	if !ok {
		h.Err = "the target cannot acknowledge the stop monitor"
		return
	}
	if err := s.t.Enable(ctx, true); err == nil {
		h.Err = "enable was not refused before the acknowledgement"
		return
	}
	if err := a.AckStops(ctx); err != nil {
		h.Err = "acknowledgement: " + err.Error()
		return
	}
	h.Acked = true
	if err := s.ready(ctx); err != nil {
		h.Err = "after the acknowledgement: " + err.Error()
		return
	}
	h.EnabledAfterAck = true
	fmt.Fprintln(s.o.Out, "acknowledged (the safety role): enable works again")
}

// quiesce ends the last motion before the next: zero on the publisher, then waits (up to 3 s) until the
// driver gives the wheels nothing (a hand-back or a scan gate's release may have resumed the old command).
func (s *soaker) quiesce(ctx context.Context) error {
	deadline := s.o.Clock.Now().Add(3 * time.Second)
	for {
		if s.pub != nil {
			_ = s.pub.Send(ctx, kinematics.Twist{})
		}
		st, err := s.t.State(ctx)
		if err == nil && st.BodyVel == ([3]float64{}) {
			return nil
		}
		if s.o.Clock.Now().After(deadline) {
			return fmt.Errorf("the wheels were still commanded 3 s after the soak sent zero (%v, %v)", st.BodyVel, err)
		}
		if err := s.o.Clock.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// hold waits d, calling send every 50 ms when it is not nil (its errors are tolerated: a driver being
// restarted refuses commands).
func (s *soaker) hold(ctx context.Context, d time.Duration, send func(context.Context) error) error {
	end := s.o.Clock.Now().Add(d)
	for s.o.Clock.Now().Before(end) {
		if send != nil {
			_ = send(ctx)
		}
		if err := s.o.Clock.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func (s *soaker) killService(ctx context.Context) error {
	s.closePub()
	k := s.t.(target.ServiceKiller)
	if _, err := k.KillService(ctx); err != nil {
		return err
	}
	return s.t.StartService(ctx)
}

// KillWindow is how long after a driver kill its record may come: the next driver writes it when it starts
// (the supervisor's latch says the driver died, not when), a second or two after the kill.
const KillWindow = 10 * time.Second

// LateWindow is how long after the soak's act the driver's own trigger may come for the stops the driver
// decides on time: the deadman (cmd_timeout, 0.3 s, after the last command) and the scan gate (scan_timeout
// after the last scan, once the LiDAR reader is killed).
const LateWindow = 2 * time.Second

// near says whether r's trigger lies where st's record must: within 0.5 s of it; for a deadman and a scan
// gate up to LateWindow after it; for a kill up to KillWindow after it.
func near(r api.StopRecord, st Stop) bool {
	d := r.Wall.Sub(st.At)
	switch st.Kind {
	case api.StopKill:
		return d >= -500*time.Millisecond && d <= KillWindow
	case api.StopDeadman, api.StopScanGate:
		return d >= -500*time.Millisecond && d <= LateWindow
	}
	return d.Abs() <= 500*time.Millisecond
}

// match pairs every stop made with the record of its kind whose trigger is nearest within 0.5 s, and counts
// the kinds.
func match(res *Result) {
	used := make([]bool, len(res.Records))
	for i := range res.Stops {
		st := &res.Stops[i]
		if st.Err != "" {
			continue
		}
		best, bestD := -1, math.Inf(1)
		for k, r := range res.Records {
			if used[k] || r.Kind != st.Kind || !near(r, *st) {
				continue
			}
			if d := math.Abs(r.Wall.Sub(st.At).Seconds()); d < bestD {
				best, bestD = k, d
			}
		}
		if best >= 0 {
			used[best] = true
			rec := res.Records[best]
			st.Record = &rec
		} else {
			res.Missing = append(res.Missing, *st)
		}
	}
	byKind := map[string]*KindCount{}
	kc := func(k string) *KindCount {
		if byKind[k] == nil {
			byKind[k] = &KindCount{Kind: k, MedianStill: math.NaN(), WorstStill: math.NaN(), WorstTr: math.NaN()}
		}
		return byKind[k]
	}
	for _, st := range res.Stops {
		if st.Err == "" {
			kc(st.Kind).Made++
		}
	}
	stills := map[string][]float64{}
	for _, r := range res.Records {
		c := kc(r.Kind)
		c.Recorded++
		if r.Confidence == api.ConfidenceOK {
			c.Counted++
		}
		switch r.Level {
		case api.StopLevelWarn:
			c.Warn++
			res.Flagged = append(res.Flagged, r)
		case api.StopLevelError:
			c.Error++
			res.Flagged = append(res.Flagged, r)
		}
		if r.StillS != nil && r.Confidence == api.ConfidenceOK {
			stills[r.Kind] = append(stills[r.Kind], *r.StillS)
			if !(*r.StillS <= c.WorstStill) {
				c.WorstStill = *r.StillS
			}
		}
		if r.TravelM != nil && r.Confidence == api.ConfidenceOK && !(*r.TravelM <= c.WorstTr) {
			c.WorstTr = *r.TravelM
		}
	}
	for k, xs := range stills {
		sort.Float64s(xs)
		kc(k).MedianStill = xs[len(xs)/2]
	}
	for _, c := range byKind {
		res.Kinds = append(res.Kinds, *c)
	}
	sort.Slice(res.Kinds, func(i, j int) bool { return res.Kinds[i].Kind < res.Kinds[j].Kind })
}

func progress(st Stop, rec *api.StopRecord, n int, el, total time.Duration) string {
	s := fmt.Sprintf("[%d] %s %s after %s", n, el.Truncate(time.Second), st.Kind, st.Motion)
	switch {
	case st.Err != "":
		s += ": " + st.Err
	case rec == nil:
		s += ": no record yet"
	default:
		s += ": " + recordText(*rec)
	}
	if st.AfterKill {
		s += " (then the supervisor SIGKILLed and started again)"
	}
	return s + fmt.Sprintf(" | %s left", (total-el).Truncate(time.Second))
}

// recordText is a record in a few words: "still 0.31 s, travel 0.043 m, ok" or "crawl (not counted)".
func recordText(r api.StopRecord) string {
	var parts []string
	if r.StillS != nil {
		parts = append(parts, fmt.Sprintf("still %.2f s", *r.StillS))
	} else {
		parts = append(parts, "still not measured")
	}
	if r.TravelM != nil {
		parts = append(parts, fmt.Sprintf("travel %.3f m", *r.TravelM))
	}
	if r.Confidence != api.ConfidenceOK {
		parts = append(parts, r.Confidence+" (not counted)")
	} else if r.Level != "" {
		parts = append(parts, r.Level)
	}
	return strings.Join(parts, ", ")
}
