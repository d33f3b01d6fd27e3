package driver

// The stop monitor's hold (issue 35) at the driver's level: finished stop records go straight into the
// driver's record path (stopRecorded, where pollStops hands each record the stopwatch judged), and the test
// looks through the driver's own surfaces: the state record's stop_monitor, the enable request's answer, the
// stops ack (POST /v1/stops/ack's handler), the log lines and the stop log. The loop rig's board sends no
// IMU vibration, so stops it makes itself are "no data" and never counted: the records here are made with
// the numbers a judge would give.

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// The stated limit (travel 0.05 m for an e-stop at any speed, no time limit), a record's travel past it and
// the ERROR's why that three such records make (stopmon's rule a, 3 of the last 5).
const (
	holdLimits = "{estop: {max_travel_m: 0.05}}"
	holdWhy    = "3 of the last 3 estop stops past the 0.050 m limit (travel 0.080 m, travel 0.080 m, travel 0.080 m)"
)

// newHoldRig is the loop rig with holdLimits stated and stop_monitor.mode set to mode ("": the default).
func newHoldRig(t *testing.T, mode string) (*loopRig, *logSink) {
	t.Helper()
	sink := &logSink{tb: t}
	t.Cleanup(sink.end)
	g := newLoopRig(t, func(o *Options) {
		o.Log = slog.New(sink)
		o.Config.StopMonitorLimits = holdLimits
		if mode != "" {
			o.Config.StopMonitorMode = mode
		}
	})
	return g, sink
}

// pastStop is a finished e-stop record at 0.2 m/s forward that travelled 0.08 m, past holdLimits, judged
// with confidence conf.
func pastStop(g *loopRig, conf string) api.StopRecord {
	still, travel := 0.4, 0.08
	now := g.clk.Now()
	return api.StopRecord{Wall: now, UptimeS: now.Sub(g.r.start).Seconds(), Kind: api.StopEStop,
		Reason: "estop request from the test", BodyVel: [3]float64{0.2, 0, 0}, Speed: 0.2, Direction: "fwd",
		StillS: &still, StillFrom: "board gyro vibration", TravelM: &travel, Outcome: "PASS", Confidence: conf}
}

// record hands rec to the driver's record path as pollStops does. It runs on the test's goroutine while
// the loop waits: the rig's loop wakes only for what the test sends (a fake clock it ticks, a board that
// never talks, no socket, no scans), the State request before it orders it after all the loop did, and the
// test's next request orders it before all the loop does next (go test -race checks both).
func (g *loopRig) record(rec api.StopRecord) {
	g.t.Helper()
	g.state()
	g.r.stopRecorded(rec)
}

// monitor is the state record's stop_monitor.
func (g *loopRig) monitor() api.StopMonitor {
	g.t.Helper()
	m := g.state().StopMonitor
	if m == nil {
		g.t.Fatal("no stop_monitor in the state record")
	}
	return *m
}

// reEnable disables, then asks for enable: the answer and whether the state record then says enabled are
// that enable request's own (never left over from an earlier one).
func (g *loopRig) reEnable(peer api.Peer) (api.Reply, bool) {
	g.t.Helper()
	if r := g.r.Enable(peer, false); !r.Success {
		g.t.Fatalf("disable: %s", r.Message)
	}
	rep := g.r.Enable(peer, true)
	return rep, g.state().Enabled
}

// enableAccepted fails the test unless an enable request is accepted and the wheels are enabled.
func (g *loopRig) enableAccepted(peer api.Peer, when string) {
	g.t.Helper()
	if rep, on := g.reEnable(peer); !rep.Success || !on {
		g.t.Fatalf("%s: enable refused (%q), state enabled %v; want it accepted", when, rep.Message, on)
	}
}

// stopLog stops the driver and returns its stop log's records.
func (g *loopRig) stopLog() []api.StopRecord {
	g.t.Helper()
	dir := g.r.o.StateDir
	g.stop()
	recs, _, err := stoplog.Read(dir)
	if err != nil {
		g.t.Fatal(err)
	}
	return recs
}

// TestStopMonitorHoldRefusesEnable: in the default mode (hold), two counted e-stops past their limit are
// each a WARN and enable stays accepted; the third is the ERROR (3 of the last 5): the state record says
// holding with the why, an enable request is refused naming it and leaves the wheels disabled; the stops ack
// clears the hold, says who in the state, and enable is accepted again; a second ack has nothing to clear.
// The log lines and the stop log say the same.
func TestStopMonitorHoldRefusesEnable(t *testing.T) {
	g, sink := newHoldRig(t, "")
	peer := api.Peer{PID: os.Getpid(), Comm: "hold-test"}
	if m := g.monitor(); m.Mode != "hold" || m.Level != api.StopLevelOK || m.Holding || m.LimitsSource != "config" {
		t.Fatalf("at start: %+v; want mode hold (the default), level ok, the configured limits", m)
	}
	g.enableAccepted(peer, "before any stop")

	// One and two stops past the limit: each a WARN, no hold.
	for i := 1; i <= 2; i++ {
		g.record(pastStop(g, api.ConfidenceOK))
		m := g.monitor()
		// The why names the stop by the seq the log gave it (it said "seq 0": judged before the log numbered it).
		seq := fmt.Sprintf("the last estop stop (seq %d) was past its limit", i)
		if m.Level != api.StopLevelWarn || m.Holding || m.Counted != uint64(i) || !strings.Contains(m.Why, "travel 0.080 m, limit 0.050 m") ||
			!strings.Contains(m.Why, seq) {
			t.Fatalf("after %d stops past the limit: %+v; want WARN naming the stop (%q) and the travel, not holding, %d counted", i, m, seq, i)
		}
		g.enableAccepted(peer, "after a WARN")
	}
	t.Logf("the WARN's why: %s", g.monitor().Why)

	// The third: the ERROR, and the hold.
	g.record(pastStop(g, api.ConfidenceOK))
	m := g.monitor()
	if m.Level != api.StopLevelError || !m.Holding || m.Counted != 3 ||
		!strings.HasPrefix(m.Why, "holding (enable refused until acknowledged") || !strings.Contains(m.Why, holdWhy) {
		t.Fatalf("after 3 stops past the limit: %+v; want ERROR, holding, the why %q", m, holdWhy)
	}
	rep, on := g.reEnable(peer)
	if rep.Success || on || !strings.Contains(rep.Message, "stop monitor ERROR") || !strings.Contains(rep.Message, holdWhy) {
		t.Fatalf("enable while holding: %+v, state enabled %v; want refused naming %q, the wheels disabled", rep, on, holdWhy)
	}
	t.Logf("enable while holding: %s", rep.Message)

	// The stops ack (POST /v1/stops/ack's handler; its safety role is driver/api's TestRolesRealUIDs').
	if a := g.r.StopsAck(peer); !a.Success || !strings.Contains(a.Message, "acknowledged") {
		t.Fatalf("ack: %+v", a)
	}
	m = g.monitor()
	if m.Holding || m.Level != api.StopLevelOK || !strings.Contains(m.Acked, peer.String()) || !strings.Contains(m.Acked, holdWhy) {
		t.Fatalf("after the ack: %+v; want not holding, level ok, acked by %s for %q", m, peer, holdWhy)
	}
	g.enableAccepted(peer, "after the ack")
	if a := g.r.StopsAck(peer); !a.Success || !strings.Contains(a.Message, "nothing to acknowledge") {
		t.Fatalf("second ack: %+v; want nothing to acknowledge", a)
	}

	// The log lines and the stop log.
	for _, c := range []struct {
		line string
		n    int
	}{
		{"past its limit (WARN)", 2},
		{"past its limit (ERROR)", 1},
		{"enable(true) -> refused: stop monitor ERROR", 1},
		{"stop monitor ERROR acknowledged", 1},
	} {
		if got := sink.count(c.line); got != c.n {
			t.Errorf("log lines %q: %d, want %d", c.line, got, c.n)
		}
	}
	recs := g.stopLog()
	var levels []string
	for _, r := range recs {
		levels = append(levels, r.Level)
	}
	if len(recs) != 3 || strings.Join(levels, " ") != "warn warn error" || recs[2].Limit == nil || recs[2].Limit.MaxTravelM != 0.05 ||
		!strings.Contains(strings.Join(recs[2].Notes, "; "), "trend: "+holdWhy) {
		t.Fatalf("stop log: levels %v, %+v; want warn warn error, the third held against 0.05 m with the trend", levels, recs)
	}
}

// TestStopMonitorWarnModeNoHold, the negative control: with stop_monitor.mode warn the same three records
// make the same ERROR, shown in the state record and the log, and enable stays accepted.
func TestStopMonitorWarnModeNoHold(t *testing.T) {
	g, sink := newHoldRig(t, "warn")
	peer := api.Peer{PID: os.Getpid(), Comm: "hold-test"}
	for range 3 {
		g.record(pastStop(g, api.ConfidenceOK))
	}
	m := g.monitor()
	if m.Mode != "warn" || m.Level != api.StopLevelError || m.Holding || m.Counted != 3 || m.Why != holdWhy {
		t.Fatalf("mode warn, after 3 stops past the limit: %+v; want ERROR %q, not holding", m, holdWhy)
	}
	g.enableAccepted(peer, "mode warn, at the ERROR")
	if n := sink.count("past its limit (ERROR)"); n != 1 {
		t.Errorf("ERROR log lines: %d, want 1", n)
	}
}

// TestStopMonitorUncountedNeverHold: records whose confidence is not "ok" (crawl, no data, and the other
// judges' words) are kept and shown, never counted, whatever their travel: after three of each, past the
// limit, the monitor is ok, holds nothing, and enable is accepted.
func TestStopMonitorUncountedNeverHold(t *testing.T) {
	g, _ := newHoldRig(t, "")
	peer := api.Peer{PID: os.Getpid(), Comm: "hold-test"}
	confs := []string{api.ConfidenceCrawl, api.ConfidenceNoData, api.ConfidenceTurning, api.ConfidenceDegenerate, api.ConfidenceInterrupt}
	for _, conf := range confs {
		for range 3 {
			g.record(pastStop(g, conf))
		}
	}
	m := g.monitor()
	if n := uint64(3 * len(confs)); m.Stops != n || m.Counted != 0 || m.Level != api.StopLevelOK || m.Holding {
		t.Fatalf("after %d uncounted stops past the limit: %+v; want all seen, none counted, level ok, no hold", n, m)
	}
	g.enableAccepted(peer, "after uncounted stops")
	recs := g.stopLog()
	if len(recs) != 3*len(confs) {
		t.Fatalf("stop log: %d records, want %d", len(recs), 3*len(confs))
	}
	for _, r := range recs {
		if r.Level != "" || !strings.Contains(strings.Join(r.Notes, "; "), "not counted: confidence") {
			t.Errorf("record seq %d (%s): level %q, notes %q; want not counted, saying why", r.Seq, r.Confidence, r.Level, r.Notes)
		}
	}
}
