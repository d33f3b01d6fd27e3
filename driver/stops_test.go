package driver

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// stopRig drives the loop rig at 0.2 m/s forward for 0.5 s, makes one stop with do, runs the ticks its
// judging needs, stops the driver and returns the stop log's records.
func stopRig(t *testing.T, do func(g *loopRig, peer api.Peer), opts ...func(*Options)) ([]api.StopRecord, *loopRig) {
	t.Helper()
	g := newLoopRig(t, opts...)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true)
	if r := g.r.Enable(peer, true); !r.Success {
		t.Fatal(r.Message)
	}
	g.driveTicks(peer, api.Twist{VX: 0.2}, 25)
	do(g, peer)
	for range 240 { // 4.8 s: the watch's window (4.05 s) and its lag; no scan, no command
		g.tick()
	}
	dir := g.r.o.StateDir
	g.stop()
	recs, _, err := stoplog.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return recs, g
}

// TestStopKinds: each stop the driver makes gives one record of its kind, with the speed and direction at
// the trigger, in the log after the driver stopped.
func TestStopKinds(t *testing.T) {
	for _, c := range []struct {
		kind string
		do   func(g *loopRig, peer api.Peer)
	}{
		{api.StopDeadman, func(g *loopRig, peer api.Peer) {}},
		{api.StopEStop, func(g *loopRig, peer api.Peer) { g.r.EStop(peer, "test") }},
		{api.StopDisable, func(g *loopRig, peer api.Peer) { g.r.Enable(peer, false) }},
		{api.StopScanGate, func(g *loopRig, peer api.Peer) {
			for range 260 { // commands go on, scans stop
				g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.2}, false)
				g.tick()
			}
		}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			recs, _ := stopRig(t, c.do)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1: %+v", len(recs), recs)
			}
			r := recs[0]
			if r.Kind != c.kind || r.Direction != "fwd" || r.Speed < 0.15 || r.Speed > 0.2+1e-9 || r.Seq != 1 || r.Boot == "" {
				t.Fatalf("record %+v", r)
			}
			t.Logf("%s: trigger %.3f s after start", c.kind, r.UptimeS)
			// The deadman's trigger is the silence's start, as in the proofs: the last command (the 25th
			// tick's, 0.50 s), not the deadman's firing 0.3 s later; the others' is the driver's act.
			if c.kind == api.StopDeadman && (r.UptimeS < 0.45 || r.UptimeS > 0.55) {
				t.Errorf("deadman trigger %.3f s after start, want the last command's 0.50 s", r.UptimeS)
			}
			if c.kind == api.StopEStop && !strings.Contains(r.Reason, "estop request from") {
				t.Errorf("e-stop reason %q does not say who", r.Reason)
			}
		})
	}
}

// TestStopWhileStillNoRecord: a trigger while the wheels are still is no stop to time.
func TestStopWhileStillNoRecord(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.EStop(peer, "still")
	for range 240 {
		g.tick()
	}
	st := g.state()
	dir := g.r.o.StateDir
	g.stop()
	recs, _, _ := stoplog.Read(dir)
	if len(recs) != 0 || st.StopMonitor == nil || st.StopMonitor.Stops != 0 {
		t.Fatalf("records %+v, monitor %+v", recs, st.StopMonitor)
	}
}

// The hold and its acknowledgement: stopmon_hold_test.go, with judged records fed to the driver's record path
// (this rig's board sends no IMU vibration, so the stops it makes are "no data" and never counted); end to end
// cmd/stopproof TestSoakWearSim drives the real driver on the sim until the monitor's ERROR, checks that
// enable is refused naming the monitor and accepted after POST /v1/stops/ack; driver/api TestRolesRealUIDs
// checks that the acknowledgement needs the safety role.

// TestStopLogTornAtStart: a torn stop log is named at start and the driver starts.
func TestStopLogTornAtStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "stops"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stops", "stops-000001.jsonl"), []byte("1f0c6a2e {\"seq\":1,"), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &logSink{tb: t}
	g := newLoopRig(t, func(o *Options) { o.StateDir = dir; o.Log = slog.New(sink) })
	st := g.tick()
	if st.StopMonitor == nil {
		t.Fatal("no stop monitor in the state")
	}
	if sink.count("stop log: bad records skipped") != 1 {
		t.Fatal("the torn log was not named at start")
	}
}

// TestStopLimitsOfAnotherRobot: a limits file from a campaign of another robot (its host, its configuration)
// is refused with the difference named; the driver starts all the same, on the stated limits alone, and its
// state says so.
func TestStopLimitsOfAnotherRobot(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("stopmon", "testdata", "floor-ci-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.ReplaceAll(string(b), `"vm (16 records)"`, `"robot-7 (16 records)"`)
	f := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(f, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newLoopRig(t, func(o *Options) {
		o.Config.StopMonitorLimitsFile = f
		o.Config.StopMonitorLimits = "{estop: {max_still_s: 0.8}}"
	})
	st := g.state()
	m := st.StopMonitor
	if m == nil {
		t.Fatal("no stop monitor in the state")
	}
	for _, want := range []string{"refused: ", "robot-7", "in force: "} {
		if !strings.Contains(m.LimitsSource, want) {
			t.Errorf("limits source %q lacks %q", m.LimitsSource, want)
		}
	}
	t.Log(m.LimitsSource)
	if m.Mode != "hold" || st.UptimeS < 0 {
		t.Errorf("state %+v", m)
	}
}
