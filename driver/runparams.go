package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/rosorin/rosorin/internal/procfs"

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
	if err == nil {
		err = r.applyRunConfig(next)
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
	r.rp.cur = next
	view := configView(next)
	r.cfgView.Store(&view)
	r.saveRunParams(now)
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

// applyRunConfig puts a configuration that config.SetRuntime accepted in force: the gate's limits, the pad's
// speeds, the state record's summary. Nothing changes when it fails.
func (r *loopState) applyRunConfig(next config.Config) error {
	np, err := paramsFrom(next)
	if err == nil {
		err = r.gate.SetLimits(np.limits)
	}
	if err != nil {
		return err
	}
	_ = r.pad.SetMaxSpeeds(np.pad.MaxLinear, np.pad.MaxAngular) // validated by paramsFrom
	r.p.limits, r.p.pad, r.p.summary = np.limits, np.pad, np.summary
	return nil
}

// Runtime parameters survive a driver restart within one service (issue 31): a limit tightened at run time
// must not loosen again because the driver crashed, hung or lost its port and its supervisor started another.
// The overrides (the runtime values that differ from the parameter file's) are kept in RunParamsFileName,
// tagged with the supervisor's pid and its start time (/proc/PID/stat field 22, which tells it from a later
// process with the same pid). A driver started by the same supervisor applies them again, checked again as a
// runtime set against the file's values (tighten only, Validate); a new service start (another supervisor)
// removes them: a restart of the service returns to the parameter file, as the operator expects. Without a
// supervisor (SupervisorPID 0) nothing is kept.

// RunParamsFileName is the overrides' file in the state directory.
const RunParamsFileName = "runtime-params.json"

// runParamsFormat is its format version.
const runParamsFormat = 1

type runParamsRecord struct {
	Version         int                        `json:"version"`
	SupervisorPID   int                        `json:"supervisor_pid"`
	SupervisorStart uint64                     `json:"supervisor_start_ticks"`
	Time            time.Time                  `json:"time"`
	Values          map[string]json.RawMessage `json:"values"`
}

func (r *loopState) runParamsPath() string {
	if r.o.StateDir == "" {
		return ""
	}
	return filepath.Join(r.o.StateDir, RunParamsFileName)
}

// supervisorIdentity is the supervisor's pid and start time, ok false when there is none or it cannot be read.
func (r *loopState) supervisorIdentity() (pid int, start uint64, ok bool) {
	if r.o.SupervisorPID <= 0 {
		return 0, 0, false
	}
	if r.supStart == 0 {
		st, err := procfs.ReadStat(r.o.SupervisorPID)
		if err != nil || st.Start == 0 {
			return 0, 0, false
		}
		r.supStart = st.Start
	}
	return r.o.SupervisorPID, r.supStart, true
}

// runOverrides returns the runtime parameters of cur that differ from the start configuration, as JSON values.
func runOverrides(start, cur config.Config) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, p := range config.Params() {
		if !p.Runtime {
			continue
		}
		v, _ := cur.Value(p.Name)
		s, _ := start.Value(p.Name)
		if reflect.DeepEqual(v, s) {
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			out[p.Name] = b
		}
	}
	return out
}

// saveRunParams hands the overrides in force to the persister (in the loop: no file I/O here).
func (r *loopState) saveRunParams(now time.Time) {
	path := r.runParamsPath()
	pid, start, ok := r.supervisorIdentity()
	if path == "" || !ok || r.persist == nil {
		return
	}
	ov := runOverrides(r.o.Config, r.rp.cur)
	if len(ov) == 0 {
		r.persist.putParams(paramsJob{path: path}) // back to the file's values: nothing to keep
		return
	}
	b, err := json.Marshal(runParamsRecord{Version: runParamsFormat, SupervisorPID: pid, SupervisorStart: start,
		Time: r.wall(now).UTC(), Values: ov})
	if err != nil {
		r.log.Error("runtime parameters not kept", "err", err)
		return
	}
	r.persist.putParams(paramsJob{path: path, data: append(b, '\n')})
}

// loadRunParams applies the overrides kept by a driver of the same supervisor (at start, before the loop runs).
// Overrides of another supervisor are removed. A value the parameter file no longer allows (it was tightened
// below it) is dropped with a warning; the others are applied.
func (r *loopState) loadRunParams() error {
	path := r.runParamsPath()
	if path == "" || r.o.SupervisorPID <= 0 {
		return nil
	}
	r.supervisorIdentity() // read /proc here, at start, not later in the loop
	b, err := readFileLimit(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var rec runParamsRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Version != runParamsFormat {
		r.dropRunParams = true
		return fmt.Errorf("%s: not a runtime parameter record of version %d (removed): %v", path, runParamsFormat, err)
	}
	pid, start, ok := r.supervisorIdentity()
	if !ok || rec.SupervisorPID != pid || rec.SupervisorStart != start {
		r.log.Info("runtime parameters of an earlier service start dropped: the parameter file's values are in force",
			"file", path, "their_supervisor", rec.SupervisorPID, "this_supervisor", r.o.SupervisorPID)
		r.dropRunParams = true // removed by the persister, off the start path (an fsync)
		return nil
	}
	raw, _ := json.Marshal(rec.Values)
	set, err := config.DecodeValues(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(set) == 0 {
		return nil
	}
	next, err := config.SetRuntime(r.o.Config, r.o.Config, set)
	if err != nil {
		// One by one: keep what the parameter file still allows.
		next = r.o.Config
		var dropped []string
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c, err := config.SetRuntime(r.o.Config, next, map[string]any{n: set[n]})
			if err != nil {
				dropped = append(dropped, oneLine(err))
				continue
			}
			next = c
		}
		r.log.Warn("runtime parameters of the previous driver partly refused", "refused", strings.Join(dropped, "; "))
	}
	if err := r.applyRunConfig(next); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r.rp = runParams{cur: next, init: true}
	view := configView(next)
	r.cfgView.Store(&view)
	var names []string
	for n, v := range next.Values() {
		if s, _ := r.o.Config.Value(n); !reflect.DeepEqual(s, v) {
			names = append(names, fmt.Sprintf("%s=%v", n, v))
		}
	}
	sort.Strings(names)
	r.log.Warn("runtime parameters of the previous driver under this supervisor applied again (tighter than the parameter file)",
		"values", strings.Join(names, ", "), "file", path)
	return nil
}
