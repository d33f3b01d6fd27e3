package api

import (
	"context"
	"fmt"
	"math"
	"net/http"
)

// The contact reflex's part of the API (judge/contact, docs/contact.md): its status in the state record,
// its events on TopicContact, and a temporary mode change for the stand proof (the seed stopped the
// rosorin-contact service for the stand's drive tests: with the wheels in the air every spin looks like a
// contact).

// TopicContact carries one ContactEvent per contact the reflex detects (act or log mode), with the last
// seconds of command, gyro and odometry: what a capture records beside the stop.
const TopicContact = "contact"

// ContactState is the reflex's status in the state record.
type ContactState struct {
	// Mode is the mode in effect ("act", "log", "off"); Configured the one the driver was started with;
	// OverrideS the seconds left of a temporary mode set through POST /v1/contact (null: none), By who set it.
	Mode       string   `json:"mode"`
	Configured string   `json:"configured"`
	OverrideS  *float64 `json:"override_s"`
	By         string   `json:"override_by,omitempty"`
	// Judging says whether the reflex judged the last command; Status what it did or why not ("judging",
	// "idle: no command", "cannot judge: no LiDAR odometry ...").
	Judging bool   `json:"judging"`
	Status  string `json:"status"`
	// Commanded and Measured are the last judged values (m/s, rad/s when Turn).
	Commanded float64 `json:"commanded"`
	Measured  float64 `json:"measured"`
	Turn      bool    `json:"turn"`
	// Contacts counts the contacts detected since the driver started (in act and log mode).
	Contacts    uint64 `json:"contacts"`
	Estimates   uint64 `json:"estimates"`
	OdoFailures uint64 `json:"odometry_failures"`
	// ScansDropped: scans the matcher did not take in time (newest wins); ResultsDropped: results the loop
	// had no room for.
	ScansDropped   uint64 `json:"scans_dropped"`
	ResultsDropped uint64 `json:"results_dropped"`
	// MatchMeanMS and MatchMaxMS are the matcher's wall time per scan; MatchCPUMS its thread CPU time per
	// scan (Linux; 0 elsewhere).
	MatchMeanMS float64 `json:"match_mean_ms"`
	MatchMaxMS  float64 `json:"match_max_ms"`
	MatchCPUMS  float64 `json:"match_cpu_ms"`
	// LastContact is the newest contact, null if none.
	LastContact *ContactEvent `json:"last_contact"`
}

// ContactEvent is one contact.
type ContactEvent struct {
	// UptimeS is when the driver decided it (and latched the e-stop, in act mode; driver uptime);
	// MeasuredAtS the mid-sweep time of the odometry estimate that decided it; WheelsStartedS when the gated
	// command last became non-zero, so UptimeS - WheelsStartedS is the time from the wheels' start.
	UptimeS        float64 `json:"uptime_s"`
	MeasuredAtS    float64 `json:"measured_at_s"`
	WheelsStartedS float64 `json:"wheels_started_s"`
	Reason         string  `json:"reason"`
	Commanded      float64 `json:"commanded"`
	Measured       float64 `json:"measured"`
	ForS           float64 `json:"for_s"`
	Turn           bool    `json:"turn"`
	// Latched: the mode was act and the e-stop was latched with Reason.
	Latched bool   `json:"latched"`
	Mode    string `json:"mode"`
	// History (only on TopicContact, not in the state record): rows of [uptime_s, vx, vy, wz] commands,
	// [uptime_s, wz] gyro, [uptime_s, x, y, yaw] odometry.
	Cmds [][4]float64 `json:"cmds,omitempty"`
	Gyro [][2]float64 `json:"gyro,omitempty"`
	Odo  [][4]float64 `json:"odo,omitempty"`
}

// ContactRequest is the body of POST /v1/contact.
type ContactRequest struct {
	// Mode is "log" (for ForS seconds, at most MaxContactOverride) or "act" (ForS 0: until the driver
	// stops); "" returns to the configured mode.
	Mode string  `json:"mode"`
	ForS float64 `json:"for_s"`
}

// MaxContactOverride bounds a temporary log mode: a forgotten one ends by itself.
const MaxContactOverride = 600.0

// MaxContactLogSpan bounds log mode renewed without a break (s): a script that renews it every few minutes
// cannot keep the reflex off for good. Beyond it a renewal is cut to the span's end, and once the span is
// over, log mode is refused until the reflex has been back in its configured mode (any request of mode ""
// or act, or the end of the override, is such a break). An hour covers the longest stand proof and
// characterization (minutes) many times over.
const MaxContactLogSpan = 3600.0

// Validate says what is wrong with the request.
func (q ContactRequest) Validate() error {
	switch {
	case math.IsNaN(q.ForS) || q.ForS < 0 || q.ForS > MaxContactOverride:
		return fmt.Errorf("for_s %v; use 0..%v s", q.ForS, MaxContactOverride)
	case q.Mode == "log" && q.ForS == 0:
		return fmt.Errorf("mode log needs for_s (at most %v s): the reflex must come back by itself", MaxContactOverride)
	case q.Mode != "log" && q.Mode != "act" && q.Mode != "":
		return fmt.Errorf("mode %q; use log (for for_s seconds), act, or \"\" (the configured mode)", q.Mode)
	}
	return nil
}

// ContactModer is an optional ability of a Handler (found by type assertion): the temporary mode change of
// POST /v1/contact.
type ContactModer interface {
	ContactMode(p Peer, q ContactRequest) Reply
}

func (s *Server) postContact(w http.ResponseWriter, r *http.Request) {
	cm, ok := s.h.(ContactModer)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: "this driver has no contact reflex"})
		return
	}
	if !s.allow(w) {
		return
	}
	b, ok := readBodyUpTo(w, r, MaxBody)
	if !ok {
		return
	}
	var q ContactRequest
	if err := strictUnmarshal(b, &q); err != nil {
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
		return
	}
	if err := q.Validate(); err != nil {
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
		return
	}
	// act makes the reflex stop the robot: anyone who drives may ask for it. Anything else (log mode, back to
	// a configured mode that may be log) weakens a stop: the safety role.
	if q.Mode != "act" {
		if err := s.authorize(r, RoleSafety, fmt.Sprintf("contact reflex mode %q", q.Mode)); err != nil {
			writeReply(w, http.StatusForbidden, Reply{Message: err.Error()})
			return
		}
	}
	writeReply(w, http.StatusOK, cm.ContactMode(PeerFrom(r), q))
}

// ContactMode sets the contact reflex's mode for a while (POST /v1/contact).
func (c *Client) ContactMode(ctx context.Context, q ContactRequest) (Reply, error) {
	var r Reply
	err := c.do(ctx, http.MethodPost, "/v1/contact", q, &r)
	return r, err
}
