//go:build ros2 && linux && cgo

package ros2_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// stopsWatch reads ~/stops with the C peer's reader (Cyclone's types and serializer) while a test drives and
// stops the robot: each stop the test made must come as one api.StopRecord of its kind, timed in its window.
type stopsWatch struct {
	p     *peer
	from  int // the peer's lines from the reader's creation
	stops []stopWindow
}

// stopWindow is one stop the test made: its kind, the driver's reason ("" for any), the commanded forward
// speed, and where its trigger must be on the test's wall clock and on the driver's uptime.
type stopWindow struct {
	kind, reason string
	vx           float64
	wall0, wall1 time.Time
	up0, up1     float64
}

// watchStops gives the rig's C peer a ~/stops reader (reader 1).
func watchStops(t *testing.T, p *peer) *stopsWatch {
	w := &stopsWatch{p: p, from: p.mark()}
	p.send(t, "stops")
	return w
}

// stopped notes a stop at forward speed vx asked at t0 and shown by state s, read at t1: the trigger is after
// t0 and no later than s.
func (w *stopsWatch) stopped(kind string, vx float64, t0, t1 time.Time, s api.State) {
	sw := stopWindow{kind: kind, vx: vx, wall0: t0, wall1: t1, up0: s.UptimeS - t1.Sub(t0).Seconds(), up1: s.UptimeS}
	if s.EStop != nil {
		sw.reason = *s.EStop
	}
	w.stops = append(w.stops, sw)
}

// The slack of the windows: the state's uptime is rounded to 1 ms; the driver's wall clock is this machine's.
const (
	stopUpSlack   = 0.01
	stopWallSlack = 50 * time.Millisecond
)

// stopData is the JSON of a peer line "stops K JSON".
func stopData(l string) string {
	f := strings.SplitN(l, " ", 3)
	if len(f) < 3 {
		return ""
	}
	return f[2]
}

// judgeStop decodes data as exactly one api.StopRecord (no field it lacks: another topic's JSON fails) and
// checks it is sw's stop.
func judgeStop(data string, sw stopWindow) (api.StopRecord, error) {
	var rec api.StopRecord
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("not a stop record: %v", err)
	}
	if dec.More() {
		return rec, fmt.Errorf("not one stop record: data after it")
	}
	var errs []string
	bad := func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) }
	if rec.Kind != sw.kind {
		bad("kind %q, want %q", rec.Kind, sw.kind)
	}
	if sw.reason != "" && rec.Reason != sw.reason {
		bad("reason %q, want the latched %q", rec.Reason, sw.reason)
	}
	if rec.Seq == 0 || rec.Boot == "" {
		bad("seq %d boot %q: not a logged record", rec.Seq, rec.Boot)
	}
	if rec.Wall.Before(sw.wall0.Add(-stopWallSlack)) || rec.Wall.After(sw.wall1.Add(stopWallSlack)) {
		bad("trigger at %s, not within the stop's %s..%s", rec.Wall.Format(time.StampMicro),
			sw.wall0.Format(time.StampMicro), sw.wall1.Format(time.StampMicro))
	}
	if rec.UptimeS < sw.up0-stopUpSlack || rec.UptimeS > sw.up1+stopUpSlack {
		bad("trigger at uptime %.3f s, not within %.3f..%.3f", rec.UptimeS, sw.up0, sw.up1)
	}
	if v := rec.BodyVel; !(v[0] > 0 && v[0] <= sw.vx+1e-9) || v[1] != 0 || v[2] != 0 || rec.Direction != "fwd" || rec.Speed != v[0] {
		bad("body_vel %v speed %v direction %q, want forward up to the commanded %v m/s", v, rec.Speed, rec.Direction, sw.vx)
	}
	if rec.Outcome == "" || rec.Confidence == "" {
		bad("outcome %q confidence %q: not judged", rec.Outcome, rec.Confidence)
	}
	if errs != nil {
		return rec, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return rec, nil
}

// inWindow reports whether data is a record whose trigger is in sw's window (the judge says the rest).
func inWindow(data string, sw stopWindow) bool {
	var rec api.StopRecord
	return json.Unmarshal([]byte(data), &rec) == nil &&
		!rec.Wall.Before(sw.wall0.Add(-stopWallSlack)) && !rec.Wall.After(sw.wall1.Add(stopWallSlack))
}

// check waits for the record of each stop noted (the driver publishes it when the judges' window ends: 0.3 s
// after the next motion, at the latest 4.35 s after the trigger), judges it, and then makes a late reader
// (reader 2), which must get the last record at once (transient local, depth 1).
func (w *stopsWatch) check(t *testing.T) {
	t.Helper()
	dump := func() string {
		var b bytes.Buffer
		w.p.mu.Lock()
		defer w.p.mu.Unlock()
		for _, l := range w.p.lines[w.from:] {
			if strings.HasPrefix(l, "stops ") || strings.HasPrefix(l, "refused ") || strings.HasPrefix(l, "error ") {
				fmt.Fprintln(&b, l)
			}
		}
		return b.String()
	}
	var seq uint64
	for i, sw := range w.stops {
		l, ok := w.p.waitLine(w.from, "stops 1 ", 5*time.Second, func(l string) bool { return inWindow(stopData(l), sw) })
		if !ok {
			t.Fatalf("stop %d (%s): no ~/stops record of it on the C peer's reader in 5 s; its lines:\n%s", i, sw.kind, dump())
		}
		rec, err := judgeStop(stopData(l), sw)
		if err != nil {
			t.Errorf("stop %d (%s): %v\n%s", i, sw.kind, err, l)
			continue
		}
		if rec.Seq <= seq {
			t.Errorf("stop %d: seq %d after %d", i, rec.Seq, seq)
		}
		seq = rec.Seq
		t.Logf("stop %d over ~/stops: seq %d %s, trigger %.1f ms after the request, %s %s", i, rec.Seq, rec.Kind,
			float64(rec.Wall.Sub(sw.wall0).Microseconds())/1000, rec.Outcome, rec.Confidence)
	}
	last := ""
	w.p.mu.Lock()
	for _, l := range w.p.lines[w.from:] {
		if strings.HasPrefix(l, "stops 1 ") {
			last = stopData(l)
		}
	}
	w.p.mu.Unlock()
	m := w.p.mark()
	t0 := time.Now()
	w.p.send(t, "stops")
	l, ok := w.p.waitLine(m, "stops 2 ", 2*time.Second, nil)
	if !ok {
		t.Fatalf("a late ~/stops reader got no record in 2 s (not transient local?); lines:\n%s", dump())
	}
	if got := stopData(l); got != last {
		t.Errorf("the late reader's first record is not the last one:\n got %s\nwant %s", got, last)
	}
	t.Logf("late ~/stops reader: the last record in %d ms", time.Since(t0).Milliseconds())
}

// TestStopRecordJudge: judgeStop refuses what a broken ~/stops would carry (each check can fail).
func TestStopRecordJudge(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	sw := stopWindow{kind: api.StopEStop, reason: "estop request from pid 7 (rosorin-ros2): estop topic (ROS 2)", vx: 0.1,
		wall0: t0, wall1: t0.Add(40 * time.Millisecond), up0: 12.0, up1: 12.04}
	good := api.StopRecord{Seq: 3, Boot: "b pid 7", Wall: t0.Add(5 * time.Millisecond), UptimeS: 12.005, Kind: api.StopEStop,
		Reason: sw.reason, BodyVel: [3]float64{0.1, 0, 0}, Speed: 0.1, Direction: "fwd", Outcome: "NOT JUDGED",
		Confidence: api.ConfidenceInterrupt}
	js := func(f func(*api.StopRecord)) string {
		r := good
		f(&r)
		b, _ := json.Marshal(r)
		return string(b)
	}
	if _, err := judgeStop(js(func(*api.StopRecord) {}), sw); err != nil {
		t.Fatalf("a good record refused: %v", err)
	}
	for name, data := range map[string]string{
		"no kind":        js(func(r *api.StopRecord) { r.Kind = "" }),
		"other kind":     js(func(r *api.StopRecord) { r.Kind = api.StopDeadman }),
		"other reason":   js(func(r *api.StopRecord) { r.Reason = "enable false" }),
		"not logged":     js(func(r *api.StopRecord) { r.Seq = 0 }),
		"wall before":    js(func(r *api.StopRecord) { r.Wall = t0.Add(-time.Second) }),
		"wall after":     js(func(r *api.StopRecord) { r.Wall = t0.Add(time.Second) }),
		"uptime":         js(func(r *api.StopRecord) { r.UptimeS = 11 }),
		"not moving":     js(func(r *api.StopRecord) { r.BodyVel, r.Speed = [3]float64{}, 0 }),
		"faster":         js(func(r *api.StopRecord) { r.BodyVel[0], r.Speed = 0.3, 0.3 }),
		"turning":        js(func(r *api.StopRecord) { r.BodyVel[2] = 0.5 }),
		"not judged":     js(func(r *api.StopRecord) { r.Outcome = "" }),
		"state topic":    `{"stamp":"2025-01-02T03:04:05Z","uptime_s":12.01,"enabled":true,"estop":null}`,
		"source topic":   "cmd_vel",
		"two records":    js(func(*api.StopRecord) {}) + js(func(*api.StopRecord) {}),
		"truncated JSON": js(func(*api.StopRecord) {})[:40],
	} {
		if _, err := judgeStop(data, sw); err == nil {
			t.Errorf("%s: judged good: %s", name, data)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
