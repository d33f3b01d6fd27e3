package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/procfs"
)

// Limits of the control socket. Each refusal is counted (TransportStats) and answered with a message that
// says what to do.
const (
	// SocketMode: only the service's user and group may drive the robot.
	SocketMode os.FileMode = 0o660
	// MaxBody is the largest one-shot request body (a twist is about 40 bytes).
	MaxBody = 4 << 10
	// MaxCmdLine is the longest line of a cmd_vel stream.
	MaxCmdLine = 4 << 10
	// MaxScanLine is the longest line of a scan stream (400 bins with intensities are about 6 KB).
	MaxScanLine = 512 << 10
	// RequestRate and RequestBurst bound one-shot POSTs over all clients together: a script in a tight loop
	// gets 429, not the control loop's time. 20 Hz publishers need 20/s; 200/s leaves room for several tools.
	RequestRate  = 200.0
	RequestBurst = 100.0
	// StreamCmdRate and StreamCmdBurst bound one cmd_vel stream (ROS publishers run at 10-50 Hz).
	StreamCmdRate  = 200.0
	StreamCmdBurst = 50.0
	// StreamFloodLimit: a stream that had this many lines dropped by its rate limit is closed with 429.
	StreamFloodLimit = 200
	// StreamScanRate bounds one scan stream (the COIN-D6 turns at 10 Hz).
	StreamScanRate  = 50.0
	StreamScanBurst = 20.0
	// MaxBadScanLines: a scan stream with this many malformed lines is closed with 400.
	MaxBadScanLines = 100
	// MaxActive bounds concurrent requests other than follow streams, e-stops and enables (cmd_vel and scan
	// streams included); more get 503.
	MaxActive = 64
	// MaxFollowers bounds open ?follow=1 output streams, apart from MaxActive: followers are the requests a
	// client leaves open by the dozen (dashboards, loggers), and they must not use up what commands need.
	MaxFollowers = 64
	// MaxSafetyBody is the largest body read from an e-stop or enable request. The e-stop latches whatever its
	// body; an enable body is parsed up to this size, so a padded {"data":false} still disables.
	MaxSafetyBody = 64 << 10
	// MaxSafetyActive bounds e-stop and enable requests being read at once, apart from MaxActive. An e-stop
	// beyond it is still served: it latches at once without reading its body (the reason is lost, the stop is
	// not). An enable beyond it gets 503.
	MaxSafetyActive = 32
	// SafetyBodyTimeout bounds the wait for an e-stop's or an enable's body: a client that sends it a byte at a
	// time cannot hold a slot. An e-stop whose body does not come in time latches anyway.
	SafetyBodyTimeout = 2 * time.Second
	// IdleTimeout closes a kept-alive connection that sends no request for this long.
	IdleTimeout = 60 * time.Second
	// SubscriberQueue is the per-subscriber message queue of output streams: 2 s of IMU at 110 Hz.
	SubscriberQueue = 256
	// WriteTimeout: an output stream whose client has not taken a message for this long is closed.
	WriteTimeout = 5 * time.Second
)

// ErrLiveDriver is returned by Listen when another driver answers on the socket path.
var ErrLiveDriver = errors.New("a live driver already answers on the socket")

// Server is the control API over a unix socket: HTTP/1.1 and JSON, usable with
// `curl --unix-socket PATH http://rosorin/v1/state`. It implements Transport.
type Server struct {
	h    Handler
	log  *slog.Logger
	ln   net.Listener
	path string
	srv  *http.Server

	closing   chan struct{}
	closeOnce sync.Once
	serveDone chan struct{}

	mu     sync.Mutex
	subs   map[string]map[*subscriber]struct{}
	latest map[string]any
	// logBacklog are the last LogBacklog records of TopicLog (log.go).
	logBacklog []LogRecord

	requests  *rate.Limiter // one-shot POSTs over all clients together
	active    atomic.Int64
	followers atomic.Int64
	safety    atomic.Int64
	conns     atomic.Uint64

	access   *Access
	refusals *rate.Limiter // log lines of role refusals (each is counted in refused)
	refused  atomic.Uint64

	badRequests  atomic.Uint64
	throttled    atomic.Uint64
	dropped      atomic.Uint64
	refusedScans atomic.Uint64
}

var _ Transport = (*Server)(nil)

type subscriber struct {
	ch      chan any
	dropped atomic.Uint64
}

type ctxKey struct{}

// ListenOption configures a Server.
type ListenOption func(*Server)

// WithAccess sets who may do what (access.go). Without it the policy is DefaultAccess of this process's
// uid: this user and root hold every role, the default groups theirs.
func WithAccess(a *Access) ListenOption { return func(s *Server) { s.access = a } }

// Listen creates the socket at path (mode 0660) and serves h on it until Close. A socket file nobody
// answers on (left by a crash) is removed; if a live driver answers, Listen refuses with ErrLiveDriver, and a
// path that is not a socket is never removed.
func Listen(path string, h Handler, log *slog.Logger, opts ...ListenOption) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	probe := &Server{}
	for _, o := range opts {
		o(probe)
	}
	access := probe.access
	if access == nil {
		access = DefaultAccess(os.Getuid())
	}
	if err := access.Resolve(); err != nil {
		return nil, err
	}
	ln, err := listenUnix(path)
	if err != nil {
		return nil, err
	}
	s := &Server{
		h: h, log: log, ln: ln, path: path,
		closing: make(chan struct{}), serveDone: make(chan struct{}),
		subs: map[string]map[*subscriber]struct{}{}, latest: map[string]any{},
		requests: rate.NewLimiter(RequestRate, RequestBurst),
		access:   access, refusals: rate.NewLimiter(1, 5),
	}
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		// No ReadTimeout/WriteTimeout: cmd_vel, scan and follow streams are long-lived by design; stuck
		// writers are cut per message (WriteTimeout) instead.
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			p := Peer{Conn: s.conns.Add(1)}
			var groups []int
			if pid, uid, gid, ok := nativePeerCred(c); ok {
				p.PID, p.UID, p.GID, p.Comm = pid, uid, gid, procfs.Comm(pid)
				p.credKnown = true
				groups = nativePeerGroups(c, gid)
				if st, err := procfs.ReadStat(pid); err == nil {
					p.PPID = st.PPID
				}
			}
			p.Roles = s.access.RolesOf(p.UID, groups, p.credKnown)
			return context.WithValue(ctx, ctxKey{}, p)
		},
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(s.serveDone)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("control socket stopped serving", "path", path, "err", err)
		}
	}()
	return s, nil
}

// listenUnix listens on path after clearing a stale socket, then sets the mode.
func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("control socket %s exists and is not a socket; refusing to remove it: move it away or pass --socket", path)
		}
		c, err := net.DialTimeout("unix", path, 500*time.Millisecond)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%w at %s: stop that rosorin-base first (rosorin-base state --socket %s shows its pids), or pass another --socket",
				ErrLiveDriver, path, path)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("control socket %s exists and cannot be probed (%v); remove it by hand if no driver runs", path, err)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale control socket %s: %w", path, err)
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o770); err != nil {
			return nil, fmt.Errorf("control socket directory %s: %w", dir, err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on control socket %s: %w", path, err)
	}
	// chmod after listen: the socket file exists only now. Between the two it has the umask's mode, which is
	// never wider than the directory lets through (/run/rosorin is 0750 under systemd).
	if err := os.Chmod(path, SocketMode); err != nil {
		ln.Close()
		return nil, fmt.Errorf("chmod control socket %s: %w", path, err)
	}
	return ln, nil
}

// Path returns the socket path.
func (s *Server) Path() string { return s.path }

// Close stops serving: the listener and every connection (open streams end), then waits for the serve loop.
// The socket file is removed. Idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Close()
		<-s.serveDone
	})
	return nil
}

// Stats returns the transport's counters.
func (s *Server) Stats() TransportStats {
	s.mu.Lock()
	n := 0
	for _, m := range s.subs {
		n += len(m)
	}
	s.mu.Unlock()
	return TransportStats{BadRequests: s.badRequests.Load(), Throttled: s.throttled.Load(),
		Dropped: s.dropped.Load(), Subscribers: n, RefusedScans: s.refusedScans.Load(), RefusedRoles: s.refused.Load()}
}

// Publish hands msg to every subscriber of topic without blocking; a full queue drops this message for that
// subscriber and counts it. The latest message per topic is kept for GET /v1/<topic>.
func (s *Server) Publish(topic string, msg any) {
	s.mu.Lock()
	s.latest[topic] = msg
	for sub := range s.subs[topic] {
		select {
		case sub.ch <- msg:
		default:
			sub.dropped.Add(1)
			s.dropped.Add(1)
		}
	}
	s.mu.Unlock()
}

func (s *Server) subscribe(topic string) *subscriber {
	sub := &subscriber{ch: make(chan any, SubscriberQueue)}
	s.mu.Lock()
	if s.subs[topic] == nil {
		s.subs[topic] = map[*subscriber]struct{}{}
	}
	s.subs[topic][sub] = struct{}{}
	s.mu.Unlock()
	return sub
}

func (s *Server) unsubscribe(topic string, sub *subscriber) {
	s.mu.Lock()
	delete(s.subs[topic], sub)
	s.mu.Unlock()
}

func (s *Server) latestMsg(topic string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.latest[topic]
	return m, ok
}

// PeerFrom returns the peer of a request served by a Server.
func PeerFrom(r *http.Request) Peer {
	p, _ := r.Context().Value(ctxKey{}).(Peer)
	return p
}

// routes is the API. GET / prints it.
func (s *Server) routes() http.Handler {
	// Each route names the role it needs (access.go); the handlers of config and contact check further by
	// what the request does. The e-stop needs none, and scans have their own rule (ScanAuthorizer).
	mux := http.NewServeMux()
	observe := func(h http.HandlerFunc) http.HandlerFunc { return s.need(RoleObserve, "reading the driver's state", h) }
	mux.HandleFunc("GET /{$}", s.index)
	mux.HandleFunc("GET /v1/state", observe(s.getState))
	for _, t := range Topics {
		if t == TopicState {
			continue
		}
		mux.HandleFunc("GET /v1/"+t, observe(func(w http.ResponseWriter, r *http.Request) { s.getTopic(w, r, t) }))
	}
	mux.HandleFunc("GET /v1/config", observe(s.getConfig))
	mux.HandleFunc("POST /v1/config", s.need(RoleDrive, "setting a runtime parameter", s.postConfig))
	mux.HandleFunc("GET /v1/params", observe(s.getParams))
	drive := s.need(RoleDrive, "a velocity command", s.postCmdVel)
	mux.HandleFunc("POST /v1/cmd_vel", drive)
	// PUT too: `curl -T -` uploads a stream with PUT.
	mux.HandleFunc("PUT /v1/cmd_vel", drive)
	mux.HandleFunc("PUT /v1/scan", s.postScan)
	mux.HandleFunc("POST /v1/estop", s.postEStop)
	mux.HandleFunc("POST /v1/enable", s.need(RoleDrive, "enable or disable", s.postEnable))
	mux.HandleFunc("POST /v1/reset", s.need(RoleSafety, "resetting the e-stop", s.postReset))
	mux.HandleFunc("POST /v1/contact", s.need(RoleDrive, "changing the contact reflex's mode", s.postContact))
	mux.HandleFunc("POST /v1/scan", s.postScan)
	return s.middleware(mux)
}

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

const indexText = `rosorin-base control API (HTTP/1.1 over this unix socket, JSON)
  GET  /v1/state                  one state record
  GET  /v1/state?follow=1         state records at 10 Hz (JSON lines)
  GET  /v1/{imu,scan,battery,odom,gamepad}[?follow=1]   latest message, or a JSON-lines stream
  GET  /v1/log?follow=1           the driver's log records at INFO and above (the last 64 first)
  GET  /v1/config                 the configuration in use
  POST /v1/config                 {"max_linear":0.3,...}: set runtime parameters, all or nothing (tighten only)
  GET  /v1/params                 every parameter: type, description, read_only, running and start value
  POST /v1/cmd_vel                {"vx":0.1,"vy":0,"wz":0}; a chunked body (curl -T -) is a stream of such lines
  POST /v1/cmd_vel?input=manual   the same on an input: manual (100) > autonomous (10) > cmd_vel (1, the default)
  POST /v1/estop                  latch the e-stop (optional {"reason":"..."})
  POST /v1/enable                 {"data":true} or {"data":false}
  POST /v1/reset                  clear the e-stop latch (motion stays disabled)
  POST /v1/scan                   LiDAR scans from the reader (JSON lines)
example: curl --unix-socket /run/rosorin/base.sock http://rosorin/v1/state
`

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, indexText)
}

func isFollow(r *http.Request) bool {
	v := r.URL.Query().Get("follow")
	return v != "" && v != "0" && v != "false"
}

func (s *Server) getState(w http.ResponseWriter, r *http.Request) {
	if isFollow(r) {
		st, err := s.h.State()
		if err != nil {
			writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
			return
		}
		s.follow(w, r, TopicState, st)
		return
	}
	st, err := s.h.State()
	if err != nil {
		writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) getTopic(w http.ResponseWriter, r *http.Request, topic string) {
	if isFollow(r) {
		s.follow(w, r, topic, nil)
		return
	}
	m, ok := s.latestMsg(topic)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: fmt.Sprintf(
			"no %s message yet; ?follow=1 waits for them", topic)})
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// follow streams topic as JSON lines, flushed per message, until the client goes or the server closes. first,
// if not nil, goes out before the stream (the current state for state followers).
func (s *Server) follow(w http.ResponseWriter, r *http.Request, topic string, first any) {
	var sub *subscriber
	var backlog []LogRecord
	if topic == TopicLog {
		sub, backlog = s.subscribeLog()
	} else {
		sub = s.subscribe(topic)
	}
	defer s.unsubscribe(topic, sub)
	if first == nil && topic == TopicSource {
		// Latched: who drives now (read after subscribing, so no hand-over falls between), then every hand-over.
		if m, ok := s.latestMsg(topic); ok {
			first = m
		}
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(m any) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(WriteTimeout))
		if err := enc.Encode(m); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if first != nil && !send(first) {
		return
	}
	for _, m := range backlog {
		if !send(m) {
			return
		}
	}
	if first == nil {
		rc.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case m := <-sub.ch:
			if !send(m) {
				s.log.Debug("follower gone", "topic", topic, "peer", PeerFrom(r).String(), "dropped", sub.dropped.Load())
				return
			}
		}
	}
}

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.h.Config())
}

// isStream: a body without a declared length (chunked) is a stream of JSON lines; a body with a length is one
// message. `curl -d` sends one message, `curl -T -` and the Go client's streams send chunked bodies.
func isStream(r *http.Request) bool { return r.ContentLength < 0 }

// InputParam is the query parameter that names a velocity command's input: POST /v1/cmd_vel?input=manual
// (manual, autonomous or cmd_vel; none is cmd_vel).
const InputParam = "input"

// cmdInput returns the request's input. An unknown name is answered 400 and changes nothing: it never
// reaches the driver, and no motor frame follows from it.
func (s *Server) cmdInput(w http.ResponseWriter, r *http.Request) (motion.Input, bool) {
	in, err := motion.ParseInput(r.URL.Query().Get(InputParam))
	if err != nil {
		s.badRequests.Add(1)
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error() + "; nothing was changed"})
		return 0, false
	}
	return in, true
}

func (s *Server) postCmdVel(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	in, ok := s.cmdInput(w, r)
	if !ok {
		return
	}
	if isStream(r) {
		s.cmdStream(w, r, p, in)
		return
	}
	if !s.allow(w) {
		return
	}
	b, ok := readBody(w, r)
	if !ok {
		s.h.BadCommand(p, in, "oversize or unreadable cmd_vel body")
		return
	}
	t, err := ParseTwist(b)
	if err != nil {
		s.h.BadCommand(p, in, err.Error())
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error() + "; the wheels were stopped"})
		return
	}
	rep, err := s.h.CmdVel(p, in, t, false)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, CmdReply{Message: err.Error(), Blocked: rep.Blocked})
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// cmdStream reads one long-lived publisher's JSON lines on input in. The stream counts as a publisher on in
// while open.
func (s *Server) cmdStream(w http.ResponseWriter, r *http.Request, p Peer, in motion.Input) {
	s.h.CmdStream(p, in, true)
	defer s.h.CmdStream(p, in, false)
	var res StreamResult
	lim := rate.NewLimiter(StreamCmdRate, StreamCmdBurst)
	tooLong := func() string {
		s.h.BadCommand(p, in, "cmd_vel stream line too long")
		return fmt.Sprintf("line over %d bytes; the wheels were stopped and the stream closed", MaxCmdLine)
	}
	streamLines(w, r.Body, MaxCmdLine, &res, tooLong, func(line []byte) bool {
		if !lim.Allow() {
			res.Dropped++
			if res.Dropped >= StreamFloodLimit {
				res.Message = fmt.Sprintf("flood: over %.0f commands/s; publish at 10-50 Hz", StreamCmdRate)
				writeJSON(w, http.StatusTooManyRequests, res)
				return false
			}
			return true
		}
		t, perr := ParseTwist(bytes.TrimSpace(line))
		if perr != nil {
			s.h.BadCommand(p, in, perr.Error())
			res.Message = perr.Error() + "; the wheels were stopped and the stream closed"
			writeJSON(w, http.StatusBadRequest, res)
			return false
		}
		if _, cerr := s.h.CmdVel(p, in, t, true); cerr != nil {
			res.Rejected++
			res.Message = cerr.Error()
		} else {
			res.Accepted++
		}
		return true
	})
}

// streamLines reads a stream's JSON lines of at most maxLine bytes and hands each non-blank one to line, which
// returns false when it has answered and the stream ends. A line over maxLine is answered 413 with
// tooLong's message; the end of the body is answered 200 with res; any other read error means the client is
// gone (or the server closes), and nobody is left to answer.
func streamLines(w http.ResponseWriter, body io.Reader, maxLine int, res *StreamResult, tooLong func() string, line func([]byte) bool) {
	br := bufio.NewReaderSize(body, maxLine)
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			res.Message = tooLong()
			writeJSON(w, http.StatusRequestEntityTooLarge, res)
			return
		}
		if len(bytes.TrimSpace(b)) > 0 && !line(b) {
			return
		}
		if err != nil {
			if err == io.EOF {
				res.Success = true
				if res.Message == "" {
					res.Message = "stream ended"
				}
				writeJSON(w, http.StatusOK, res)
			}
			return
		}
	}
}

type estopBody struct {
	Data   *bool  `json:"data"`
	Reason string `json:"reason"`
}

func (s *Server) postEStop(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	// No role, no rate limit and no body requirement: an e-stop is never refused. A broken, oversize or slow
	// body still latches it, and so does an e-stop beyond MaxSafetyActive, unread.
	var body estopBody
	if overSafetyCap(r) {
		body.Reason = fmt.Sprintf("body not read: over %d e-stop and enable requests open", MaxSafetyActive)
		w.Header().Set("Connection", "close")
	} else {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(SafetyBodyTimeout))
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxSafetyBody))
		switch {
		case err != nil:
			body.Reason = "estop request body unreadable: " + err.Error()
			w.Header().Set("Connection", "close")
		case len(bytes.TrimSpace(b)) > 0:
			if err := strictUnmarshal(b, &body); err != nil {
				body = estopBody{Reason: "unreadable estop request body"}
			}
		}
	}
	if body.Data != nil && !*body.Data {
		writeReply(w, http.StatusOK, Reply{Success: true, Message: "estop data false: nothing done (reset clears a latch)"})
		return
	}
	rep := s.h.EStop(p, body.Reason)
	code := http.StatusOK
	if !rep.Success {
		// Not latched (the control loop did not answer): never a 200, so no client takes it for a stop.
		code = http.StatusServiceUnavailable
	}
	writeReply(w, code, rep)
}

func (s *Server) postEnable(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	if overSafetyCap(r) {
		refuse(w, http.StatusServiceUnavailable, Reply{Message: fmt.Sprintf(
			"too many e-stop and enable requests open (%d); retry (an e-stop is always served)", MaxSafetyActive)})
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(SafetyBodyTimeout))
	b, ok := readBodyUpTo(w, r, MaxSafetyBody)
	if !ok {
		return
	}
	on, err := ParseBool(b)
	if err != nil {
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
		return
	}
	// Disabling is never rate limited: like the e-stop, a stop request always goes through.
	if on && !s.allow(w) {
		return
	}
	writeReply(w, http.StatusOK, s.h.Enable(p, on))
}

func (s *Server) postReset(w http.ResponseWriter, r *http.Request) {
	if !s.allow(w) {
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, MaxBody))
	writeReply(w, http.StatusOK, s.h.Reset(PeerFrom(r)))
}

func (s *Server) postScan(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	if a, ok := s.h.(ScanAuthorizer); ok {
		if err := a.AuthorizeScan(p); err != nil {
			s.refusedScans.Add(1)
			refuse(w, http.StatusForbidden, Reply{Message: err.Error()})
			return
		}
	}
	if !isStream(r) {
		if !s.allow(w) {
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxScanLine))
		if err != nil {
			writeReply(w, http.StatusRequestEntityTooLarge, Reply{Message: fmt.Sprintf("scan body over %d bytes", MaxScanLine)})
			return
		}
		var sc Scan
		if err := strictUnmarshal(b, &sc); err != nil {
			writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
			return
		}
		if err := sc.Validate(); err != nil {
			writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
			return
		}
		s.h.Scan(p, &sc, false)
		writeReply(w, http.StatusOK, Reply{Success: true, Message: "scan accepted"})
		return
	}
	s.h.ScanStream(p, true)
	defer s.h.ScanStream(p, false)
	var res StreamResult
	var bad int
	lim := rate.NewLimiter(StreamScanRate, StreamScanBurst)
	tooLong := func() string { return fmt.Sprintf("scan line over %d bytes; stream closed", MaxScanLine) }
	streamLines(w, r.Body, MaxScanLine, &res, tooLong, func(line []byte) bool {
		var sc Scan
		perr := strictUnmarshal(line, &sc)
		if perr == nil {
			perr = sc.Validate()
		}
		switch {
		case perr != nil:
			// A bad scan is not an arrival: it must not hold the scan gate open.
			res.Rejected++
			res.Message = perr.Error()
			if bad++; bad >= MaxBadScanLines {
				writeJSON(w, http.StatusBadRequest, res)
				return false
			}
		case !lim.Allow():
			res.Dropped++
		default:
			s.h.Scan(p, &sc, true)
			res.Accepted++
		}
		return true
	})
}
