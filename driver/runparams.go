package driver

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
)

// Runtime parameters (docs/ros2.md, "Parameters"): POST /v1/config decodes the values in the transport's
// goroutine and hands them to the loop, which checks them against the running and start configurations
// (config.SetRuntime: runtime parameters only, tighten only, Validate) and applies them all or none.

var _ api.Parameterizer = (*loopState)(nil)

// reqSetParams is handled by onSetParams.
const reqSetParams reqKind = 101

// runParams is the loop's part: the configuration in force (owned by the loop) and what the transports read.
type runParams struct {
	cur  config.Config
	init bool
}

// Params implements api.Parameterizer (GET /v1/params). It asks the loop for the configuration in force.
func (r *loopState) Params() ([]api.ParamInfo, error) {
	res, err := r.call(withReply(request{kind: reqSetParams}))
	if err != nil {
		return nil, err
	}
	cur, start := res.cfg, r.o.Config
	ps := config.Params()
	out := make([]api.ParamInfo, len(ps))
	for i, p := range ps {
		v, _ := cur.Value(p.Name)
		s, _ := start.Value(p.Name)
		out[i] = api.ParamInfo{Name: p.Name, Type: string(p.Type), Description: p.Description, ReadOnly: p.ReadOnly(),
			Limit: p.Limit, Value: v, Start: s}
	}
	return out, nil
}

// SetParams implements api.Parameterizer (POST /v1/config).
func (r *loopState) SetParams(p api.Peer, body []byte) api.SetParamsReply {
	set, err := config.DecodeValues(body)
	if err != nil {
		return api.SetParamsReply{Message: "refused, nothing changed: " + oneLine(err)}
	}
	if len(set) == 0 {
		return api.SetParamsReply{Message: `refused: nothing to set; send {"name": value, ...}`}
	}
	res, err := r.call(withReply(request{kind: reqSetParams, peer: p, set: set}))
	if err != nil {
		return api.SetParamsReply{Message: "refused, nothing changed: " + err.Error()}
	}
	return res.params
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// onSetParams runs in the loop. A request without values only reads the configuration in force.
func (r *loopState) onSetParams(q request, now time.Time) response {
	if !r.rp.init {
		r.rp = runParams{cur: r.o.Config, init: true}
	}
	if q.set == nil {
		return response{cfg: r.rp.cur}
	}
	next, err := config.SetRuntime(r.o.Config, r.rp.cur, q.set)
	var np params
	if err == nil {
		np, err = paramsFrom(next)
	}
	if err == nil {
		err = r.gate.SetLimits(np.limits)
	}
	if err != nil {
		msg := "refused, nothing changed: " + oneLine(err)
		r.log.Warn("parameter set refused", "from", q.peer.String(), "why", oneLine(err))
		return response{cfg: r.rp.cur, params: api.SetParamsReply{Message: msg}}
	}
	changed := map[string]any{}
	var names []string
	for n, v := range next.Values() {
		if old, _ := r.rp.cur.Value(n); !reflect.DeepEqual(old, v) {
			changed[n] = v
			names = append(names, fmt.Sprintf("%s=%v", n, v))
		}
	}
	sort.Strings(names)
	_ = r.pad.SetMaxSpeeds(np.pad.MaxLinear, np.pad.MaxAngular) // validated by paramsFrom
	r.p.limits, r.p.pad, r.p.summary = np.limits, np.pad, np.summary
	r.rp.cur = next
	view := configView(next)
	r.cfgView.Store(&view)
	// The new limits act now: a lower speed limit lowers the wheels' speed, a shorter timeout moves the deadline.
	r.onDeadline(now)
	msg := "set: " + strings.Join(names, ", ")
	if len(names) == 0 {
		msg = "set: every value was already in force"
	} else {
		r.log.Info("runtime parameters set", "from", q.peer.String(), "values", strings.Join(names, ", "))
	}
	return response{cfg: next, params: api.SetParamsReply{Success: true, Message: msg, Changed: changed}}
}
