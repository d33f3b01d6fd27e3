package ros2

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// The node's parameters as an rclcpp node serves them (docs/ros2.md, "Parameters"): the six rcl_interfaces
// services under ~/ and /parameter_events. The table, the values and every rule are the driver's (GET
// /v1/params, POST /v1/config); the bridge translates and keeps a copy for the gets.

// ParamEventsQoS is rclcpp's rmw_qos_profile_parameter_events: reliable, volatile, keep last 1000.
var ParamEventsQoS = dds.QoS{Reliable: true, Depth: 1000}

// ParamPoll is how often the bridge reads the driver's table: a value set through the socket, or reset by a
// driver restart, shows on /parameter_events within this time.
const ParamPoll = time.Second

// paramServer serves the parameters.
type paramServer struct {
	b                                          *Bridge
	list, get, types, describe, set, setAtomic *ServiceServer
	events                                     *Publisher

	mu        sync.Mutex // held across a set, so a poll never reports the set's change a second time
	table     []api.ParamInfo
	byName    map[string]int
	announced bool // the new_parameters event is out
}

func newParamServer(b *Bridge) (*paramServer, error) {
	ps := &paramServer{b: b}
	var err error
	for _, s := range []struct {
		p       **ServiceServer
		name, t string
	}{
		{&ps.list, "~/list_parameters", rosmsg.SrvListParameters},
		{&ps.get, "~/get_parameters", rosmsg.SrvGetParameters},
		{&ps.types, "~/get_parameter_types", rosmsg.SrvGetParameterTypes},
		{&ps.describe, "~/describe_parameters", rosmsg.SrvDescribeParameters},
		{&ps.set, "~/set_parameters", rosmsg.SrvSetParameters},
		{&ps.setAtomic, "~/set_parameters_atomically", rosmsg.SrvSetParametersAtomically},
	} {
		if *s.p, err = b.node.Service(s.name, s.t); err != nil {
			return nil, err
		}
	}
	if ps.events, err = b.node.Publisher("/parameter_events", "rcl_interfaces/msg/ParameterEvent", ParamEventsQoS); err != nil {
		return nil, err
	}
	return ps, nil
}

// addReaders appends the services' request readers and their handlers to Run's lists.
func (ps *paramServer) addReaders(rs []*dds.Reader, hs []func(dds.Sample)) ([]*dds.Reader, []func(dds.Sample)) {
	rs = append(rs, ps.list.Req, ps.get.Req, ps.types.Req, ps.describe.Req, ps.set.Req, ps.setAtomic.Req)
	hs = append(hs, ps.onList, ps.onGet, ps.onTypes, ps.onDescribe, ps.onSet, ps.onSetAtomic)
	return rs, hs
}

// run publishes every parameter as new_parameters once the driver has answered, then polls the driver's
// table and publishes what changed (a set through the socket, a restarted driver). /parameter_events is
// volatile: a reader matched after a sample never gets it, so the first one waits (at most ParamAnnounceWait)
// for the readers already on the graph to match the new writer.
func (ps *paramServer) run(ctx context.Context) {
	clk := ps.b.cfg.Clock
	for end := clk.Now().Add(ParamAnnounceWait); clk.Now().Before(end); {
		if n, err := ps.events.Matched(); err != nil || n > 0 {
			break
		}
		if clk.Sleep(ctx, 20*time.Millisecond) != nil {
			return
		}
	}
	t := clk.NewTicker(ParamPoll)
	defer t.Stop()
	for {
		ps.refresh(ctx)
		ps.announce()
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
	}
}

// ParamAnnounceWait bounds the wait of the first /parameter_events sample for a matched reader.
const ParamAnnounceWait = 2 * time.Second

// announce publishes the whole table as new_parameters, once.
func (ps *paramServer) announce() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.announced || ps.table == nil {
		return
	}
	ps.announced = true
	var ev rosmsg.ParameterEvent
	for _, p := range ps.table {
		ev.NewParameters = append(ev.NewParameters, rosmsg.Parameter{Name: p.Name, Value: rosValue(p.Type, p.Value)})
	}
	ps.publish(&ev)
}

// refresh reads the table; once announced, it publishes the values that differ from the copy.
func (ps *paramServer) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	tab, err := ps.b.c.Params(ctx)
	if err != nil {
		return // the driver is away; the next poll retries
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var ev rosmsg.ParameterEvent
	for _, p := range tab {
		if i, ok := ps.byName[p.Name]; ps.announced && (!ok || !sameValue(p.Type, ps.table[i].Value, p.Value)) {
			ev.ChangedParameters = append(ev.ChangedParameters, rosmsg.Parameter{Name: p.Name, Value: rosValue(p.Type, p.Value)})
		}
	}
	ps.setTable(tab)
	ps.publish(&ev)
}

func (ps *paramServer) setTable(tab []api.ParamInfo) {
	tab = append(tab[:len(tab):len(tab)], BridgeParams(ps.b.cfg.AllowGraphEnable, ps.b.cfg.AllowGraphReset)...)
	ps.table = tab
	ps.byName = make(map[string]int, len(tab))
	for i, p := range tab {
		ps.byName[p.Name] = i
	}
}

func (ps *paramServer) publish(ev *rosmsg.ParameterEvent) {
	if len(ev.NewParameters)+len(ev.ChangedParameters)+len(ev.DeletedParameters) == 0 {
		return
	}
	ev.Stamp = rosmsg.TimeFromNanos(ps.b.cfg.Clock.Now().UnixNano())
	ev.Node = ps.b.node.Resolve("~")
	if err := ps.events.Publish(ev); err != nil {
		ps.b.Stats.PublishErrors.Add(1)
		return
	}
	ps.b.Stats.Published.Add(1)
}

// snapshot returns the table, reading it from the driver first if the bridge has none yet.
func (ps *paramServer) snapshot() []api.ParamInfo {
	ps.mu.Lock()
	tab := ps.table
	ps.mu.Unlock()
	if tab == nil {
		ps.refresh(context.Background())
		ps.mu.Lock()
		tab = ps.table
		ps.mu.Unlock()
	}
	return tab
}

// BridgeParams are the bridge's own parameters, served after the driver's: read at the bridge's start only.
func BridgeParams(allowEnable, allowReset bool) []api.ParamInfo {
	return []api.ParamInfo{
		{Name: ParamAllowGraphEnable, Type: "bool", ReadOnly: true, Value: allowEnable, Start: allowEnable,
			Description: "the bridge's: ~/enable with data true (turn motion on) is served from the ROS graph; false (the default): refused with the reason, as anyone on the domain could call it without DDS security (disabling is always served)"},
		{Name: ParamAllowGraphReset, Type: "bool", ReadOnly: true, Value: allowReset, Start: allowReset,
			Description: "the bridge's: ~/reset_estop (clear the e-stop latch) is served from the ROS graph; false (the default): refused with the reason, as anyone on the domain could call it without DDS security"},
	}
}

// bridgeParamHow says how a bridge parameter is set (at the bridge's start).
func bridgeParamHow(name string) string {
	env, flag := AllowGraphEnableEnv, "--allow-graph-enable"
	if name == ParamAllowGraphReset {
		env, flag = AllowGraphResetEnv, "--allow-graph-reset"
	}
	return fmt.Sprintf("%s=1 in the service's environment, rosorin-ros2 %s, or rosorin-ros2 --ros-args -p %s:=true", env, flag, name)
}

func isBridgeParam(name string) bool {
	return name == ParamAllowGraphEnable || name == ParamAllowGraphReset
}

func find(tab []api.ParamInfo, name string) (api.ParamInfo, bool) {
	for _, p := range tab {
		if p.Name == name {
			return p, true
		}
	}
	return api.ParamInfo{}, false
}

// rosType is the ParameterType of the driver's type names.
func rosType(t string) uint8 {
	switch t {
	case "bool":
		return rosmsg.ParameterBool
	case "integer":
		return rosmsg.ParameterInteger
	case "double":
		return rosmsg.ParameterDouble
	case "string":
		return rosmsg.ParameterString
	case "double_array":
		return rosmsg.ParameterDoubleArray
	}
	return rosmsg.ParameterNotSet
}

// rosValue converts a value of the driver's JSON (numbers are float64, arrays []any) to a ParameterValue.
func rosValue(typ string, v any) rosmsg.ParameterValue {
	pv := rosmsg.ParameterValue{Type: rosType(typ)}
	switch pv.Type {
	case rosmsg.ParameterBool:
		pv.Bool, _ = v.(bool)
	case rosmsg.ParameterInteger:
		f, _ := v.(float64)
		pv.Integer = int64(f)
	case rosmsg.ParameterDouble:
		pv.Double, _ = v.(float64)
	case rosmsg.ParameterString:
		pv.String, _ = v.(string)
	case rosmsg.ParameterDoubleArray:
		a, _ := v.([]any)
		pv.DoubleArray = make([]float64, len(a))
		for i, x := range a {
			pv.DoubleArray[i], _ = x.(float64)
		}
	}
	return pv
}

func sameValue(typ string, a, b any) bool {
	x, y := rosValue(typ, a), rosValue(typ, b)
	return string(cdr.Marshal(&x)) == string(cdr.Marshal(&y))
}

// driverValue converts a ParameterValue to the JSON value POST /v1/config takes, or says why it cannot be
// parameter p's value (rclcpp's words for a statically typed parameter).
func driverValue(p api.ParamInfo, v rosmsg.ParameterValue) (any, string) {
	if want := rosType(p.Type); v.Type != want {
		return nil, fmt.Sprintf("Wrong parameter type, parameter {%s} is of type {%s}, setting it to {%s} is not allowed.",
			p.Name, p.Type, rosmsg.ParameterTypeName(v.Type))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch v.Type {
	case rosmsg.ParameterBool:
		return v.Bool, ""
	case rosmsg.ParameterInteger:
		return v.Integer, ""
	case rosmsg.ParameterDouble:
		if !finite(v.Double) {
			return nil, fmt.Sprintf("parameter %s: %v is not a finite number", p.Name, v.Double)
		}
		return v.Double, ""
	case rosmsg.ParameterString:
		return v.String, ""
	case rosmsg.ParameterDoubleArray:
		for _, x := range v.DoubleArray {
			if !finite(x) {
				return nil, fmt.Sprintf("parameter %s: %v is not a finite number", p.Name, x)
			}
		}
		return v.DoubleArray, ""
	}
	return nil, fmt.Sprintf("parameter %s: type %s is not supported", p.Name, rosmsg.ParameterTypeName(v.Type))
}

// check is what the bridge refuses before asking the driver: an unknown name, a read-only parameter, a
// wrong type. The driver checks all of it again, and the limits.
func check(tab []api.ParamInfo, prm rosmsg.Parameter) (any, string) {
	p, ok := find(tab, prm.Name)
	switch {
	case tab == nil:
		return nil, "the driver does not answer on its control socket; nothing was set"
	case !ok:
		return nil, fmt.Sprintf("parameter '%s' is not declared by %s; nothing was set", prm.Name, NodeName)
	case p.ReadOnly && isBridgeParam(p.Name):
		return nil, fmt.Sprintf("parameter '%s' cannot be set because it is read-only: the bridge reads it only at start (%s); restart the bridge",
			prm.Name, bridgeParamHow(p.Name))
	case p.ReadOnly:
		return nil, fmt.Sprintf("parameter '%s' cannot be set because it is read-only: the driver reads it only at start; "+
			"change it in the parameter file and restart", prm.Name)
	}
	return driverValue(p, prm.Value)
}

// apply sends values to the driver (all or nothing) and, when accepted, updates the copy and publishes them
// as changed_parameters. Called with ps.mu held.
func (ps *paramServer) apply(values map[string]any, prms []rosmsg.Parameter) rosmsg.SetParametersResult {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := ps.b.c.SetParams(ctx, values)
	if err != nil {
		ps.b.Stats.DriverErrors.Add(1)
		return rosmsg.SetParametersResult{Reason: "driver unreachable, nothing was set: " + err.Error()}
	}
	if !r.Success {
		return rosmsg.SetParametersResult{Reason: r.Message}
	}
	for n, v := range r.Changed {
		if i, ok := ps.byName[n]; ok {
			ps.table[i].Value = v
		}
	}
	ps.publish(&rosmsg.ParameterEvent{ChangedParameters: prms})
	return rosmsg.SetParametersResult{Successful: true}
}

// request splits and decodes a service request; a malformed one is counted, logged and dropped.
func (ps *paramServer) request(s dds.Sample, srv *ServiceServer, m cdr.Unmarshaler) ([RequestHeaderLen]byte, bool) {
	b := ps.b
	b.Stats.Requests.Add(1)
	hdr, body, err := SplitRequest(s.Data)
	if err == nil {
		err = cdr.Unmarshal(body, m)
	}
	if err != nil {
		b.Stats.RequestsBad.Add(1)
		b.log.Warn("malformed parameter request dropped", "service", srv.Name, "err", err, "bytes", len(s.Data))
		return hdr, false
	}
	return hdr, true
}

// serve answers one service request: q decoded from s (a malformed request is counted, logged and dropped),
// then answer's response sent with the request's header.
func (ps *paramServer) serve(s dds.Sample, srv *ServiceServer, q cdr.Unmarshaler, answer func() cdr.Marshaler) {
	if hdr, ok := ps.request(s, srv, q); ok {
		ps.b.reply(srv, hdr, answer())
	}
}

func (ps *paramServer) onList(s dds.Sample) {
	var q rosmsg.ListParametersRequest
	ps.serve(s, ps.list, &q, func() cdr.Marshaler {
		var names []string
		for _, p := range ps.snapshot() {
			names = append(names, p.Name)
		}
		return &rosmsg.ListParametersResponse{Result: ListParameters(names, q.Prefixes, q.Depth)}
	})
}

// ListParameters is rclcpp's list_parameters: names matching a prefix (the name itself or "prefix." and
// more), at most depth levels below it (0: any), and the prefixes ("a.b" of "a.b.c") of the names listed.
func ListParameters(names, prefixes []string, depth uint64) rosmsg.ListParametersResult {
	var res rosmsg.ListParametersResult
	within := func(s string) bool {
		return depth == rosmsg.ListParametersDepthRecursive || uint64(strings.Count(s, ".")) < depth
	}
	for _, n := range names {
		ok := len(prefixes) == 0 && within(n)
		for _, p := range prefixes {
			if n == p || (strings.HasPrefix(n, p+".") && within(n[len(p):])) {
				ok = true
			}
		}
		if !ok {
			continue
		}
		res.Names = append(res.Names, n)
		if i := strings.LastIndex(n, "."); i >= 0 {
			pre := n[:i]
			found := false
			for _, x := range res.Prefixes {
				found = found || x == pre
			}
			if !found {
				res.Prefixes = append(res.Prefixes, pre)
			}
		}
	}
	return res
}

// perName is what get_parameters, get_parameter_types and describe_parameters answer, as rclcpp does: one
// entry per name, or none at all when a name is not declared (rclcpp's ParameterNotDeclaredException).
func perName[T any](tab []api.ParamInfo, names []string, entry func(api.ParamInfo) T) []T {
	var out []T
	for _, n := range names {
		p, ok := find(tab, n)
		if !ok {
			return nil
		}
		out = append(out, entry(p))
	}
	return out
}

func (ps *paramServer) onGet(s dds.Sample) {
	q := rosmsg.NamesRequest{Srv: rosmsg.SrvGetParameters}
	ps.serve(s, ps.get, &q, func() cdr.Marshaler {
		return &rosmsg.GetParametersResponse{Values: perName(ps.snapshot(), q.Names, func(p api.ParamInfo) rosmsg.ParameterValue {
			return rosValue(p.Type, p.Value)
		})}
	})
}

func (ps *paramServer) onTypes(s dds.Sample) {
	q := rosmsg.NamesRequest{Srv: rosmsg.SrvGetParameterTypes}
	ps.serve(s, ps.types, &q, func() cdr.Marshaler {
		return &rosmsg.GetParameterTypesResponse{Types: perName(ps.snapshot(), q.Names, func(p api.ParamInfo) uint8 { return rosType(p.Type) })}
	})
}

func (ps *paramServer) onDescribe(s dds.Sample) {
	q := rosmsg.NamesRequest{Srv: rosmsg.SrvDescribeParameters}
	ps.serve(s, ps.describe, &q, func() cdr.Marshaler {
		return &rosmsg.DescribeParametersResponse{Descriptors: perName(ps.snapshot(), q.Names, Descriptor)}
	})
}

// Descriptor is parameter p's ParameterDescriptor: read-only for the start-only ones; for a limit, the range
// a runtime set may use (up to the start value) and the rule in additional_constraints.
func Descriptor(p api.ParamInfo) rosmsg.ParameterDescriptor {
	d := rosmsg.ParameterDescriptor{Name: p.Name, Type: rosType(p.Type), Description: p.Description, ReadOnly: p.ReadOnly}
	switch {
	case p.ReadOnly && isBridgeParam(p.Name):
		d.AdditionalConstraints = "read at the bridge's start only: " + bridgeParamHow(p.Name)
	case p.ReadOnly:
		d.AdditionalConstraints = "read at start only: change it in the parameter file and restart"
	case p.Limit:
		start, _ := p.Start.(float64)
		d.AdditionalConstraints = fmt.Sprintf("safety limit: a runtime set may tighten it (> 0 and <= %v, the start value), "+
			"never weaken it beyond the start value", start)
		if p.Name == "scan_timeout" {
			if start == 0 {
				d.AdditionalConstraints = "scan gate off at start (0): a runtime set may turn it on (> 0) and off again"
				break
			}
			d.AdditionalConstraints += "; 0 (scan gate off) is refused"
		}
		d.FloatingPointRange = []rosmsg.FloatingPointRange{{FromValue: 0, ToValue: start}}
	}
	return d
}

// onSet is set_parameters: each parameter on its own, one result each.
func (ps *paramServer) onSet(s dds.Sample) {
	q := rosmsg.SetParametersRequest{Srv: rosmsg.SrvSetParameters}
	ps.serve(s, ps.set, &q, func() cdr.Marshaler {
		tab := ps.snapshot()
		var resp rosmsg.SetParametersResponse
		ps.mu.Lock()
		for _, prm := range q.Parameters {
			v, why := check(tab, prm)
			if why != "" {
				resp.Results = append(resp.Results, rosmsg.SetParametersResult{Reason: why})
				continue
			}
			resp.Results = append(resp.Results, ps.apply(map[string]any{prm.Name: v}, []rosmsg.Parameter{prm}))
		}
		ps.mu.Unlock()
		ps.logSets(q.Parameters, resp.Results)
		return &resp
	})
}

// onSetAtomically is set_parameters_atomically: all or nothing.
func (ps *paramServer) onSetAtomic(s dds.Sample) {
	q := rosmsg.SetParametersRequest{Srv: rosmsg.SrvSetParametersAtomically}
	ps.serve(s, ps.setAtomic, &q, func() cdr.Marshaler {
		res := ps.setAll(q.Parameters)
		ps.logSets(q.Parameters, []rosmsg.SetParametersResult{res})
		return &rosmsg.SetParametersAtomicallyResponse{Result: res}
	})
}

// setAll sets prms all together or none of them (set_parameters_atomically).
func (ps *paramServer) setAll(prms []rosmsg.Parameter) rosmsg.SetParametersResult {
	if len(prms) == 0 {
		return rosmsg.SetParametersResult{Successful: true} // rclcpp: nothing to set is a success
	}
	tab := ps.snapshot()
	values := map[string]any{}
	var whys []string
	seen := map[string]bool{}
	for _, prm := range prms {
		v, why := check(tab, prm)
		if seen[prm.Name] {
			why = fmt.Sprintf("parameter '%s' given twice", prm.Name)
		}
		seen[prm.Name] = true
		if why != "" {
			whys = append(whys, why)
			continue
		}
		values[prm.Name] = v
	}
	if len(whys) > 0 {
		sort.Strings(whys)
		return rosmsg.SetParametersResult{Reason: "nothing was set: " + strings.Join(whys, "; ")}
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.apply(values, prms)
}

func (ps *paramServer) logSets(prms []rosmsg.Parameter, res []rosmsg.SetParametersResult) {
	names := make([]string, len(prms))
	for i, p := range prms {
		names[i] = p.Name
	}
	for _, r := range res {
		if !r.Successful {
			ps.b.log.Info("parameter set refused", "parameters", strings.Join(names, ","), "reason", r.Reason)
			return
		}
	}
	if len(prms) > 0 {
		ps.b.log.Info("parameters set", "parameters", strings.Join(names, ","))
	}
}
