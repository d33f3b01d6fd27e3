package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"sync"
	"syscall"
)

// DefaultSocket is where rosorin-base serves its control API (systemd's RuntimeDirectory=rosorin).
const DefaultSocket = "/run/rosorin/base.sock"

// SocketEnv names the environment variable that overrides DefaultSocket for the client commands.
const SocketEnv = "ROSORIN_SOCKET"

// ErrNoDriver is wrapped when nothing answers on the socket path.
var ErrNoDriver = errors.New("no driver")

// Client talks to a driver's control socket. Safe for concurrent use.
type Client struct {
	path string
	hc   *http.Client
	// streams carries the long-lived streams, each on a connection of its own: a stream never reuses a
	// pooled connection the driver may already have closed (a POST with a streamed body is not retried, so
	// a reused dead connection failed the stream with "use of closed network connection" under load).
	streams *http.Client
}

// NewClient returns a client of the socket at path.
func NewClient(path string) *Client {
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	tr := &http.Transport{DialContext: dial, MaxIdleConns: 4}
	st := &http.Transport{DialContext: dial, DisableKeepAlives: true}
	return &Client{path: path, hc: &http.Client{Transport: tr}, streams: &http.Client{Transport: st}}
}

// Path returns the socket path.
func (c *Client) Path() string { return c.path }

// CloseIdle closes idle connections.
func (c *Client) CloseIdle() { c.hc.CloseIdleConnections(); c.streams.CloseIdleConnections() }

// url: the host part is ignored by the unix dialer; "rosorin" documents what it talks to.
func url(route string) string { return "http://rosorin" + route }

// wrapDial turns a dial failure into an error a person can act on.
func (c *Client) wrapDial(err error) error {
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w at %s (is rosorin-base running? pass --socket)", ErrNoDriver, c.path)
	}
	if errors.Is(err, syscall.EACCES) || errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("permission denied on %s: the socket is mode 0660; run as the service's user or a member of its group", c.path)
	}
	return err
}

// HTTPError is a non-2xx answer, with the driver's message.
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("driver answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

func (c *Client) do(ctx context.Context, method, route string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url(route), rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.wrapDial(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var r Reply
		if json.Unmarshal(b, &r) != nil || r.Message == "" {
			r.Message = string(bytes.TrimSpace(b))
		}
		if out != nil {
			_ = json.Unmarshal(b, out) // the reply types carry the details of a refusal too
		}
		return &HTTPError{Status: resp.StatusCode, Message: r.Message}
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("decode %s answer: %w", route, err)
		}
	}
	return nil
}

// State returns one fresh state record.
func (c *Client) State(ctx context.Context) (State, error) {
	var s State
	err := c.do(ctx, http.MethodGet, "/v1/state", nil, &s)
	return s, err
}

// Config returns the driver's configuration as JSON.
func (c *Client) Config(ctx context.Context) (json.RawMessage, error) {
	var m json.RawMessage
	err := c.do(ctx, http.MethodGet, "/v1/config", nil, &m)
	return m, err
}

// Enable turns motion on or off. A refusal (e-stop latched) is a Reply with Success false, not an error.
func (c *Client) Enable(ctx context.Context, on bool) (Reply, error) {
	var r Reply
	err := c.do(ctx, http.MethodPost, "/v1/enable", map[string]bool{"data": on}, &r)
	return r, err
}

// EStop latches the e-stop with an optional reason.
func (c *Client) EStop(ctx context.Context, reason string) (Reply, error) {
	var r Reply
	var body any
	if reason != "" {
		body = map[string]string{"reason": reason}
	}
	err := c.do(ctx, http.MethodPost, "/v1/estop", body, &r)
	return r, err
}

// Reset clears the e-stop latch; motion stays disabled.
func (c *Client) Reset(ctx context.Context) (Reply, error) {
	var r Reply
	err := c.do(ctx, http.MethodPost, "/v1/reset", nil, &r)
	return r, err
}

// CmdVel sends one velocity command (one request). For a steady publisher use StreamCmdVel: one connection,
// one publisher.
func (c *Client) CmdVel(ctx context.Context, t Twist) (CmdReply, error) {
	return c.CmdVelOn(ctx, "", t)
}

// CmdVelOn sends one velocity command on input in ("manual", "autonomous", "cmd_vel"; "" is cmd_vel).
func (c *Client) CmdVelOn(ctx context.Context, in string, t Twist) (CmdReply, error) {
	var r CmdReply
	err := c.do(ctx, http.MethodPost, cmdRoute(in), t, &r)
	return r, err
}

// cmdRoute is the cmd_vel route for input in.
func cmdRoute(in string) string {
	if in == "" {
		return "/v1/cmd_vel"
	}
	return "/v1/cmd_vel?" + InputParam + "=" + neturl.QueryEscape(in)
}

// Follow streams topic (TopicState, TopicIMU, ...) and calls fn with each JSON line until ctx ends, the driver
// closes the stream, or fn returns an error (which Follow returns). The line is valid only during fn.
func (c *Client) Follow(ctx context.Context, topic string, fn func(line []byte) error) error {
	body, err := c.openFollow(ctx, topic)
	if err != nil {
		return err
	}
	defer body.Close()
	return scanLines(ctx, body, topic, fn)
}

// scanLines calls fn with each line of a follow stream's body until fn fails, ctx ends (its error) or the
// stream ends (an error naming topic: the driver closed it, or the read's).
func scanLines(ctx context.Context, body io.Reader, topic string, fn func(line []byte) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), MaxScanLine*2)
	for sc.Scan() {
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s stream: %w", topic, err)
	}
	return fmt.Errorf("%s stream: the driver closed it", topic)
}

// FollowState calls fn with each state record.
func (c *Client) FollowState(ctx context.Context, fn func(State) error) error {
	return followJSON(ctx, c, TopicState, "state", fn)
}

// FollowIMU calls fn with each IMU message.
func (c *Client) FollowIMU(ctx context.Context, fn func(IMU) error) error {
	return followJSON(ctx, c, TopicIMU, "imu", fn)
}

// followJSON follows topic and decodes each line as a T.
func followJSON[T any](ctx context.Context, c *Client, topic, what string, fn func(T) error) error {
	return c.Follow(ctx, topic, func(b []byte) error {
		var m T
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("decode %s: %w", what, err)
		}
		return fn(m)
	})
}

// lineStream is one long-lived POST whose chunked body carries JSON lines, one per Send.
type lineStream struct {
	pw   *io.PipeWriter
	done chan struct{}
	res  StreamResult
	err  error
	mu   sync.Mutex
	enc  *json.Encoder
	once sync.Once
}

func (c *Client) openStream(ctx context.Context, route string) (*lineStream, error) {
	// Dial first so that "no driver" is reported by the open, not by the first Send.
	conn, err := (&net.Dialer{}).DialContext(ctx, "unix", c.path)
	if err != nil {
		return nil, c.wrapDial(err)
	}
	conn.Close()
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url(route), pr)
	if err != nil {
		return nil, err
	}
	req.ContentLength = -1 // chunked: the server reads it as a stream
	req.Header.Set("Content-Type", "application/x-ndjson")
	s := &lineStream{pw: pw, done: make(chan struct{}), enc: json.NewEncoder(pw)}
	go func() {
		defer close(s.done)
		resp, err := c.streams.Do(req)
		if err != nil {
			s.err = c.wrapDial(err)
			pr.CloseWithError(s.err)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = json.Unmarshal(b, &s.res)
		if resp.StatusCode != http.StatusOK {
			s.err = &HTTPError{Status: resp.StatusCode, Message: s.res.Message}
		}
		// The driver answered: it reads no more. Further Sends fail instead of blocking on the pipe.
		pr.CloseWithError(fmt.Errorf("stream closed by the driver: %s", s.res.Message))
	}()
	return s, nil
}

func (s *lineStream) send(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.enc.Encode(v); err != nil {
		select {
		case <-s.done:
			if s.err != nil {
				return s.err
			}
		default:
		}
		return err
	}
	return nil
}

func (s *lineStream) close() (StreamResult, error) {
	s.once.Do(func() { s.pw.Close() })
	<-s.done
	return s.res, s.err
}

// Stream is one long-lived stream of T values to the driver over one connection (velocity commands or
// scans).
type Stream[T any] struct{ s *lineStream }

// Send delivers one value. It fails once the driver has closed the stream (bad input, flood, shutdown).
func (st *Stream[T]) Send(v T) error { return st.s.send(v) }

// Close ends the stream and returns the driver's count of accepted, rejected and dropped lines.
func (st *Stream[T]) Close() (StreamResult, error) { return st.s.close() }

func openTyped[T any](ctx context.Context, c *Client, route string) (*Stream[T], error) {
	s, err := c.openStream(ctx, route)
	if err != nil {
		return nil, err
	}
	return &Stream[T]{s: s}, nil
}

// CmdVelStream is one long-lived velocity command publisher (one connection: one publisher for the
// two-publisher rule, for as long as it is open).
type CmdVelStream = Stream[Twist]

// StreamCmdVel opens a velocity command stream on the cmd_vel input.
func (c *Client) StreamCmdVel(ctx context.Context) (*CmdVelStream, error) {
	return c.StreamCmdVelOn(ctx, "")
}

// StreamCmdVelOn opens a velocity command stream on input in ("manual", "autonomous", "cmd_vel"; "" is
// cmd_vel). An unknown input fails at the first Send or Close with the driver's 400.
func (c *Client) StreamCmdVelOn(ctx context.Context, in string) (*CmdVelStream, error) {
	return openTyped[Twist](ctx, c, cmdRoute(in))
}

// ScanSender delivers LiDAR scans to the driver over one long-lived connection (the reader process's pid is
// taken from it for the state record); the driver's scan gate counts each arrival.
type ScanSender = Stream[Scan]

// StreamScans opens the scan ingestion stream.
func (c *Client) StreamScans(ctx context.Context) (*ScanSender, error) {
	return openTyped[Scan](ctx, c, "/v1/scan")
}
