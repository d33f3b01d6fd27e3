package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/motion"
)

// fakeHandler records what the transport delivered.
type fakeHandler struct {
	mu          sync.Mutex
	cmds        []Twist
	streamFlags []bool
	peers       []Peer
	bad         []string
	cmdStreams  int // open minus closed
	streamOpens int
	scans       int
	scanStreams int
	estops      []string
	enables     []bool
	resets      int
	refuse      bool // CmdVel refuses (as the gate does for absurd values)
	inputs      []motion.Input
}

func (h *fakeHandler) CmdVel(p Peer, in motion.Input, t Twist, stream bool) (CmdReply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cmds = append(h.cmds, t)
	h.inputs = append(h.inputs, in)
	h.streamFlags = append(h.streamFlags, stream)
	h.peers = append(h.peers, p)
	if h.refuse || math.Abs(t.VX) > 2 {
		return CmdReply{Blocked: "disabled"}, errors.New("refused: absurd")
	}
	return CmdReply{Success: true, Message: "accepted"}, nil
}
func (h *fakeHandler) BadCommand(p Peer, in motion.Input, why string) {
	h.mu.Lock()
	h.bad = append(h.bad, why)
	h.mu.Unlock()
}
func (h *fakeHandler) CmdStream(p Peer, in motion.Input, open bool) {
	h.mu.Lock()
	if open {
		h.cmdStreams++
		h.streamOpens++
	} else {
		h.cmdStreams--
	}
	h.mu.Unlock()
}
func (h *fakeHandler) EStop(p Peer, reason string) Reply {
	h.mu.Lock()
	h.estops = append(h.estops, reason)
	h.mu.Unlock()
	return Reply{Success: true, Message: "e-stop latched"}
}
func (h *fakeHandler) Enable(p Peer, on bool) Reply {
	h.mu.Lock()
	h.enables = append(h.enables, on)
	h.mu.Unlock()
	return Reply{Success: true, Message: map[bool]string{true: "enabled", false: "disabled"}[on]}
}
func (h *fakeHandler) Reset(p Peer) Reply {
	h.mu.Lock()
	h.resets++
	h.mu.Unlock()
	return Reply{Success: true, Message: "e-stop cleared (was: none); motion still disabled"}
}
func (h *fakeHandler) Scan(p Peer, s *Scan, stream bool) {
	h.mu.Lock()
	h.scans++
	h.mu.Unlock()
}
func (h *fakeHandler) ScanStream(p Peer, open bool) {
	h.mu.Lock()
	if open {
		h.scanStreams++
	} else {
		h.scanStreams--
	}
	h.mu.Unlock()
}
func (h *fakeHandler) State() (State, error) { return State{Enabled: true, PadMode: "locked"}, nil }
func (h *fakeHandler) Config() any           { return map[string]float64{"max_linear": 0.35} }

func (h *fakeHandler) snap() fakeHandler {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fakeHandler{cmds: append([]Twist(nil), h.cmds...), streamFlags: append([]bool(nil), h.streamFlags...),
		peers: append([]Peer(nil), h.peers...), bad: append([]string(nil), h.bad...), cmdStreams: h.cmdStreams,
		streamOpens: h.streamOpens, scans: h.scans, scanStreams: h.scanStreams, estops: h.estops,
		enables: h.enables, resets: h.resets}
}

func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "api")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func newTestServer(t *testing.T) (*Server, *fakeHandler, *Client) {
	t.Helper()
	h := &fakeHandler{}
	s, c := listenFor(t, h)
	return s, h, c
}

// listenFor serves h on a socket of its own (logs discarded) and returns the server and a client of it; both
// end with the test.
func listenFor(t *testing.T, h Handler, opts ...ListenOption) (*Server, *Client) {
	t.Helper()
	path := filepath.Join(shortDir(t), "base.sock")
	s, err := Listen(path, h, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := NewClient(path)
	t.Cleanup(c.CloseIdle)
	return s, c
}

func post(t *testing.T, c *Client, route, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url(route), strings.NewReader(body))
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestParseTwist(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Twist
		ok   bool
	}{
		{`{"vx":0.1,"vy":-0.05,"wz":0.5}`, Twist{0.1, -0.05, 0.5}, true},
		{`{"vx":0.1}`, Twist{VX: 0.1}, true},
		{`{"linear":{"x":0.1,"y":0.2,"z":0},"angular":{"x":0,"y":0,"z":-0.3}}`, Twist{0.1, 0.2, -0.3}, true},
		{`{"angular":{"z":1}}`, Twist{WZ: 1}, true},
		{`{"vx":1e30}`, Twist{VX: 1e30}, true}, // syntax fine; the gate refuses it
		{`{}`, Twist{}, false},
		{`{"vx":0.1,"linear":{"x":0.1}}`, Twist{}, false},
		{`{"linear":{"z":0.1}}`, Twist{}, false},
		{`{"angular":{"x":0.1}}`, Twist{}, false},
		{`{"vx":NaN}`, Twist{}, false},
		{`{"vx":Infinity}`, Twist{}, false},
		{`{"vx":1e999}`, Twist{}, false},
		{`{"vx":"1"}`, Twist{}, false},
		{`{"vx":0.1,"extra":1}`, Twist{}, false},
		{`{"vx":0.1} {"vx":0.2}`, Twist{}, false},
		{`[0.1,0,0]`, Twist{}, false},
		{``, Twist{}, false},
		{`null`, Twist{}, false},
	} {
		got, err := ParseTwist([]byte(c.in))
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseTwist(%s) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
		if err != nil && !errors.Is(err, ErrBadMessage) {
			t.Errorf("ParseTwist(%s) error %v does not wrap ErrBadMessage", c.in, err)
		}
	}
}

func TestRangesNullIsInf(t *testing.T) {
	r := Ranges{1.5, float32(math.Inf(1)), 0.12, float32(math.NaN())}
	b, err := json.Marshal(r)
	if err != nil || string(b) != "[1.5,null,0.12,null]" {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back Ranges
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back[0] != 1.5 || !math.IsInf(float64(back[1]), 1) || back[2] != 0.12 || !math.IsInf(float64(back[3]), 1) {
		t.Fatalf("round trip %v", back)
	}
	s := Scan{Stamp: time.Now(), Ranges: r, AngleIncrement: 0.0157}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Scan{
		{Stamp: time.Now()},
		{Stamp: time.Now(), Ranges: r, ScanTime: math.NaN()},
		{Stamp: time.Now(), Ranges: r, Intensities: []float32{1}},
		{Ranges: r},
		{Stamp: time.Now(), Ranges: make(Ranges, MaxScanBins+1)},
	}
	for i, b := range bad {
		if b.Validate() == nil {
			t.Errorf("bad scan %d accepted", i)
		}
	}
}

func TestServerRoutesAndPeer(t *testing.T) {
	s, h, c := newTestServer(t)
	fi, err := os.Stat(s.Path())
	if err != nil || fi.Mode().Perm() != SocketMode {
		t.Fatalf("socket mode %v %v, want 0660", fi.Mode(), err)
	}
	ctx := context.Background()
	if st, err := c.State(ctx); err != nil || !st.Enabled {
		t.Fatalf("state %+v %v", st, err)
	}
	if r, err := c.Enable(ctx, true); err != nil || r.Message != "enabled" {
		t.Fatalf("enable %+v %v", r, err)
	}
	if r, err := c.CmdVel(ctx, Twist{VX: 0.1}); err != nil || !r.Success {
		t.Fatalf("cmd_vel %+v %v", r, err)
	}
	hs := h.snap()
	if len(hs.peers) != 1 || hs.peers[0].PID != os.Getpid() || hs.peers[0].PPID != os.Getppid() || hs.peers[0].Comm == "" {
		t.Fatalf("peer %+v, want this process (pid %d ppid %d) from SO_PEERCRED", hs.peers, os.Getpid(), os.Getppid())
	}
	if hs.streamFlags[0] {
		t.Fatal("one-shot command flagged as stream")
	}
	if r, err := c.CmdVel(ctx, Twist{VX: 5}); err == nil || r.Blocked != "disabled" {
		t.Fatalf("refused command: %+v %v, want an error with the block reason", r, err)
	}
	if r, err := c.EStop(ctx, "why"); err != nil || !r.Success || h.snap().estops[0] != "why" {
		t.Fatalf("estop %+v %v", r, err)
	}
	if r, err := c.Reset(ctx); err != nil || !strings.HasPrefix(r.Message, "e-stop cleared") {
		t.Fatalf("reset %+v %v", r, err)
	}
	if cfg, err := c.Config(ctx); err != nil || !strings.Contains(string(cfg), "max_linear") {
		t.Fatalf("config %s %v", cfg, err)
	}
	for _, tc := range []struct {
		method, route, body string
		want                int
	}{
		{"GET", "/", "", 200},
		{"GET", "/v1/imu", "", 404}, // nothing published yet
		{"GET", "/v1/nothing", "", 404},
		{"GET", "/v1/cmd_vel", "", 405},
		{"POST", "/v1/enable", `{}`, 400},
		{"POST", "/v1/enable", `{"data":"yes"}`, 400},
		{"POST", "/v1/enable", strings.Repeat(" ", MaxSafetyBody+1), 413},
		{"POST", "/v1/estop", `garbage`, 200}, // an e-stop is never refused
		{"POST", "/v1/estop", `{"data":false}`, 200},
		{"POST", "/v1/scan", `{"ranges":[1]}`, 400}, // no stamp
	} {
		req, _ := http.NewRequest(tc.method, url(tc.route), strings.NewReader(tc.body))
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s %s %q: %d, want %d", tc.method, tc.route, tc.body, resp.StatusCode, tc.want)
		}
	}
	if n := len(h.snap().estops); n != 2 {
		t.Errorf("%d e-stops delivered, want 2 (garbage body latches, data false does not)", n)
	}
	if st := s.Stats(); st.BadRequests < 6 {
		t.Errorf("bad requests counted %d, want >= 6", st.BadRequests)
	}
	s.Publish(TopicIMU, IMU{FrameID: "imu_link"})
	req, _ := http.NewRequest("GET", url("/v1/imu"), nil)
	resp, err := c.hc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("latest imu: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestServerBadCommandsAndFloods(t *testing.T) {
	s, h, c := newTestServer(t)
	if code, _ := post(t, c, "/v1/cmd_vel", `{"vx":NaN}`); code != 400 {
		t.Fatalf("NaN: %d", code)
	}
	if code, _ := post(t, c, "/v1/cmd_vel", `{"vx":0.1,"x":"`+strings.Repeat("a", MaxBody)+`"}`); code != 413 {
		t.Fatalf("oversize: %d", code)
	}
	if n := len(h.snap().bad); n != 2 {
		t.Fatalf("%d bad commands reported to the driver, want 2 (they stop the wheels)", n)
	}
	throttled := 0
	for range 300 {
		if code, _ := post(t, c, "/v1/cmd_vel", `{"vx":0.1}`); code == 429 {
			throttled++
		}
	}
	if throttled == 0 || s.Stats().Throttled != uint64(throttled) {
		t.Fatalf("throttled %d, counted %d", throttled, s.Stats().Throttled)
	}
	// While throttled, e-stop and disable still go through.
	if code, _ := post(t, c, "/v1/estop", ``); code != 200 {
		t.Fatalf("estop while throttled: %d", code)
	}
	if code, _ := post(t, c, "/v1/enable", `{"data":false}`); code != 200 {
		t.Fatalf("disable while throttled: %d", code)
	}
}

func TestServerCmdStream(t *testing.T) {
	_, h, c := newTestServer(t)
	st, err := c.StreamCmdVel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := st.Send(Twist{VX: float64(i) / 100}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			time.Sleep(20 * time.Millisecond)
			if h.snap().cmdStreams != 1 {
				t.Fatal("open stream not reported as a publisher")
			}
		}
	}
	if err := st.Send(Twist{VX: 9}); err != nil { // refused by the handler, the stream goes on
		t.Fatal(err)
	}
	res, err := st.Close()
	if err != nil || res.Accepted != 20 || res.Rejected != 1 || !res.Success {
		t.Fatalf("stream result %+v %v", res, err)
	}
	hs := h.snap()
	if hs.cmdStreams != 0 || hs.streamOpens != 1 || len(hs.cmds) != 21 || !hs.streamFlags[0] {
		t.Fatalf("handler saw streams %d opens %d cmds %d flags %v", hs.cmdStreams, hs.streamOpens, len(hs.cmds), hs.streamFlags)
	}
	// A flood on one stream: dropped, then closed with 429; Send fails after that instead of blocking.
	st, err = c.StreamCmdVel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sendErr error
	for i := 0; i < 5000 && sendErr == nil; i++ {
		sendErr = st.Send(Twist{VX: 0.1})
	}
	res, err = st.Close()
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 429 || res.Dropped < StreamFloodLimit {
		t.Fatalf("flood: %+v %v (send err %v)", res, err, sendErr)
	}
	// A garbage line closes the stream with 400 and is reported.
	st, _ = c.StreamCmdVel(context.Background())
	st.Send(Twist{VX: 0.1})
	st.s.pw.Write([]byte("{\"vx\":0.1,\"oops\n"))
	st.s.pw.Write([]byte("{\"vx\":0.1}\n"))
	_, err = st.Close()
	if !errors.As(err, &he) || he.Status != 400 {
		t.Fatalf("garbage stream: %v", err)
	}
	if n := len(h.snap().bad); n != 1 {
		t.Fatalf("bad lines reported %d, want 1", n)
	}
}

func TestServerScanStream(t *testing.T) {
	_, h, c := newTestServer(t)
	ss, err := c.StreamScans(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sc := Scan{Stamp: time.Now(), Ranges: Ranges{1, float32(math.Inf(1))}, AngleIncrement: 0.1}
	for range 5 {
		if err := ss.Send(sc); err != nil {
			t.Fatal(err)
		}
	}
	ss.Send(Scan{Ranges: Ranges{1}}) // no stamp: refused, not an arrival
	res, err := ss.Close()
	if err != nil || res.Accepted != 5 || res.Rejected != 1 {
		t.Fatalf("scan stream %+v %v", res, err)
	}
	if hs := h.snap(); hs.scans != 5 || hs.scanStreams != 0 {
		t.Fatalf("handler saw %d scans, %d open streams", hs.scans, hs.scanStreams)
	}
}

func TestFollowNeverBlocksPublish(t *testing.T) {
	s, _, c := newTestServer(t)
	// A follower that reads nothing: its queue fills and messages are dropped and counted.
	conn, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/imu?follow=1 HTTP/1.1\r\nHost: rosorin\r\n\r\n")
	time.Sleep(50 * time.Millisecond)
	if s.Stats().Subscribers != 1 {
		t.Fatalf("subscribers %d", s.Stats().Subscribers)
	}
	t0 := time.Now()
	for range 20000 {
		s.Publish(TopicIMU, &IMU{FrameID: "imu_link"})
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("20000 publishes to a stuck follower took %v", d)
	}
	if s.Stats().Dropped == 0 {
		t.Fatal("no drops counted for a follower that reads nothing")
	}
	// A reading follower gets messages as JSON lines.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	got := make(chan IMU, 1)
	go c.FollowIMU(ctx, func(m IMU) error { got <- m; return errors.New("done") })
	deadline := time.After(2 * time.Second)
	for {
		s.Publish(TopicIMU, &IMU{FrameID: "x"})
		select {
		case m := <-got:
			if m.FrameID != "x" {
				t.Fatalf("follower got %+v", m)
			}
			return
		case <-deadline:
			t.Fatal("follower got nothing")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestFollowStateFirstRecordAndClose(t *testing.T) {
	s, _, c := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n := 0
	done := make(chan error, 1)
	go func() {
		done <- c.FollowState(ctx, func(st State) error {
			n++
			if n == 1 && st.PadMode != "locked" {
				return fmt.Errorf("first record %+v", st)
			}
			return nil
		})
	}()
	time.Sleep(50 * time.Millisecond)
	s.Publish(TopicState, State{Enabled: false})
	time.Sleep(50 * time.Millisecond)
	s.Close() // open streams end with the server
	select {
	case err := <-done:
		if err == nil || n != 2 {
			t.Fatalf("follow ended with %v after %d records, want an error after 2", err, n)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("follower not ended by Close")
	}
}

func TestListenStaleLiveAndPlain(t *testing.T) {
	dir := shortDir(t)
	path := filepath.Join(dir, "s.sock")
	// Stale: a socket file nobody listens on.
	fd, _ := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	s, err := Listen(path, &fakeHandler{}, nil)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	// Live: refused, the first keeps serving.
	if _, err := Listen(path, &fakeHandler{}, nil); !errors.Is(err, ErrLiveDriver) {
		t.Fatalf("second listener: %v", err)
	}
	if _, err := NewClient(path).State(context.Background()); err != nil {
		t.Fatalf("first server hurt: %v", err)
	}
	s.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("socket file left after Close: %v", err)
	}
	// Plain file: never removed.
	os.WriteFile(path, []byte("keep"), 0o644)
	if _, err := Listen(path, &fakeHandler{}, nil); err == nil {
		t.Fatal("listened over a plain file")
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Fatal("plain file removed")
	}
	// No driver: a clear error.
	_, err = NewClient(filepath.Join(dir, "none.sock")).State(context.Background())
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "is rosorin-base running? pass --socket") {
		t.Fatalf("no driver: %v", err)
	}
	if _, err := NewClient(filepath.Join(dir, "none.sock")).StreamCmdVel(context.Background()); !errors.Is(err, ErrNoDriver) {
		t.Fatalf("no driver (stream): %v", err)
	}
}

func TestCurlStyleChunkedStream(t *testing.T) {
	s, h, _ := newTestServer(t)
	conn, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// What `printf '{"vx":0.1}\n...' | curl -T - --unix-socket S http://rosorin/v1/cmd_vel` sends.
	body := "{\"vx\":0.1}\n{\"linear\":{\"x\":0.1}}\n"
	fmt.Fprintf(conn, "POST /v1/cmd_vel HTTP/1.1\r\nHost: rosorin\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == 100 {
		resp, err = http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	var res StreamResult
	json.NewDecoder(resp.Body).Decode(&res)
	if resp.StatusCode != 200 || res.Accepted != 2 || len(h.snap().cmds) != 2 {
		t.Fatalf("chunked stream: %d %+v", resp.StatusCode, res)
	}
}

// openRaw opens a connection and sends a request head (and nothing more): a follower or an unfinished stream.
func openRaw(t *testing.T, path, head string) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); !ok(); {
		if time.Now().After(end) {
			t.Fatalf("timeout waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestSafetyRequestsNeverRefused: e-stop and disable go through whatever the other clients hold: MaxFollowers
// open follow streams, then MaxActive open cmd_vel streams on top, an exhausted rate limit, and a disable body
// over MaxBody. Follow streams have a cap of their own, and other requests still meet MaxActive.
func TestSafetyRequestsNeverRefused(t *testing.T) {
	s, h, c := newTestServer(t)
	for range MaxFollowers {
		openRaw(t, s.Path(), "GET /v1/imu?follow=1 HTTP/1.1\r\nHost: rosorin\r\n\r\n")
	}
	waitFor(t, "followers", func() bool { return s.Stats().Subscribers == MaxFollowers })
	if code, body := post(t, c, "/v1/estop", `{"reason":"test"}`); code != 200 {
		t.Fatalf("estop with %d followers open: %d %s", MaxFollowers, code, body)
	}
	if code, body := post(t, c, "/v1/enable", `{"data":false}`); code != 200 {
		t.Fatalf("disable with %d followers open: %d %s", MaxFollowers, code, body)
	}
	// One follower more is refused by the followers' own cap, and a one-shot request is not.
	resp, err := c.hc.Get(url("/v1/imu?follow=1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("follower %d: %d, want 503", MaxFollowers+1, resp.StatusCode)
	}
	if code, _ := post(t, c, "/v1/cmd_vel", `{"vx":0.1}`); code != 200 {
		t.Fatalf("one-shot command with the followers full: %d, want 200 (a cap of their own)", code)
	}
	for range MaxActive {
		openRaw(t, s.Path(), "POST /v1/cmd_vel HTTP/1.1\r\nHost: rosorin\r\nTransfer-Encoding: chunked\r\n\r\n")
	}
	waitFor(t, "cmd streams", func() bool { return h.snap().cmdStreams == MaxActive })
	if code, _ := post(t, c, "/v1/reset", ``); code != http.StatusServiceUnavailable {
		t.Fatalf("reset with %d requests open: %d, want 503", MaxActive, code)
	}
	if code, body := post(t, c, "/v1/estop", ``); code != 200 {
		t.Fatalf("estop with %d followers and %d streams open: %d %s", MaxFollowers, MaxActive, code, body)
	}
	if code, body := post(t, c, "/v1/enable", `{"data":false}`); code != 200 {
		t.Fatalf("disable with %d followers and %d streams open: %d %s", MaxFollowers, MaxActive, code, body)
	}
	// Rate limit exhausted (the limiter is shared by one-shot requests).
	for s.requests.Allow() {
	}
	if code, _ := post(t, c, "/v1/estop", ``); code != 200 {
		t.Fatalf("estop with the rate limit exhausted: %d", code)
	}
	if code, _ := post(t, c, "/v1/enable", `{"data":false}`); code != 200 {
		t.Fatalf("disable with the rate limit exhausted: %d", code)
	}
	// A disable with a padded body over MaxBody (a generous client library, a pretty printer) still disables.
	if code, body := post(t, c, "/v1/enable", `{"data":false}`+strings.Repeat(" ", 2*MaxBody)); code != 200 {
		t.Fatalf("disable with a %d-byte body: %d %s", 2*MaxBody, code, body)
	}
	if code, _ := post(t, c, "/v1/estop", `{"reason":"`+strings.Repeat("x", 2*MaxBody)+`"}`); code != 200 {
		t.Fatalf("estop with a %d-byte body: %d", 2*MaxBody, code)
	}
	got := h.snap()
	if len(got.estops) != 4 || len(got.enables) != 4 {
		t.Fatalf("handler got %d e-stops and %d enables, want 4 each", len(got.estops), len(got.enables))
	}
	for _, on := range got.enables {
		if on {
			t.Fatal("an enable(true) reached the handler")
		}
	}
}

// gatedHandler is a fakeHandler that also decides who may send scans (the ScanAuthorizer ability).
type gatedHandler struct {
	fakeHandler
	allow func(Peer) error
	asked int
}

func (h *gatedHandler) AuthorizeScan(p Peer) error {
	h.mu.Lock()
	h.asked++
	h.mu.Unlock()
	return h.allow(p)
}

// TestServerScanSenderRefused: a handler with AuthorizeScan refusing the peer: a scan stream and a one-shot
// scan get 403 with the handler's reason; nothing reaches Scan or ScanStream (no arrival for the scan gate, no
// reader pid); the refusals are counted. Allowed again, the same client's stream is accepted.
func TestServerScanSenderRefused(t *testing.T) {
	h := &gatedHandler{allow: func(p Peer) error { return errors.New("not the LiDAR reader") }}
	s, c := listenFor(t, h)
	sc := Scan{Stamp: time.Now(), Ranges: Ranges{1, 2}, AngleIncrement: 0.1}
	ss, err := c.StreamScans(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A reader sends a few KB a second: it must hear the refusal while it is still sending, not only when it
	// ends its stream.
	sends := 0
	for ; sends < 100 && ss.Send(sc) == nil; sends++ {
		time.Sleep(10 * time.Millisecond)
	}
	if sends == 100 {
		t.Fatal("the refused scan stream still took scans after 1 s")
	}
	_, err = ss.Close()
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusForbidden || !strings.Contains(he.Message, "not the LiDAR reader") {
		t.Fatalf("refused scan stream: %v, want 403 with the handler's reason", err)
	}
	b, _ := json.Marshal(sc)
	if code, body := post(t, c, "/v1/scan", string(b)); code != http.StatusForbidden {
		t.Fatalf("refused one-shot scan: %d %s", code, body)
	}
	if hs := h.snap(); hs.scans != 0 || hs.scanStreams != 0 {
		t.Fatalf("refused sender reached the handler: %d scans, %d streams", hs.scans, hs.scanStreams)
	}
	if st := s.Stats(); st.RefusedScans != 2 || st.BadRequests != 2 {
		t.Fatalf("stats %+v: want 2 refused scan requests, counted as bad requests", st)
	}
	h.mu.Lock()
	h.allow = func(Peer) error { return nil }
	h.mu.Unlock()
	ss, err = c.StreamScans(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := ss.Send(sc); err != nil {
			t.Fatal(err)
		}
	}
	if res, err := ss.Close(); err != nil || res.Accepted != 3 {
		t.Fatalf("allowed stream: %+v %v", res, err)
	}
	if hs := h.snap(); hs.scans != 3 {
		t.Fatalf("allowed stream: handler saw %d scans", hs.scans)
	}
}

// TestServerInputs: ?input= names the velocity input of a one-shot command and of a stream; an unknown input
// is answered 400 with the inputs' names and reaches the handler not at all (not even as a bad command).
func TestServerInputs(t *testing.T) {
	s, h, c := newTestServer(t)
	if _, err := c.CmdVelOn(context.Background(), "manual", Twist{VX: 0.1}); err != nil {
		t.Fatal(err)
	}
	st, err := c.StreamCmdVelOn(context.Background(), "autonomous")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(Twist{VX: 0.2}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CmdVel(context.Background(), Twist{}); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	got := append([]motion.Input(nil), h.inputs...)
	h.mu.Unlock()
	if want := []motion.Input{motion.InputManual, motion.InputAutonomous, motion.InputCmdVel}; !slices.Equal(got, want) {
		t.Fatalf("inputs %v, want %v", got, want)
	}
	before := h.snap()
	for _, route := range []string{"/v1/cmd_vel?input=teleop", "/v1/cmd_vel?input=MANUAL", "/v1/cmd_vel?input="} {
		code, body := post(t, c, route, `{"vx":0.1}`)
		if route == "/v1/cmd_vel?input=" { // empty is cmd_vel, as no input
			if code != 200 {
				t.Fatalf("%s: %d %s", route, code, body)
			}
			continue
		}
		if code != 400 || !strings.Contains(body, "use manual, autonomous or cmd_vel") || !strings.Contains(body, "nothing was changed") {
			t.Fatalf("%s: %d %s", route, code, body)
		}
	}
	bad, err := c.StreamCmdVelOn(context.Background(), "nav2")
	if err != nil {
		t.Fatal(err) // the open succeeds (the dial); the driver's 400 comes with the first Send or the Close
	}
	if _, err := bad.Close(); err == nil || !strings.Contains(err.Error(), `unknown velocity input "nav2"`) {
		t.Fatalf("a stream on an unknown input: %v", err)
	}
	after := h.snap()
	if len(after.cmds) != len(before.cmds)+1 || len(after.bad) != len(before.bad) || after.streamOpens != before.streamOpens {
		t.Fatalf("an unknown input reached the handler: cmds %d -> %d, bad %d -> %d", len(before.cmds), len(after.cmds), len(before.bad), len(after.bad))
	}
	if s.Stats().BadRequests < 2 {
		t.Fatalf("bad requests %d, want the unknown inputs counted", s.Stats().BadRequests)
	}
}
