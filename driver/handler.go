package driver

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/kinematics"
)

// The loopState is the api.Handler of its transports: each call becomes a request to the control loop.
var _ api.Handler = (*loopState)(nil)

type reqKind uint8

const (
	reqCmd reqKind = iota
	reqBadCmd
	reqCmdStream
	reqEStop
	reqEnable
	reqReset
	reqScan
	reqScanStream
	reqState
)

type request struct {
	kind   reqKind
	peer   api.Peer
	in     motion.Input // velocity input of reqCmd, reqBadCmd, reqCmdStream
	twist  kinematics.Twist
	on     bool
	reason string
	at     time.Time
	reply  chan response // nil: no answer wanted

	contact api.ContactRequest // reqContactMode (contact.go)
	set     map[string]any     // reqSetParams (runparams.go)
}

type response struct {
	reply api.Reply
	cmd   api.CmdReply
	state api.State
	err   error

	cfg    config.Config      // reqSetParams (runparams.go)
	params api.SetParamsReply // reqSetParams
}

// CallTimeout bounds how long a transport waits for the control loop. The loop answers in microseconds; a
// loop that does not answer for this long is stuck, and the caller gets 503 instead of hanging.
const CallTimeout = time.Second

var errLoopGone = errors.New("driver is shutting down")

// call hands q to the loop and waits for its answer (when q.reply is set).
func (r *loopState) call(q request) (response, error) {
	timeout := r.o.wall.After(CallTimeout) // one bound for the hand-over and the answer together
	select {
	case r.reqs <- q:
	case <-r.done:
		return response{}, errLoopGone
	case <-timeout:
		return response{}, fmt.Errorf("driver control loop not answering for %v; it is stuck, restart rosorin-base", CallTimeout)
	}
	if q.reply == nil {
		return response{}, nil
	}
	select {
	case res := <-q.reply:
		return res, nil
	case <-r.done:
		return response{}, errLoopGone
	case <-timeout:
		return response{}, fmt.Errorf("driver control loop not answering for %v; it is stuck, restart rosorin-base", CallTimeout)
	}
}

func withReply(q request) request { q.reply = make(chan response, 1); return q }

// CmdVel implements api.Handler.
func (r *loopState) CmdVel(p api.Peer, in motion.Input, t api.Twist, stream bool) (api.CmdReply, error) {
	res, err := r.call(withReply(request{kind: reqCmd, peer: p, in: in, at: r.clk.Now(), on: stream,
		twist: kinematics.Twist{VX: t.VX, VY: t.VY, WZ: t.WZ}}))
	if err != nil {
		return api.CmdReply{Message: err.Error()}, err
	}
	return res.cmd, res.err
}

// BadCommand implements api.Handler.
func (r *loopState) BadCommand(p api.Peer, in motion.Input, why string) {
	_, _ = r.call(request{kind: reqBadCmd, peer: p, in: in, reason: why, at: r.clk.Now()})
}

// CmdStream implements api.Handler.
func (r *loopState) CmdStream(p api.Peer, in motion.Input, open bool) {
	_, _ = r.call(withReply(request{kind: reqCmdStream, peer: p, in: in, on: open, at: r.clk.Now()}))
}

// EStop implements api.Handler.
func (r *loopState) EStop(p api.Peer, reason string) api.Reply {
	res, err := r.call(withReply(request{kind: reqEStop, peer: p, reason: reason}))
	if err != nil {
		return api.Reply{Message: "e-stop NOT latched: " + err.Error() + "; use the gamepad or the power switch"}
	}
	return res.reply
}

// Enable implements api.Handler.
func (r *loopState) Enable(p api.Peer, on bool) api.Reply {
	res, err := r.call(withReply(request{kind: reqEnable, peer: p, on: on}))
	if err != nil {
		return api.Reply{Message: err.Error()}
	}
	return res.reply
}

// Reset implements api.Handler.
func (r *loopState) Reset(p api.Peer) api.Reply {
	res, err := r.call(withReply(request{kind: reqReset, peer: p}))
	if err != nil {
		return api.Reply{Message: err.Error()}
	}
	return res.reply
}

// Scan implements api.Handler: the arrival goes to the loop (the scan gate, Gate.Sensed), and the scan itself
// is published from here, so a 400-bin message never costs the control loop its encoding.
//
// A sender that may not feed the scan gate (scanauth.go) is dropped here too, for transports that do not ask
// AuthorizeScan first (the socket server does, and answers 403).
func (r *loopState) Scan(p api.Peer, s *api.Scan, stream bool) {
	if scanSender(p, r.o.SupervisorPID, os.Getuid()) != nil {
		return
	}
	at := r.clk.Now()
	_, _ = r.call(request{kind: reqScan, peer: p, at: at, on: stream})
	r.cr.feed(s, at) // the contact reflex's matcher, off the loop (contact.go)
	r.publish(api.TopicScan, s)
}

// ScanStream implements api.Handler.
func (r *loopState) ScanStream(p api.Peer, open bool) {
	if scanSender(p, r.o.SupervisorPID, os.Getuid()) != nil {
		return // never the reader: its pid is not reported
	}
	_, _ = r.call(withReply(request{kind: reqScanStream, peer: p, on: open}))
}

// State implements api.Handler.
func (r *loopState) State() (api.State, error) {
	res, err := r.call(withReply(request{kind: reqState}))
	return res.state, err
}

// Config implements api.Handler.
func (r *loopState) Config() any { return *r.cfgView.Load() }

// onRequest runs in the loop.
func (r *loopState) onRequest(q request) {
	var res response
	now := r.clk.Now()
	switch q.kind {
	case reqCmd:
		r.notePublisher(q.peer, q.in, q.at, !q.on, 0)
		err := r.gate.SetCmd(q.in, q.twist, q.at, motion.SourceSoftware)
		r.afterCommand(now)
		if err != nil {
			// Refused: the gate zeroed the command and the current velocity; the wheels stop now, not at the
			// next tick.
			r.writeStop(now)
			r.logRejected(err)
			res.err = err
		} else {
			res.cmd = api.CmdReply{Success: true, Message: "accepted"}
		}
		if b := r.gate.BlockReason(now); b != "" {
			res.cmd.Blocked = b
			if res.err == nil {
				res.cmd.Message = "accepted; wheels held: " + b
			}
		}
	case reqBadCmd:
		r.badCmds++
		r.lastBadCmd = fmt.Sprintf("%s: %s", q.peer, q.reason)
		// Stop the wheels: a sender that produces garbage must not leave them on its last good command.
		if r.gate.SetCmd(q.in, kinematics.Twist{}, q.at, motion.SourceSoftware) == nil {
			r.writeStop(now)
		}
		r.afterCommand(now)
		if r.badCmds == 1 || r.badCmds%100 == 0 {
			r.log.Warn("malformed velocity command; wheels stopped", "from", q.peer.String(), "input", q.in.String(), "why", q.reason, "count", r.badCmds)
		}
	case reqCmdStream:
		d := 1
		if !q.on {
			d = -1
		}
		r.notePublisher(q.peer, q.in, time.Time{}, false, d)
	case reqEStop:
		reason := "estop request from " + q.peer.String()
		if q.reason != "" {
			reason += ": " + q.reason
		}
		was := r.gate.Status().EStop
		r.trip(reason)
		if was == "" {
			res.reply = api.Reply{Success: true, Message: "e-stop latched: " + reason}
		} else {
			res.reply = api.Reply{Success: true, Message: "e-stop already latched (" + was + ")"}
		}
	case reqEnable:
		res.reply = r.enable(q.on, q.peer, now)
		r.afterCommand(now)
	case reqReset:
		was := r.gate.Reset()
		if was == "" {
			was = "none"
		}
		res.reply = api.Reply{Success: true, Message: fmt.Sprintf("e-stop cleared (was: %s); motion still disabled", was)}
		r.log.Info(res.reply.Message, "from", q.peer.String())
	case reqScan:
		r.gate.Sensed(q.at)
		r.scanRate.add(q.at)
		r.armDeadline(now)
	case reqScanStream:
		if q.on {
			r.scanStreams[q.peer.PID]++
			r.log.Info("LiDAR reader connected", "reader", q.peer.String())
		} else {
			if r.scanStreams[q.peer.PID]--; r.scanStreams[q.peer.PID] <= 0 {
				delete(r.scanStreams, q.peer.PID)
			}
			r.log.Info("LiDAR reader disconnected", "reader", q.peer.String())
		}
	case reqState:
		res.state = r.state(now)
	case reqContactMode:
		res.reply = r.onContactMode(q, now)
	case reqSetParams:
		res = r.onSetParams(q, now)
	case reqStopsAck:
		res.reply = r.stopsAck(q.peer, now)
	}
	if q.reply != nil {
		q.reply <- res
	}
}

// enable is the seed's on_enable without the arm: enable(true) refused while latched; enable(false) writes the
// stop frame at once.
func (r *loopState) enable(on bool, p api.Peer, now time.Time) api.Reply {
	if on {
		// The stop monitor's hold (mode hold, an unacknowledged ERROR): the stops have got worse than the
		// evidence allows; a person with the safety role looks before the wheels turn again.
		if ok, why := r.stops.mon.CanEnable(); !ok {
			rep := api.Reply{Message: "refused: " + why}
			r.log.Warn(fmt.Sprintf("enable(%v) -> %s", on, rep.Message), "from", p.String())
			return rep
		}
	}
	err := r.gate.Enable(on)
	var rep api.Reply
	switch {
	case !on:
		r.writeStop(now)
		r.charger.SetWheels(false, now) // plug detection ignores the motor-stop transient from here
		rep = api.Reply{Success: true, Message: "disabled"}
	case err == nil:
		r.charger.SetWheels(true, now)
		rep = api.Reply{Success: true, Message: "enabled"}
	case errors.Is(err, motion.ErrLatched):
		rep = api.Reply{Message: "refused: e-stop latched (" + r.gate.Status().EStop + ")"}
	default:
		rep = api.Reply{Message: "refused: " + err.Error()}
	}
	r.log.Info(fmt.Sprintf("enable(%v) -> %s", on, rep.Message), "from", p.String())
	return rep
}

func (r *loopState) logRejected(err error) {
	n := r.gate.Snapshot(r.clk.Now()).Rejected
	if n == 1 || n%100 == 0 {
		r.log.Warn("velocity command refused; wheels stopped", "err", err, "count", n)
	}
}
