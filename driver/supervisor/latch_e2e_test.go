package supervisor_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// expectLatched checks that the driver in st started with its e-stop latched with want (prefix when prefix is
// set), that enable is refused, and resets it; motion stays disabled.
func expectLatched(t *testing.T, cl *api.Client, st api.State, want string, prefix bool) {
	t.Helper()
	got := ""
	if st.EStop != nil {
		got = *st.EStop
	}
	if prefix && !strings.HasPrefix(got, want) || !prefix && got != want {
		t.Fatalf("driver pid %d: e-stop %q, want %q (prefix %v)", st.PIDs.Driver, got, want, prefix)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if r, err := cl.Enable(ctx, true); err != nil || r.Success || !strings.Contains(r.Message, "e-stop latched") {
		t.Fatalf("enable of a driver restarted latched: %+v %v, want refused", r, err)
	}
	r, err := cl.Reset(ctx)
	if err != nil || !strings.Contains(r.Message, "e-stop cleared (was: "+got+")") {
		t.Fatalf("reset: %+v %v", r, err)
	}
}

// TestSimRestartLatched: the first driver starts disabled, not latched; a SIGKILLed driver is replaced by one
// latched "driver restarted after killed by SIGKILL" (enable refused until reset); a latched driver stopped
// cleanly (SIGTERM) passes its own reason to the next, through the real final word and environment. That an
// unlatched one stopped cleanly does not latch the next is the supervisor's logic alone: TestVirtualRestartLatch.
func TestSimRestartLatched(t *testing.T) {
	_, svc, cl := startSimStack(t, "--restart-delay", "200ms")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(60*time.Second))
	defer cancel()
	st := waitDriver(t, cl, 0, 10*time.Second)
	if st.EStop != nil || st.Enabled {
		t.Fatalf("first driver: e-stop %v, enabled %v; want disabled, not latched", st.EStop, st.Enabled)
	}
	if sup, _ := svc.status(); sup.DriverStartLatched != "" {
		t.Fatalf("first driver started latched: %q", sup.DriverStartLatched)
	}

	// SIGKILL: latched with how it ended.
	_ = syscall.Kill(st.PIDs.Driver, syscall.SIGKILL)
	st = waitDriver(t, cl, st.PIDs.Driver, 10*time.Second)
	expectLatched(t, cl, st, "driver restarted after killed by SIGKILL", false)
	if sup, _ := svc.status(); sup.DriverStartLatched != "driver restarted after killed by SIGKILL" {
		t.Errorf("status: driver_start_latched %q", sup.DriverStartLatched)
	}
	if r, err := cl.Enable(ctx, true); err != nil || !r.Success {
		t.Fatalf("enable after reset: %+v %v", r, err)
	}

	// An e-stop, then a clean stop of the driver: the next one keeps the first reason.
	er, err := cl.EStop(ctx, "latch test")
	if err != nil || !er.Success {
		t.Fatalf("estop: %+v %v", er, err)
	}
	x, _ := cl.State(ctx)
	if x.EStop == nil {
		t.Fatal("not latched after the e-stop")
	}
	reason := *x.EStop
	// An exit within 2 s of the start doubles the next delay (200 ms after the SIGKILL's reset): no wait needed.
	_ = syscall.Kill(st.PIDs.Driver, syscall.SIGTERM)
	st = waitDriver(t, cl, st.PIDs.Driver, 10*time.Second)
	expectLatched(t, cl, st, reason, false)
	sup, _ := svc.status()
	t.Logf("restarts: SIGKILL -> latched %q; latched driver stopped by SIGTERM -> next latched %q (last exit %q, %d starts)",
		"driver restarted after killed by SIGKILL", reason, sup.DriverLastExit, sup.DriverStarts)
}
