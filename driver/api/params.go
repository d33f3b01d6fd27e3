package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
)

// The parameters' part of the API (docs/ros2.md, "Parameters"): GET /v1/params describes every parameter
// with its running and start values, POST /v1/config sets runtime parameters, all or nothing.

// ParamInfo describes one parameter (driver/config's table) with its values.
type ParamInfo struct {
	Name string `json:"name"`
	// Type is the ROS type: "double", "integer", "bool", "string" or "double_array".
	Type        string `json:"type"`
	Description string `json:"description"`
	// ReadOnly: read at start only; a set is refused.
	ReadOnly bool `json:"read_only"`
	// Limit: a safety limit; a set may tighten it (make it smaller) down from Start, never loosen it beyond.
	Limit bool `json:"limit"`
	// Value is the running value, Start the value the driver started with.
	Value any `json:"value"`
	Start any `json:"start"`
}

// SetParamsReply answers POST /v1/config.
type SetParamsReply struct {
	// Success: every value was applied; otherwise none was and Message says why, for each refused one.
	Success bool   `json:"success"`
	Message string `json:"message"`
	// Changed are the parameters whose value changed, with their new values (empty when refused or when
	// every value was already in force).
	Changed map[string]any `json:"changed,omitempty"`
}

// Parameterizer is an optional ability of a Handler (found by type assertion): the runtime parameters.
type Parameterizer interface {
	// Params returns the table with the running and start values; an error when the running values cannot be
	// had (a stuck loop).
	Params() ([]ParamInfo, error)
	// SetParams applies body, a JSON object {"name": value, ...}, all or nothing.
	SetParams(p Peer, body []byte) SetParamsReply
}

// MaxParamsBody bounds a POST /v1/config body (every parameter at once is about 1.5 KB).
const MaxParamsBody = 16 << 10

func (s *Server) getParams(w http.ResponseWriter, r *http.Request) {
	pz, ok := s.h.(Parameterizer)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: "this driver serves no parameter table"})
		return
	}
	ps, err := pz.Params()
	if err != nil {
		writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, ps)
}

func (s *Server) postConfig(w http.ResponseWriter, r *http.Request) {
	pz, ok := s.h.(Parameterizer)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: "this driver takes no runtime parameters"})
		return
	}
	if !s.allow(w) {
		return
	}
	b, ok := readBodyUpTo(w, r, MaxParamsBody)
	if !ok {
		return
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		writeJSON(w, http.StatusBadRequest, SetParamsReply{Message: `body is not a JSON object; send {"name": value, ...}`})
		return
	}
	if loosens, err := loosening(pz, b); err != nil {
		writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
		return
	} else if len(loosens) > 0 {
		if err := s.authorize(r, RoleSafety, "loosening "+strings.Join(loosens, ", ")); err != nil {
			writeJSON(w, http.StatusForbidden, SetParamsReply{Message: err.Error()})
			return
		}
	}
	rep := pz.SetParams(PeerFrom(r), b)
	code := http.StatusOK
	if !rep.Success {
		code = http.StatusConflict
	}
	writeJSON(w, code, rep)
}

// loosening returns the limits that body would loosen against their running values (a larger value; for a
// timeout whose 0 means off, 0). Tightening weakens no stop and needs only the drive role; loosening needs
// safety. Values the driver would refuse anyway (wrong type, read-only) are left to SetParams.
func loosening(pz Parameterizer, body []byte) ([]string, error) {
	var set map[string]any
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, nil // SetParams says what is wrong with it
	}
	ps, err := pz.Params()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range ps {
		v, ok := set[p.Name]
		if !ok || !p.Limit {
			continue
		}
		nv, ok1 := v.(float64)
		cur, ok2 := toFloat(p.Value)
		if !ok1 || !ok2 {
			continue
		}
		looser := nv > cur
		if p.Name == "scan_timeout" { // 0 is off, the loosest of all
			looser = cur != 0 && (nv == 0 || nv > cur)
		}
		if looser {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// Params returns the driver's parameter table with the running and start values (GET /v1/params).
func (c *Client) Params(ctx context.Context) ([]ParamInfo, error) {
	var ps []ParamInfo
	err := c.do(ctx, http.MethodGet, "/v1/params", nil, &ps)
	return ps, err
}

// SetParams sets runtime parameters, all or nothing (POST /v1/config). A refusal is a reply with Success
// false and nil error; the error is for a driver that could not be asked or did not understand.
func (c *Client) SetParams(ctx context.Context, values map[string]any) (SetParamsReply, error) {
	var r SetParamsReply
	err := c.do(ctx, http.MethodPost, "/v1/config", values, &r)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusConflict {
		return r, nil
	}
	return r, err
}
