package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/stoplog"
	"github.com/rosorin/rosorin/driver/stopmon"
	"github.com/rosorin/rosorin/driver/stopwatch"
	"github.com/rosorin/rosorin/kinematics"
)

// The in-service stop monitor (issue 35): the loop times every stop it makes (driver/stopwatch), holds each
// against its limit (driver/stopmon), keeps it (driver/stoplog, <state dir>/stops/) and publishes it
// (api.TopicStops). All of it is owned by the control loop; the log's writer is its own goroutine.
//
// Detection has one point, stopCheck, run after every loop event whose velocity changed and at every tick
// and deadline: when the velocity the board is told goes from motion to zero, the gate's block reason at
// that instant says which stop it was (an e-stop's latched reason says who latched it), and a zero without a
// block while another input now leads is a take-over. A zero the sender commanded, or a refused command, is
// not a stop the driver made and is not timed.
type stopsState struct {
	watch *stopwatch.Watch
	mon   *stopmon.Monitor
	log   *stoplog.Log // nil: no state directory, or it could not be opened (noLog says why)
	noLog string
	// refused: the limits file was refused (another robot's or configuration's); the state says so.
	refused string
	boot    string

	told   kinematics.Twist // the velocity last given to the watch
	in     motion.Input     // the input that drove while the wheels last moved
	hasIn  bool
	logged uint64 // records handed to the log or published
}

// newStops builds the watch and the monitor from the configuration. A limits file that cannot be used does
// not stop the driver: the driver must start whatever its monitor's evidence (refusing to start would take
// away every stop path over a file about measurements), so it runs with the configured limits alone, logs
// the refusal loudly, and the state's limits_source says "refused: <why>" until the file is fixed.
func newStops(o Options) (*stopsState, error) {
	w, err := stopwatch.New(stopwatch.DefaultParams())
	if err != nil {
		return nil, err
	}
	c := o.Config
	s := &stopsState{watch: w, boot: fmt.Sprintf("%s pid %d", o.wall.Now().UTC().Format(time.RFC3339Nano), os.Getpid())}
	var lim *stopmon.Limits
	if cl, err := c.StopMonitorConfigLimits(); err != nil {
		return nil, fmt.Errorf("stop_monitor.limits: %w", err)
	} else if cl != nil {
		if lim, err = cl.Limits(); err != nil {
			return nil, fmt.Errorf("stop_monitor.limits: %w", err)
		}
	}
	if path := c.StopMonitorLimitsFile; path != "" {
		fl, err := stopmon.LoadLimits(path, stopIdentity(o))
		switch {
		case err != nil:
			s.refused = oneLineErr(err)
			o.Log.Error("STOP LIMITS FILE REFUSED: the stop monitor runs on the configured limits only; "+
				"run a campaign on this robot and give its summary", "file", path, "err", s.refused)
		default:
			lim = fl // evidence of this robot wins over the configured limits
			for _, n := range fl.Notes {
				o.Log.Info("stop limits: "+n, "file", path)
			}
		}
	}
	mode, err := stopmon.ParseMode(c.StopMonitorMode)
	if err != nil {
		return nil, err
	}
	s.mon = stopmon.New(mode, lim, c.StopMonitorRules())
	return s, nil
}

// stopIdentity is the driver a limits file must come from: this host and the configuration the driver
// reports (GET /v1/config) without the monitor's own settings (api.ConfigIdentity), hashed as a campaign
// without --config records it. The config
// file's own hash is not known here (the driver is given the parsed configuration).
func stopIdentity(o Options) stopmon.Identity {
	id := stopmon.Identity{AcceptUnidentified: o.Config.StopMonitorAcceptEnv}
	id.Host, _ = os.Hostname()
	if b, err := json.Marshal(configView(o.Config)); err == nil {
		id.ReportedConfigSHA256, _ = api.ConfigIdentity(b)
	}
	return id
}

// openStopLog opens the stop log after the rest of start succeeded. A log that names bad records is a
// warning: the driver starts with the good ones. No state directory: no log, the monitor still runs.
func (r *loopState) openStopLog(supLatch string) {
	s := r.stops
	if r.o.StateDir == "" {
		s.noLog = "no state directory: stops are not kept (pass --state-dir)"
		r.log.Warn("stop monitor: " + s.noLog)
	} else {
		l, rec, err := stoplog.Open(r.o.StateDir, stoplog.Options{Clock: r.o.wall})
		switch {
		case err != nil:
			s.noLog = "stop log not opened: " + oneLineErr(err)
			r.log.Error("stop monitor: "+s.noLog+"; stops are timed and shown, not kept", "dir", r.o.StateDir)
		default:
			s.log = l
			if e := rec.Err(); e != nil {
				r.log.Warn("stop log: bad records skipped, the good ones kept", "good", rec.Good, "bad", len(rec.Bad),
					"cut_bytes", rec.Cut, "err", oneLineErr(e))
			}
		}
	}
	// A driver that died: the supervisor wrote the stop frame and says so in the latch it starts this one
	// with. What the wheels did then is not known here: a stop with no data, never counted.
	if strings.HasPrefix(supLatch, "driver restarted after ") {
		now := r.clk.Now()
		r.stopRecorded(api.StopRecord{Wall: r.wall(now), UptimeS: 0, Kind: api.StopKill, Reason: supLatch,
			Direction: "unknown", Outcome: "NOT JUDGED", Confidence: api.ConfidenceNoData,
			Notes: []string{"the previous driver died; the supervisor wrote the stop frame; no samples from before " +
				"the death and its velocity is not known"}})
	}
}

// stopKind names the stop the gate made at now, from its block reason, "" when it was none of the driver's.
func (r *loopState) stopKind(now time.Time) (kind, reason string) {
	b := r.gate.BlockReason(now)
	switch {
	case strings.HasPrefix(b, motion.BlockEStopPrefix):
		reason = r.gate.Status().EStop
		switch latchSource(reason) {
		case "api", "key":
			return api.StopEStop, reason
		case "gamepad":
			return api.StopGamepad, reason
		case "contact":
			return api.StopContact, reason
		}
		return api.StopBoard, reason // board silence, two publishers: latches the driver made itself
	case b == motion.BlockDisabled:
		return api.StopDisable, "enable false"
	case b == motion.BlockCmdTimeout:
		return api.StopDeadman, fmt.Sprintf("no command for %v", r.p.limits.CmdTimeout)
	case b == motion.BlockNoScan:
		return api.StopScanGate, "no LiDAR scan: the scan gate held the wheels"
	}
	if w, ok := r.gate.Winner(now); ok && r.stops.hasIn && w != r.stops.in {
		return api.StopTakeOver, fmt.Sprintf("%s took over from %s with a stop", w, r.stops.in)
	}
	return "", ""
}

// stopTrigger is the stop's trigger as the proofs define it, so that a service stop and a campaign's bound
// for its path measure the same span: for the deadman and the scan gate the silence's start (the last
// command of the input that drove; the last scan), which the driver acts on cmd_timeout or scan_timeout
// later; for every other stop now, the instant the driver acted. Without it a deadman timed in service
// left out the proofs' 0.3 s at speed and was held against a bound 2 to 3 times its own (the campaign's
// deadman forward at 0.1 m/s: 0.60 s and 43 mm; in service 0.29 s and 13 mm).
func (r *loopState) stopTrigger(kind string, now time.Time) time.Time {
	switch kind {
	case api.StopDeadman:
		if t, ok := r.gate.LastCommand(r.stops.in); ok && t.Before(now) {
			return t
		}
	case api.StopScanGate:
		if a := r.gate.Snapshot(now).ScanAge; a != nil && *a > 0 {
			return now.Add(-*a)
		}
	}
	return now
}

// stopsAfterEvent runs stopCheck after a loop event that changed the velocity (a trip, a disable, a
// refusal); ticks and deadlines call stopCheck themselves.
func (r *loopState) stopsAfterEvent() {
	if r.gate.Current() != r.stops.told {
		r.stopCheck(r.clk.Now())
	}
}

// stopCheck is the one place stops are detected (see stopsState), and feeds the watch the velocity.
func (r *loopState) stopCheck(now time.Time) {
	s := r.stops
	cur := r.gate.Current()
	was := !s.told.IsZero()
	if was && cur.IsZero() {
		if kind, reason := r.stopKind(now); kind != "" {
			at := r.stopTrigger(kind, now)
			s.watch.Trigger(stopwatch.Trigger{Kind: kind, Reason: reason, At: at, Wall: r.wall(at),
				UptimeS: at.Sub(r.start).Seconds()})
		}
	}
	if !cur.IsZero() && (cur != s.told || !s.hasIn) {
		s.in, s.hasIn = r.gate.Winner(now)
	}
	s.told = cur
	s.watch.Commanded(now, [3]float64{cur.VX, cur.VY, cur.WZ})
}

// pollStops judges the stops whose window has ended (only while one is timed).
func (r *loopState) pollStops(now time.Time) {
	if !r.stops.watch.Active() {
		return
	}
	for _, rec := range r.stops.watch.Poll(now) {
		r.stopRecorded(rec)
	}
}

// stopRecorded holds a finished record against its limit, keeps it, publishes it and logs one line.
func (r *loopState) stopRecorded(rec api.StopRecord) {
	s := r.stops
	rec.Boot = s.boot
	if s.log != nil {
		rec.Seq = s.log.Next() // the monitor's why names the stop by the seq the log gives it
	}
	rec = s.mon.Observe(rec)
	if s.log != nil {
		rec = s.log.Append(rec)
	}
	s.logged++
	r.publish(api.TopicStops, &rec)
	args := []any{"kind", rec.Kind, "speed", round3(rec.Speed), "direction", rec.Direction, "confidence", rec.Confidence,
		"outcome", rec.Outcome, "seq", rec.Seq}
	if rec.StillS != nil {
		args = append(args, "still_s", round3(*rec.StillS), "still_from", rec.StillFrom)
	}
	if rec.TravelM != nil {
		args = append(args, "travel_m", round3(*rec.TravelM))
	}
	if rec.Limit != nil {
		args = append(args, "limit_still_s", rec.Limit.MaxStillS, "limit_travel_m", rec.Limit.MaxTravelM)
	}
	msg := fmt.Sprintf("stop timed: %s (%s)", rec.Kind, rec.Reason)
	switch rec.Level {
	case api.StopLevelWarn, api.StopLevelError:
		st := s.mon.State()
		r.log.Warn(msg+": past its limit ("+strings.ToUpper(rec.Level)+")", append(args, "level", rec.Level, "monitor", st.Why)...)
	default:
		r.log.Info(msg, append(args, "level", rec.Level)...)
	}
}

// closeStops ends the stop monitor at shutdown: the stops still being timed are judged as they are
// (interrupted), kept and published, then the log is flushed and closed.
func (r *loopState) closeStops(now time.Time) {
	s := r.stops
	if s == nil {
		return
	}
	for _, rec := range s.watch.Flush(now) {
		r.stopRecorded(rec)
	}
	if s.log != nil {
		if err := s.log.Close(); err != nil {
			r.log.Error("stop log: the last records may not be on disk", "err", err)
		}
	}
}

// stopState is the monitor's part of the state record.
func (r *loopState) stopState() *api.StopMonitor {
	s := r.stops
	st := s.mon.State()
	if s.refused != "" {
		st.LimitsSource = "refused: " + s.refused + "; in force: " + st.LimitsSource
	}
	switch {
	case s.log != nil:
		ls := s.log.Stats()
		st.LastSeq = ls.LastSeq
		if ls.Err != nil {
			st.LogErr = oneLineErr(ls.Err)
		}
	case s.noLog != "":
		st.LogErr = s.noLog
	}
	return &st
}

// stopsAck is a person's acknowledgement of the monitor's ERROR (the transport checked the safety role).
func (r *loopState) stopsAck(p api.Peer, now time.Time) api.Reply {
	err := r.stops.mon.Ack(p.String(), r.wall(now))
	switch {
	case errors.Is(err, stopmon.ErrNothingToAck):
		return api.Reply{Success: true, Message: "nothing to acknowledge: the stop monitor holds no ERROR"}
	case err != nil:
		return api.Reply{Message: "refused: " + err.Error()}
	}
	msg := "stop monitor ERROR acknowledged; enable allowed again"
	r.log.Warn(msg, "by", p.String())
	return api.Reply{Success: true, Message: msg}
}

// StopsAck implements api.StopsAcker: the request goes to the loop.
func (r *loopState) StopsAck(p api.Peer) api.Reply {
	res, err := r.call(withReply(request{kind: reqStopsAck, peer: p}))
	if err != nil {
		return api.Reply{Message: err.Error()}
	}
	return res.reply
}

// reqStopsAck is handled by stopsAck (from onRequest).
const reqStopsAck reqKind = 102

// newStopsOrSafe is newStops for newLoopState. The configuration was validated (paramsFrom), so an error
// here is one the validation missed: the monitor runs in hold with no limits, and the log says why.
func newStopsOrSafe(o Options) *stopsState {
	s, err := newStops(o)
	if err == nil {
		return s
	}
	o.Log.Error("stop monitor: configuration refused; running in hold with no limits", "err", err)
	w, _ := stopwatch.New(stopwatch.DefaultParams())
	return &stopsState{watch: w, mon: stopmon.New(stopmon.ModeHold, nil, stopmon.Rules{}),
		boot: fmt.Sprintf("%s pid %d", o.wall.Now().UTC().Format(time.RFC3339Nano), os.Getpid())}
}
