package driver

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
)

// The contact reflex (judge/contact, docs/contact.md): the wheels commanded, the LiDAR odometry seeing no
// motion along the command (the gyro for turns) -> the e-stop, through the loop's own trip path.
//
// The scan matcher runs in a goroutine of its own, fed the scans the driver already receives (Handler.Scan,
// a transport goroutine, hands them over without waiting: newest wins, the dropped one is counted). Its
// results reach the control loop over a channel the loop selects on; a full channel drops the result and
// counts it. So a slow match (a loaded machine, a garbage scan) never delays a control tick: the loop only
// ever does the monitor's arithmetic. The monitor itself is owned by the loop, as the gate is.

// contactReflex is the loop's reflex. Fields marked "loop" are the control loop's; the channels and the
// atomics are shared.
type contactReflex struct {
	configured contact.Mode
	odoCfg     scanmatch.Config

	scans   chan contactScan  // transport -> matcher, newest wins
	results chan contactMatch // matcher -> loop
	stop    chan struct{}
	done    chan struct{}
	// slow, TEST ONLY: every match takes at least this long (the slow-matcher tick test).
	slow time.Duration
	// clk times the matches (Options' wall clock; clock.Real{} from newContactReflex).
	clk clock.Full

	scansDropped, resultsDropped      atomic.Uint64
	matches, matchNS, matchMax, cpuNS atomic.Int64
	started                           atomic.Bool

	// loop
	mon           *contact.Monitor
	override      contact.Mode
	overrideUntil time.Time // zero: no override
	overrideBy    string
	forever       bool      // an "act" override without an end
	logSince      time.Time // start of the current unbroken log override (api.MaxContactLogSpan)
	logSpent      bool      // the span was used up: log mode refused until a request of mode "" or act
	last          *api.ContactEvent
	loggedWhy     string
	noScan        string // the scan gate holds a command: the reflex cannot judge (the why), "" otherwise
}

type contactScan struct {
	s  coind6.Scan
	at time.Time // arrival, on the driver's clock
}

type contactMatch struct {
	t   time.Time // mid-sweep, on the driver's clock
	e   scanmatch.Estimate
	err error
}

func newContactReflex(mode contact.Mode, cfg contact.Config) (*contactReflex, error) {
	mon, err := contact.New(cfg)
	if err != nil {
		return nil, err
	}
	return &contactReflex{configured: mode, clk: clock.Real{}, odoCfg: scanmatch.DefaultConfig(), mon: mon,
		scans: make(chan contactScan, 1), results: make(chan contactMatch, 16),
		stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// mode is the mode in effect at now (loop).
func (c *contactReflex) mode(now time.Time) contact.Mode {
	if c.configured == contact.Off {
		return contact.Off
	}
	if c.forever || (!c.overrideUntil.IsZero() && now.Before(c.overrideUntil)) {
		return c.override
	}
	return c.configured
}

// startMatcher runs the matcher goroutine (not when off).
func (c *contactReflex) startMatcher() error {
	if c.configured == contact.Off {
		close(c.done)
		return nil
	}
	odo, err := scanmatch.New(c.odoCfg)
	if err != nil {
		close(c.done)
		return err
	}
	c.started.Store(true)
	go c.matcher(odo)
	return nil
}

// stopMatcher ends the matcher and waits for it.
func (c *contactReflex) stopMatcher() {
	if c.started.Load() {
		close(c.stop)
	}
	<-c.done
}

// feed hands a scan to the matcher without waiting (transport goroutines): the newest scan wins.
func (c *contactReflex) feed(s *api.Scan, at time.Time) {
	if !c.started.Load() || s == nil {
		return
	}
	in := contactScan{at: at, s: coind6.Scan{Stamp: s.Stamp, ScanTime: time.Duration(s.ScanTime * float64(time.Second)),
		Ranges: append([]float32(nil), s.Ranges...), RangeMin: float32(s.RangeMin), RangeMax: float32(s.RangeMax),
		Samples: len(s.Ranges)}}
	for {
		select {
		case c.scans <- in:
			return
		default:
		}
		select {
		case <-c.scans:
			c.scansDropped.Add(1)
		default:
		}
	}
}

// matcher is the matcher goroutine: one scanmatch.Odometry over the driver's life.
func (c *contactReflex) matcher(odo *scanmatch.Odometry) {
	defer close(c.done)
	runtime.LockOSThread() // the thread CPU time below is this goroutine's
	defer runtime.UnlockOSThread()
	var delays []time.Duration
	for {
		var in contactScan
		select {
		case <-c.stop:
			return
		case in = <-c.scans:
		}
		w0, c0 := c.clk.Now(), threadCPU()
		e, err := odo.Add(in.s, scanmatch.Aux{})
		if c.slow > 0 {
			_ = c.clk.Sleep(context.Background(), c.slow-c.clk.Now().Sub(w0))
		}
		wall, cpu := c.clk.Now().Sub(w0), threadCPU()-c0
		c.matches.Add(1)
		c.matchNS.Add(int64(wall))
		c.cpuNS.Add(int64(cpu))
		if int64(wall) > c.matchMax.Load() {
			c.matchMax.Store(int64(wall))
		}
		out := contactMatch{t: placeScan(&delays, in), e: e, err: err}
		select {
		case c.results <- out:
		default:
			c.resultsDropped.Add(1)
		}
	}
}

// placeScan puts a scan's mid-sweep on the driver's clock: its arrival minus half a revolution, with the
// arrival jitter taken out (the least arrival-minus-stamp of the last 30 scans, as the floor proof places
// them): scans come in bursts on a loaded machine, their stamps do not.
func placeScan(delays *[]time.Duration, in contactScan) time.Time {
	d := in.at.Sub(in.s.Stamp) // wall clock of the arrival against the stamp's
	ds := *delays
	if n := len(ds); n > 0 && (d-ds[n-1] > 500*time.Millisecond || ds[n-1]-d > 500*time.Millisecond) {
		ds = ds[:0] // a wall-clock step
	}
	ds = append(ds, d)
	if len(ds) > 30 {
		ds = ds[1:]
	}
	*delays = ds
	least := ds[0]
	for _, x := range ds {
		least = min(least, x)
	}
	return in.at.Add(-(d - least) - in.s.ScanTime/2)
}

// contactTick feeds the gated velocity of this tick (loop).
func (r *loopState) contactTick(now time.Time, v kinematics.Twist) {
	c := r.cr
	if c == nil || c.configured == contact.Off {
		return
	}
	if !c.forever && !c.overrideUntil.IsZero() && !now.Before(c.overrideUntil) {
		c.overrideUntil = time.Time{}
		r.log.Info("contact reflex: temporary mode over; back to " + c.configured.String())
	}
	c.mon.Command(now, kinematics.Twist{VX: v.VX, VY: v.VY, WZ: v.WZ})
	c.mon.Tick(now)
	// A silent LiDAR: the scan gate holds the command, so the gated command is zero and the monitor would
	// call it idle. It is not: the reflex has nothing to judge with, and says so.
	c.noScan = ""
	if r.gate.BlockReason(now) == motion.BlockNoScan {
		age := "none since start"
		if snap := r.gate.Snapshot(now); snap.ScanAge != nil {
			age = fmt.Sprintf("none for %.1f s", snap.ScanAge.Seconds())
		}
		c.noScan = "cannot judge: no LiDAR scan (" + age + "); the scan gate holds the wheels"
	}
	r.logContactWhy()
}

// contactGyro feeds a bias-corrected gyro z sample (rad/s) (loop).
func (r *loopState) contactGyro(at time.Time, wz float64) {
	if r.cr != nil && r.cr.configured != contact.Off {
		r.cr.mon.Gyro(at, wz)
	}
}

// logContactWhy logs, once per change, when the reflex cannot judge a command (a silent LiDAR, a corridor).
func (r *loopState) logContactWhy() {
	c := r.cr
	st := c.mon.Status()
	why := ""
	if len(st.Why) > 12 && st.Why[:12] == "cannot judge" {
		why = st.Why
	}
	if c.noScan != "" {
		why = "cannot judge: no LiDAR scan; the scan gate holds the wheels" // once, not per tenth of a second
	}
	if why == c.loggedWhy {
		return
	}
	if why != "" {
		r.log.Warn("contact reflex: " + why)
	} else if c.loggedWhy != "" {
		r.log.Info("contact reflex: " + st.Why)
	}
	c.loggedWhy = why
}

// onContactMatch takes one matcher result (loop): the monitor judges, and a contact in mode act latches the
// e-stop and writes the stop frame now (trip).
func (r *loopState) onContactMatch(m contactMatch) {
	c := r.cr
	if m.err != nil {
		c.mon.OdometryFailed(m.t)
		r.logContactWhy()
		return
	}
	r.stops.watch.Odo(m.t, m.e) // the stop watch's LiDAR odometry (stops.go)
	d := c.mon.Odometry(contact.Odo{T: m.t, E: m.e})
	r.logContactWhy()
	if !d.Contact {
		return
	}
	now := r.clk.Now()
	mode := c.mode(now)
	ev := r.contactEvent(d.Event, mode, now)
	if mode == contact.Act {
		ev.Latched = true
		r.trip(d.Event.Reason)
	}
	c.last = ev
	unit := "m/s"
	if ev.Turn {
		unit = "rad/s"
	}
	msg := "contact reflex: " + d.Event.Reason
	if mode != contact.Act {
		msg += " (mode " + mode.String() + ": e-stop NOT latched)"
	}
	r.log.Warn(msg, "commanded", round3(ev.Commanded), "measured", round3(ev.Measured), "unit", unit, "for_s", ev.ForS,
		"after_wheels_started_s", round3(ev.UptimeS-ev.WheelsStartedS), "mode", mode.String())
	r.log.Info("contact reflex: the last seconds before it", "cmds", ev.Cmds, "gyro_n", len(ev.Gyro), "odo", ev.Odo)
	r.publish(api.TopicContact, ev)
}

func (r *loopState) up(t time.Time) float64 { return round3(t.Sub(r.start).Seconds()) }

func (r *loopState) contactEvent(e contact.Event, mode contact.Mode, now time.Time) *api.ContactEvent {
	ev := &api.ContactEvent{UptimeS: r.up(now), MeasuredAtS: r.up(e.At), WheelsStartedS: r.up(e.CmdStart), Reason: e.Reason,
		Commanded: round3(e.Commanded), Measured: round3(e.Measured), ForS: round3(e.For.Seconds()), Turn: e.Turn,
		Mode: mode.String()}
	for _, s := range e.Cmds {
		ev.Cmds = append(ev.Cmds, [4]float64{r.up(s.T), round3(s.V.VX), round3(s.V.VY), round3(s.V.WZ)})
	}
	for _, s := range e.Gyro {
		ev.Gyro = append(ev.Gyro, [2]float64{r.up(s.T), math.Round(s.WZ*1e4) / 1e4})
	}
	for _, s := range e.Odo {
		ev.Odo = append(ev.Odo, [4]float64{r.up(s.T), math.Round(s.X*1e4) / 1e4, math.Round(s.Y*1e4) / 1e4, math.Round(s.Yaw*1e4) / 1e4})
	}
	return ev
}

// contactState is the reflex's part of the state record (loop).
func (r *loopState) contactState(now time.Time) *api.ContactState {
	c := r.cr
	if c == nil {
		return nil
	}
	st := c.mon.Status()
	cs := &api.ContactState{Mode: c.mode(now).String(), Configured: c.configured.String(), Judging: st.Judging,
		Status: st.Why, Commanded: st.Commanded, Measured: st.Measured, Turn: st.Turn, Contacts: st.Contacts,
		Estimates: st.Estimates, OdoFailures: st.OdoFailures, ScansDropped: c.scansDropped.Load(),
		ResultsDropped: c.resultsDropped.Load()}
	if c.noScan != "" {
		cs.Status, cs.Judging = c.noScan, false
	}
	if c.configured == contact.Off {
		cs.Status = "off (--contact off): no matcher, no judgement"
	}
	if n := c.matches.Load(); n > 0 {
		cs.MatchMeanMS = round3(float64(c.matchNS.Load()) / float64(n) / 1e6)
		cs.MatchCPUMS = round3(float64(c.cpuNS.Load()) / float64(n) / 1e6)
		cs.MatchMaxMS = round3(float64(c.matchMax.Load()) / 1e6)
	}
	if c.forever || (!c.overrideUntil.IsZero() && now.Before(c.overrideUntil)) {
		left := -1.0
		if !c.forever {
			left = round3(c.overrideUntil.Sub(now).Seconds())
		}
		cs.OverrideS, cs.By = &left, c.overrideBy
	}
	if c.last != nil {
		l := *c.last
		l.Cmds, l.Gyro, l.Odo = nil, nil, nil // the history goes to the log and TopicContact, not every record
		cs.LastContact = &l
	}
	return cs
}

var _ api.ContactModer = (*loopState)(nil)

// ContactMode implements api.ContactModer: the request goes to the loop.
func (r *loopState) ContactMode(p api.Peer, q api.ContactRequest) api.Reply {
	res, err := r.call(withReply(request{kind: reqContactMode, peer: p, contact: q}))
	if err != nil {
		return api.Reply{Message: err.Error()}
	}
	return res.reply
}

// reqContactMode is handled by onContactMode (from onRequest's default case).
const reqContactMode reqKind = 100

// onContactMode sets or clears a temporary mode (loop).
func (r *loopState) onContactMode(q request, now time.Time) api.Reply {
	c := r.cr
	if c == nil || c.configured == contact.Off {
		return api.Reply{Message: "refused: the contact reflex is off (--contact off); start the driver with --contact act or log"}
	}
	switch q.contact.Mode {
	case "":
		c.overrideUntil, c.forever, c.logSpent = time.Time{}, false, false
	case "log":
		inLog := c.override == contact.Log && !c.overrideUntil.IsZero() && now.Before(c.overrideUntil)
		if !inLog && !c.logSpent {
			c.logSince = now
		}
		spanEnd := c.logSince.Add(time.Duration(api.MaxContactLogSpan * float64(time.Second)))
		if c.logSpent || !now.Before(spanEnd) {
			c.logSpent = true
			r.log.Warn("contact reflex: log mode refused: renewed without a break for the longest span allowed",
				"from", q.peer.String(), "since", c.logSince.Sub(r.start).Seconds(), "span_s", api.MaxContactLogSpan)
			return api.Reply{Message: fmt.Sprintf("refused: the contact reflex has been in log mode without a break for %.0f s (the most allowed); "+
				"it goes back to %s when this override ends; set mode \"\" first", api.MaxContactLogSpan, c.configured)}
		}
		until := now.Add(time.Duration(q.contact.ForS * float64(time.Second)))
		if !until.Before(spanEnd) {
			until, c.logSpent = spanEnd, true
		}
		c.override, c.overrideUntil, c.forever = contact.Log, until, false
	case "act":
		c.logSpent = false
		c.override = contact.Act
		c.forever = q.contact.ForS == 0
		c.overrideUntil = now.Add(time.Duration(q.contact.ForS * float64(time.Second)))
	}
	c.overrideBy = q.peer.String()
	msg := fmt.Sprintf("contact reflex mode %s", c.mode(now))
	if q.contact.Mode != "" && !c.forever {
		msg += fmt.Sprintf(" for %.1f s, then %s", c.overrideUntil.Sub(now).Seconds(), c.configured)
	}
	r.log.Warn(msg, "from", q.peer.String())
	return api.Reply{Success: true, Message: msg}
}
