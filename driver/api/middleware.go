package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// What every request passes before its handler: the refusal counters, the caps on open requests (MaxActive,
// MaxFollowers, MaxSafetyActive), the roles (access.go), the one-shot rate limit, and the reply helpers.

// statusWriter records the status for the refusal counters; Unwrap keeps http.ResponseController working
// (Flush, write deadlines) through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if sw.status >= 400 {
				s.badRequests.Add(1)
				if sw.status == http.StatusTooManyRequests {
					s.throttled.Add(1)
				}
			}
		}()
		switch {
		case isSafety(r):
			// E-stop and enable have a cap of their own (MaxSafetyActive), apart from the others: a client that
			// fills every other cap must not be able to keep anyone from stopping the robot. An e-stop over
			// the cap is served without its body (postEStop); an enable over it gets 503. Neither is rate
			// limited but enable(true) (postEnable).
			if s.safety.Add(1) > MaxSafetyActive {
				r = r.WithContext(context.WithValue(r.Context(), overCapKey{}, true))
			}
			defer s.safety.Add(-1)
		case r.Method == http.MethodGet && isFollow(r):
			if !admit(sw, &s.followers, MaxFollowers, "too many open follow streams (%d); close idle followers and retry") {
				return
			}
			defer s.followers.Add(-1)
		default:
			if !admit(sw, &s.active, MaxActive, "too many open requests (%d); close idle streams and retry") {
				return
			}
			defer s.active.Add(-1)
		}
		next.ServeHTTP(sw, r)
	})
}

type overCapKey struct{}

// overSafetyCap: the request came when MaxSafetyActive were already open.
func overSafetyCap(r *http.Request) bool {
	v, _ := r.Context().Value(overCapKey{}).(bool)
	return v
}

// need wraps h with a check of role: a connection without it is answered 403 with what it lacks and how to
// get it, h is not called, and the refusal is logged with the caller's uid and pid.
func (s *Server) need(role Role, op string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(r, role, op); err != nil {
			refuse(w, http.StatusForbidden, Reply{Message: err.Error()})
			return
		}
		h(w, r)
	}
}

// authorize checks that r's connection holds role for op; a refusal is counted and logged.
func (s *Server) authorize(r *http.Request, role Role, op string) error {
	p := PeerFrom(r)
	err := s.access.check(p, role, op)
	if err == nil {
		return nil
	}
	n := s.refused.Add(1)
	if s.refusals.Allow() {
		s.log.Warn("control socket: "+op+" refused: needs the "+role.String()+" role",
			"uid", p.UID, "pid", p.PID, "comm", p.Comm, "holds", p.Roles.String(), "path", r.URL.Path, "refused", n)
	}
	return err
}

// admit counts one more open request on open, or refuses it with 503 (msg names the cap) when that would
// pass limit. The caller releases an admitted request.
func admit(w http.ResponseWriter, open *atomic.Int64, limit int64, msg string) bool {
	if open.Add(1) > limit {
		open.Add(-1)
		refuse(w, http.StatusServiceUnavailable, Reply{Message: fmt.Sprintf(msg, limit)})
		return false
	}
	return true
}

// isSafety: the requests that stop the robot (and enable, whose body says which way it goes only once read).
func isSafety(r *http.Request) bool {
	return r.Method == http.MethodPost && (r.URL.Path == "/v1/estop" || r.URL.Path == "/v1/enable")
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b, _ = json.Marshal(Reply{Message: "encode reply: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeReply(w http.ResponseWriter, code int, r Reply) { writeJSON(w, code, r) }

// refuse answers a request whose body is not read at all (a stream refused before its first line) and
// closes the connection after the answer. Without "Connection: close" net/http first reads the unread body
// (up to 256 KB) to keep the connection, and a stream that sends a few bytes a second would never hear it was
// refused: it would go on sending into a server that ignores it.
func refuse(w http.ResponseWriter, code int, r Reply) {
	w.Header().Set("Connection", "close")
	writeJSON(w, code, r)
}

// allow takes one token of the shared one-shot budget, answering 429 when there is none.
func (s *Server) allow(w http.ResponseWriter) bool {
	if s.requests.Allow() {
		return true
	}
	writeReply(w, http.StatusTooManyRequests, Reply{Message: fmt.Sprintf(
		"too many requests (over %.0f/s); publish velocity commands over one stream (chunked body), at 10-50 Hz", RequestRate)})
	return false
}

// readBody reads a one-shot body of at most MaxBody bytes, answering 413 or 400 itself.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	return readBodyUpTo(w, r, MaxBody)
}

func readBodyUpTo(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeReply(w, http.StatusRequestEntityTooLarge, Reply{Message: fmt.Sprintf(
				"body over %d bytes; send one small JSON object", limit)})
			return nil, false
		}
		writeReply(w, http.StatusBadRequest, Reply{Message: "read body: " + err.Error()})
		return nil, false
	}
	return b, true
}
