package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// paramHandler is fakeHandler with the parameter ability.
type paramHandler struct {
	fakeHandler
	bodies []string
	err    error
}

func (h *paramHandler) Params() ([]ParamInfo, error) {
	return []ParamInfo{{Name: "cmd_timeout", Type: "double", Value: 0.3, Start: 0.3, Limit: true}}, h.err
}

func (h *paramHandler) SetParams(p Peer, body []byte) SetParamsReply {
	h.bodies = append(h.bodies, string(body))
	if strings.Contains(string(body), "0.4") {
		return SetParamsReply{Message: "refused, nothing changed: cmd_timeout: 0.4 would weaken"}
	}
	return SetParamsReply{Success: true, Message: "set", Changed: map[string]any{"cmd_timeout": 0.2}}
}

var _ Parameterizer = (*paramHandler)(nil)

func TestParamRoutes(t *testing.T) {
	h := &paramHandler{}
	_, c := listenFor(t, h)
	ctx := context.Background()
	ps, err := c.Params(ctx)
	if err != nil || len(ps) != 1 || ps[0].Value != 0.3 {
		t.Fatalf("Params: %+v %v", ps, err)
	}
	r, err := c.SetParams(ctx, map[string]any{"cmd_timeout": 0.2})
	if err != nil || !r.Success || r.Changed["cmd_timeout"] != 0.2 {
		t.Errorf("accepted set: %+v %v", r, err)
	}
	// A refusal is a reply (409 on the wire), not an error.
	r, err = c.SetParams(ctx, map[string]any{"cmd_timeout": 0.4})
	if err != nil || r.Success || !strings.Contains(r.Message, "weaken") {
		t.Errorf("refused set: %+v %v", r, err)
	}
	if code, _ := post(t, c, "/v1/config", `{"cmd_timeout":0.4}`); code != http.StatusConflict {
		t.Errorf("refused set answered %d, want 409", code)
	}
	n := len(h.bodies)
	for _, bad := range []string{``, `[1]`, `"x"`, `{"a":`, `null`} {
		if code, _ := post(t, c, "/v1/config", bad); code != http.StatusBadRequest {
			t.Errorf("POST /v1/config %q: %d, want 400", bad, code)
		}
	}
	if code, _ := post(t, c, "/v1/config", `{"x":"`+strings.Repeat("a", MaxParamsBody)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversize body: %d, want 413", code)
	}
	if len(h.bodies) != n {
		t.Errorf("malformed bodies reached the handler: %q", h.bodies[n:])
	}
	h.err = errors.New("driver control loop not answering")
	if _, err := c.Params(ctx); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("Params of a stuck loop: %v, want 503", err)
	}

	// A handler without the ability: 404, with a message.
	_, _, plain := newTestServer(t)
	if _, err := plain.Params(ctx); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Params without the ability: %v", err)
	}
	if _, err := plain.SetParams(ctx, map[string]any{"cmd_timeout": 0.2}); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("SetParams without the ability: %v", err)
	}
}
