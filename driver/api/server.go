package api

import (
	"context"
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

	"github.com/rosorin/rosorin/clock"
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
	clk      clock.Clock   // the write and read deadlines (clock.Real{}; WithClock)
	refusals *rate.Limiter // log lines of role refusals (each is counted in refused)
	refused  atomic.Uint64

	badRequests  atomic.Uint64
	throttled    atomic.Uint64
	dropped      atomic.Uint64
	refusedScans atomic.Uint64
}

var _ Transport = (*Server)(nil)

type ctxKey struct{}

// ListenOption configures a Server.
type ListenOption func(*Server)

// WithAccess sets who may do what (access.go). Without it the policy is DefaultAccess of this process's
// uid: this user and root hold every role, the default groups theirs.
func WithAccess(a *Access) ListenOption { return func(s *Server) { s.access = a } }

// now reads the server's clock (clock.Real{} for a Server not made by Listen: the tests' handlers).
func (s *Server) now() time.Time {
	if s.clk == nil {
		return clock.Real{}.Now()
	}
	return s.clk.Now()
}

// WithClock sets the clock the server's socket deadlines are read from (clock.Real{}).
func WithClock(c clock.Clock) ListenOption { return func(s *Server) { s.clk = c } }

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
	clk := probe.clk
	if clk == nil {
		clk = clock.Real{}
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
		access:   access, clk: clk, refusals: rate.NewLimiter(1, 5),
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
	mux.HandleFunc("POST /v1/stops/ack", s.need(RoleSafety, "acknowledging the stop monitor's ERROR", s.postStopsAck))
	mux.HandleFunc("POST /v1/contact", s.need(RoleDrive, "changing the contact reflex's mode", s.postContact))
	mux.HandleFunc("POST /v1/scan", s.postScan)
	return s.middleware(mux)
}

const indexText = `rosorin-base control API (HTTP/1.1 over this unix socket, JSON)
  GET  /v1/state                  one state record
  GET  /v1/state?follow=1         state records at 10 Hz (JSON lines)
  GET  /v1/{imu,scan,battery,odom,gamepad}[?follow=1]   latest message, or a JSON-lines stream
  GET  /v1/log?follow=1           the driver's log records at INFO and above (the last 64 first)
  GET  /v1/stops[?follow=1]       the last stop record, or one JSON line per stop once judged (the stop log: rosorin-base stops)
  GET  /v1/config                 the configuration in use
  POST /v1/config                 {"max_linear":0.3,...}: set runtime parameters, all or nothing (tighten only)
  GET  /v1/params                 every parameter: type, description, read_only, running and start value
  POST /v1/cmd_vel                {"vx":0.1,"vy":0,"wz":0}; a chunked body (curl -T -) is a stream of such lines
  POST /v1/cmd_vel?input=manual   the same on an input: manual (100) > autonomous (10) > cmd_vel (1, the default)
  POST /v1/estop                  latch the e-stop (optional {"reason":"..."})
  POST /v1/enable                 {"data":true} or {"data":false}
  POST /v1/reset                  clear the e-stop latch (motion stays disabled)
  POST /v1/stops/ack              acknowledge the stop monitor's ERROR (its hold on enable ends)
  POST /v1/scan                   LiDAR scans from the reader (JSON lines)
example: curl --unix-socket /run/rosorin/base.sock http://rosorin/v1/state
`

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, indexText)
}
