package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// TestRuntimeParams: the real driver on the fake board, over its socket. Refused sets (above the start value,
// read-only, unknown, wrong type, half good) change nothing; an accepted max_linear clamps the wheels at once
// (after they were shown to run faster: the positive control), and GET /v1/config, /v1/params and the state
// record show it; cmd_timeout goes 0.3 -> 0.2 -> 0.3, never 0.4.
func TestRuntimeParams(t *testing.T) {
	s := newStand(t)
	ctx := s.ctx()
	info := func() map[string]api.ParamInfo {
		ps, err := s.cl.Params(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]api.ParamInfo{}
		for _, p := range ps {
			m[p.Name] = p
		}
		return m
	}
	running := func(name string) any {
		b, err := s.cl.Config(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		return m[name]
	}
	ps := info()
	if p := ps["cmd_timeout"]; p.Value != 0.3 || p.Start != 0.3 || p.ReadOnly || p.Type != "double" {
		t.Fatalf("cmd_timeout: %+v", p)
	}
	if p := ps["device"]; !p.ReadOnly || p.Type != "string" {
		t.Fatalf("device: %+v", p)
	}
	set := func(v map[string]any) api.SetParamsReply {
		t.Helper()
		r, err := s.cl.SetParams(ctx, v)
		if err != nil {
			t.Fatalf("set %v: %v", v, err)
		}
		return r
	}
	for _, tc := range []struct {
		set  map[string]any
		want string
	}{
		{map[string]any{"cmd_timeout": 0.4}, "cmd_timeout: 0.4 would weaken a safety limit beyond the value the driver started with (0.3)"},
		{map[string]any{"device": "/dev/ttyUSB1"}, "device: read-only"},
		{map[string]any{"max_lineer": 0.1}, "max_lineer: no such parameter"},
		{map[string]any{"max_linear": "fast"}, "max_linear: wrong type"},
		{map[string]any{"max_linear": 0.1, "scan_timeout": 0}, "scan_timeout: 0 (scan gate off) would weaken"},
		{map[string]any{}, "nothing to set"},
	} {
		r := set(tc.set)
		if r.Success || !strings.Contains(r.Message, tc.want) || len(r.Changed) != 0 {
			t.Errorf("set %v: %+v, want a refusal with %q", tc.set, r, tc.want)
		}
	}
	if v := running("max_linear"); v != 0.2 {
		t.Fatalf("refused sets changed max_linear to %v", v)
	}
	// A body that is not a JSON object: 400, nothing changed.
	hc := &http.Client{Transport: &http.Transport{DialContext: func(_ context.Context, _, _ string) (net.Conn, error) { return net.Dial("unix", s.sock) }}}
	resp, err := hc.Post("http://rosorin/v1/config", "application/json", bytes.NewReader([]byte(`[0.1]`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("POST [0.1]: %d, want 400", resp.StatusCode)
	}

	// Positive control: the wheels reach 0.2 m/s under the start limit.
	feed := s.feedScans()
	defer feed.halt()
	if r := s.enable(true); !r.Success {
		t.Fatalf("enable: %+v", r)
	}
	pub := s.publish(api.Twist{VX: 0.2})
	defer pub.halt()
	eventually := func(what string, ok func(api.State) bool) api.State {
		t.Helper()
		var st api.State
		if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error {
			if st = s.state(); !ok(st) {
				return fmt.Errorf("not yet")
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: state body_vel %v blocked %v", what, st.BodyVel, st.Blocked)
		}
		return st
	}
	eventually("0.2 m/s before the set", func(st api.State) bool { return math.Abs(st.BodyVel[0]-0.2) < 1e-9 })
	r := set(map[string]any{"max_linear": 0.1})
	if !r.Success || r.Changed["max_linear"] != 0.1 || len(r.Changed) != 1 {
		t.Fatalf("max_linear 0.1: %+v", r)
	}
	// Applied inside the loop before the reply: the very next state record is clamped.
	if st := s.state(); st.BodyVel[0] > 0.1+1e-9 || st.Config.MaxLinear != 0.1 {
		t.Errorf("after max_linear 0.1: body_vel %v, config %+v", st.BodyVel, st.Config)
	}
	eventually("0.1 m/s after the set", func(st api.State) bool { return math.Abs(st.BodyVel[0]-0.1) < 1e-9 })
	if v := running("max_linear"); v != 0.1 {
		t.Errorf("GET /v1/config max_linear %v", v)
	}
	if p := info()["max_linear"]; p.Value != 0.1 || p.Start != 0.2 {
		t.Errorf("GET /v1/params max_linear %+v", p)
	}
	// Back up to the start value is allowed; beyond it is not.
	if r := set(map[string]any{"max_linear": 0.2}); !r.Success {
		t.Errorf("max_linear back to 0.2: %+v", r)
	}
	if r := set(map[string]any{"max_linear": 0.21}); r.Success {
		t.Errorf("max_linear 0.21 above the start: %+v", r)
	}
	for _, v := range []float64{0.2, 0.3} {
		if r := set(map[string]any{"cmd_timeout": v}); !r.Success {
			t.Errorf("cmd_timeout %v: %+v", v, r)
		}
	}
	if v := running("cmd_timeout"); v != 0.3 {
		t.Errorf("cmd_timeout %v after 0.2 then 0.3", v)
	}
	if n := s.logs.count("runtime parameters set"); n < 3 {
		t.Errorf("%d log lines for accepted sets", n)
	}
}
