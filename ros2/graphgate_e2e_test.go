//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/ros2"
)

// TestGraphEnableResetRefused: a bridge started without allow_graph_enable and allow_graph_reset (the
// default) refuses ~/enable true and ~/reset_estop from the graph with a reason that says how to allow them,
// and nothing changes: the driver stays disabled, then latched. ~/enable false (a stop) is still served, and
// the socket's enable and reset work (the driver itself is not what refuses). The start-up log says at WARN
// what any participant on the domain can do.
func TestGraphEnableResetRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot and the driver service with ROS 2")
	}
	dom := loopbackEnv(t)
	t.Setenv(ros2.AllowGraphEnableEnv, "")
	t.Setenv(ros2.AllowGraphResetEnv, "")
	st, logPath := startSimTarget(t, 30*time.Second, target.SimConfig{})
	c := st.Client()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(30*time.Second))
	defer cancel()
	state := func() api.State {
		t.Helper()
		s, err := c.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := state(); s.EStop != nil {
		c.Reset(ctx) // a watchdog restart under load starts latched
	}
	gp, err := ros2.NewPeer(dom, "", ros2.NodeName, "gate_peer")
	if err != nil {
		t.Fatal(err)
	}
	defer gp.Close()

	rep, err := gp.Enable(ctx, true)
	if err != nil || rep.Success || !strings.Contains(rep.Message, "allow_graph_enable") || !strings.Contains(rep.Message, ros2.AllowGraphEnableEnv+"=1") {
		t.Fatalf("~/enable true without allow_graph_enable: %+v %v; want refused, saying how to allow it", rep, err)
	}
	time.Sleep(200 * time.Millisecond) // two state records
	if s := state(); s.Enabled {
		t.Fatal("the driver was enabled through a refused ~/enable")
	}

	if r, err := c.EStop(ctx, "graph gate test"); err != nil || !r.Success {
		t.Fatalf("socket e-stop: %+v %v", r, err)
	}
	trep, err := gp.Reset(ctx)
	if err != nil || trep.Success || !strings.Contains(trep.Message, "allow_graph_reset") {
		t.Fatalf("~/reset_estop without allow_graph_reset: %+v %v; want refused", trep, err)
	}
	time.Sleep(200 * time.Millisecond)
	if s := state(); s.EStop == nil || !strings.Contains(*s.EStop, "graph gate test") {
		t.Fatalf("the latch changed through a refused ~/reset_estop: %v", s.EStop)
	}

	// Positive controls: the socket resets and enables; a stop over the graph (~/enable false) is served.
	if r, err := c.Reset(ctx); err != nil || !r.Success {
		t.Fatalf("socket reset: %+v %v", r, err)
	}
	if r, err := c.Enable(ctx, true); err != nil || !r.Success {
		t.Fatalf("socket enable: %+v %v", r, err)
	}
	if rep, err := gp.Enable(ctx, false); err != nil || !rep.Success {
		t.Fatalf("~/enable false without allow_graph_enable: %+v %v; want served (a stop)", rep, err)
	}
	if s := state(); s.Enabled {
		t.Error("~/enable false did not disable the driver")
	}

	b, _ := os.ReadFile(logPath)
	var warn string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "any participant on domain") {
			warn = l
		}
	}
	for _, says := range []string{"WARN", "velocity inputs", "latch the e-stop", "refused (allow_graph_enable false)", "refused (allow_graph_reset false)"} {
		if !strings.Contains(warn, says) {
			t.Errorf("the bridge's start-up line lacks %q: %q", says, warn)
		}
	}
	if !strings.Contains(string(b), "~/enable refused") || !strings.Contains(string(b), "~/reset_estop refused") {
		t.Error("the refusals are not in the log")
	}
}
