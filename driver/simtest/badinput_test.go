// Bad input end to end: whatever arrives on the control socket or the board link, no non-finite or
// over-limit wheel speed reaches the board, and the driver's counters show what it dropped.

package simtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

func TestBadInputNeverReachesTheBoard(t *testing.T) {
	s := sharedStack(t)
	seq0 := s.sim.RxSeq()
	s.mustEnable(t)
	st0 := s.state(t)
	drv := st0.PIDs.Driver
	p := s.publish(t, api.Twist{VX: 0.1})
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	// stopsWheels runs send while the wheels are commanded to turn and returns how long the stop frame took.
	stopsWheels := func(what string, send func()) time.Duration {
		t.Helper()
		if _, ok := s.waitTruth(2*time.Second, func(tr sim.Truth) bool { return tr.TargetRPS[0] > 0 }); !ok {
			t.Fatalf("%s: wheels not commanded before it", what)
		}
		seq := s.sim.RxSeq()
		t0 := time.Now()
		send()
		r, _, ok := s.waitRx(seq, time.Second, stopAfter(t0))
		if !ok {
			t.Fatalf("%s did not stop the wheels within 1 s", what)
		}
		return r.T.Sub(t0)
	}

	// Over the limit but not absurd (< 10x max_linear): clamped to max_linear, never more.
	p.Set(api.Twist{VX: 3.0})
	clamp := s.fwdBound * 0.999
	r, _, ok := s.waitRx(seq0, 3*time.Second, func(r sim.Received) bool {
		rps, err := standtest.MotorSpeeds(r.Func, r.Payload, 0)
		return err == nil && rps[0] >= clamp
	})
	if !ok {
		t.Fatalf("vx 3.0 never reached the max_linear clamp (%.4f rps)", s.fwdBound)
	}
	t.Logf("vx 3.0 m/s clamped: frame % x", frameBytes(r))
	p.Set(api.Twist{VX: 0.1})

	// One-shot requests with non-finite, huge, overflowing and malformed bodies: each refused, each stops the
	// wheels (the publisher keeps driving them again between cases).
	bodies := []struct{ name, body string }{
		{"huge vx 1e30", `{"vx":1e30}`},
		{"huge wz -1e9", `{"wz":-1e9}`},
		{"NaN literal", `{"vx":NaN}`},
		{"Infinity literal", `{"vx":Infinity}`},
		{"overflow 1e400", `{"vx":1e400}`},
		{"string", `{"vx":"fast"}`},
		{"not JSON", `vx=0.1`},
	}
	var stopLat []string
	for _, c := range bodies {
		var code int
		d := stopsWheels(c.name, func() { code = rawPost(t, s.Socket, "/v1/cmd_vel", c.body) })
		if code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", c.name, code)
		}
		stopLat = append(stopLat, fmt.Sprintf("%s %s", c.name, testkit.Ms(d)))
	}
	t.Logf("refused one-shot commands -> stop frame: %s", strings.Join(stopLat, "; "))
	if code := rawPost(t, s.Socket, "/v1/cmd_vel", `{"vx":0.1,"pad":"`+strings.Repeat("x", 8000)+`"}`); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversize body: status %d, want 413", code)
	}

	// A stream: good lines, then a huge one (refused, wheels stopped, the stream goes on), then garbage bytes
	// (the wheels stopped and the stream closed with 400).
	var code int
	var res api.StreamResult
	d := stopsWheels("garbage line in a stream", func() {
		code, res = rawStream(t, s.Socket, "/v1/cmd_vel", []string{`{"vx":0.1}`, `{"vx":1e30}`, `{"vx":0.1}`, "\x00\xff\xfe garbage \x1b[2J", `{"vx":0.1}`})
	})
	if code != http.StatusBadRequest || res.Accepted != 2 || res.Rejected != 1 {
		t.Errorf("garbage stream: status %d result %+v, want 400 with 2 accepted and 1 rejected", code, res)
	}
	t.Logf("stream with a huge and a garbage line -> stop frame %s; %q", testkit.Ms(d), res.Message)

	// Garbage bytes at the HTTP level: random bytes, a broken request line, a request cut off mid-body.
	rng := rand.New(rand.NewPCG(7, 7))
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(rng.IntN(256))
	}
	for _, raw := range [][]byte{junk, []byte("GARBAGE / HTTP/9.9\r\n\r\n"),
		[]byte("POST /v1/cmd_vel HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"vx\":0.3")} {
		rawBytes(t, s.Socket, raw)
	}

	// Flooding: one-shot requests as fast as they go, and one stream writing 1000 lines at once. The server's
	// limiter admits api.RequestBurst requests at once and api.RequestRate a second after, so the flood must
	// be throttled once more have arrived than that. On a quiet machine 300 arrive faster. Under -race beside
	// other tests they may not (a CI lane sent them slower than the limit, and rightly none was throttled):
	// there only the limiter's rule is checked.
	throttled, fStart := 0, time.Now()
	for range 300 {
		if rawPost(t, s.Socket, "/v1/cmd_vel", `{"vx":0.05}`) == http.StatusTooManyRequests {
			throttled++
		}
	}
	fFor := time.Since(fStart)
	admissible := api.RequestBurst + api.RequestRate*fFor.Seconds()
	switch {
	case throttled > 0:
	case 300 > admissible+5:
		t.Errorf("300 one-shot commands in %v (the limiter admits %.0f in that time) were never throttled", fFor.Round(time.Millisecond), admissible)
	case testkit.RaceEnabled:
		t.Logf("300 one-shot commands took %v: never faster than the limiter admits (%.0f), so nothing to throttle under -race", fFor.Round(time.Millisecond), admissible)
	default:
		t.Errorf("300 one-shot commands took %v, within what the limiter admits (%.0f): too slow a flood to test it", fFor.Round(time.Millisecond), admissible)
	}
	lines := make([]string, 1000)
	for i := range lines {
		lines[i] = `{"vx":0.1}`
	}
	code, res = rawStream(t, s.Socket, "/v1/cmd_vel", lines)
	if code != http.StatusTooManyRequests || res.Dropped < api.StreamFloodLimit {
		t.Errorf("flooding stream: status %d result %+v, want 429 with >= %d dropped", code, res, api.StreamFloodLimit)
	}
	t.Logf("floods: %d of 300 one-shots throttled (429); stream of 1000 lines: %d accepted, %d dropped, %q", throttled, res.Accepted, res.Dropped, res.Message)

	// 1 % of the bytes corrupted both ways while driving.
	if _, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatal("wheels not turning before the corruption")
	}
	stC := s.state(t)
	simC := s.sim.Stats()
	seqC := s.sim.RxSeq()
	s.corruptToBoard(t, 0.01, 0.01)
	tC := time.Now()
	corruptFor := 3 * time.Second
	// The command alternates between 0.1 and 0.2 m/s every 0.1 s: the ramp then changes the frame at every
	// tick, about 50 frames a second to be damaged on the way (a steady command is refreshed at 5 Hz only).
	for i := 0; time.Since(tC) < corruptFor; i++ { // observation: the wheels keep turning, nothing trips
		if i%5 == 0 {
			p.Set(api.Twist{VX: 0.1 + 0.1*float64(i/5%2)})
		}
		if tr := s.sim.Truth(); !standtest.Turning(wheelsOf(tr)) {
			if st := s.state(t); st.EStop != nil || !st.Enabled {
				t.Fatalf("corrupted bytes disturbed the driver: estop %s enabled %v", strp(st.EStop), st.Enabled)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.corruptToBoard(t, 0, 0)
	p.Set(api.Twist{VX: 0.1})
	st := s.state(t)
	simS := s.sim.Stats()
	rep := s.checkFramesSince(t, seqC, s.fwdBound, nil)
	link := st.Link
	t.Logf("1%% corruption both ways for %v: driver saw bad_checksum +%d, skipped_bytes +%d, unknown_func +%d, malformed +%d, imu_hz %.1f; the board's parser dropped %d bad frames and skipped %d bytes; %d frames reached it (%d moving), %d damaged in transit passed CRC-8; %d bytes corrupted",
		corruptFor, link.BadChecksum-stC.Link.BadChecksum, link.SkippedBytes-stC.Link.SkippedBytes, link.UnknownFunc-stC.Link.UnknownFunc,
		link.Malformed-stC.Link.Malformed, link.IMUHz, simS.BoardRx.BadChecksum-simC.BoardRx.BadChecksum, simS.BoardRx.SkippedBytes-simC.BoardRx.SkippedBytes, rep.n, rep.moving, rep.transit,
		simS.CorruptedBytes-simC.CorruptedBytes)
	if link.BadChecksum == stC.Link.BadChecksum || link.SkippedBytes == stC.Link.SkippedBytes {
		t.Errorf("the driver's counters do not show the corrupted board bytes: %+v", link)
	}
	if simS.BoardRx.BadChecksum+simS.BoardRx.SkippedBytes == simC.BoardRx.BadChecksum+simC.BoardRx.SkippedBytes {
		t.Error("the board's parser dropped nothing: the to-board corruption did not happen")
	}
	if link.IMUHz < 60 || st.EStop != nil || !st.Enabled || st.BoardSilent {
		t.Errorf("after the corruption: imu_hz %.1f estop %s enabled %v board_silent %v", link.IMUHz, strp(st.EStop), st.Enabled, st.BoardSilent)
	}
	if rep.moving == 0 {
		t.Error("no moving frame reached the board during the corruption")
	}

	// What was dropped, from the driver's counters: every refused command, the bad requests, the 429s.
	p.Halt()
	refused := uint64(len(bodies) + 2) // the one-shots, the stream's huge line and its garbage line
	if got := link.RejectedCmds - st0.Link.RejectedCmds; got < refused {
		t.Errorf("rejected_cmds grew by %d, want >= %d", got, refused)
	}
	if got := link.Throttled - st0.Link.Throttled; got < uint64(throttled) {
		t.Errorf("throttled grew by %d, want >= %d", got, throttled)
	}
	if got := link.BadRequests - st0.Link.BadRequests; got < uint64(len(bodies)+1+throttled) {
		t.Errorf("bad_requests grew by %d, want >= %d", got, len(bodies)+1+throttled)
	}
	if st.PIDs.Driver != drv {
		t.Errorf("the driver was replaced (pid %d -> %d) by bad input", drv, st.PIDs.Driver)
	}
	t.Logf("counters: rejected_cmds +%d, bad_requests +%d, throttled +%d; last_rejected %q", link.RejectedCmds-st0.Link.RejectedCmds,
		link.BadRequests-st0.Link.BadRequests, link.Throttled-st0.Link.Throttled, st.LastRejected)
	// Every frame of the whole test, forward commands only: the max_linear clamp is the bound.
	all := s.checkFramesSince(t, seq0, s.fwdBound, nil)
	t.Logf("all %d frames checked: largest |rps| %.4f (bound %.4f)", all.n, all.maxAbs, s.fwdBound)
}

// rawPost sends body as is and returns the status (0 on a transport error, which fails the test).
func rawPost(t *testing.T, sock, route, body string) int {
	t.Helper()
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post("http://rosorin"+route, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post %s: %v", route, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// rawStream sends lines as one chunked body, as `curl -T -` does, and returns the status and the result.
func rawStream(t *testing.T, sock, route string, lines []string) (int, api.StreamResult) {
	t.Helper()
	code, body, err := testkit.ChunkedPost(sock, route, lines)
	if err != nil {
		t.Fatal(err)
	}
	var res api.StreamResult
	_ = json.Unmarshal(body, &res)
	return code, res
}

// rawBytes writes raw to a fresh connection and reads whatever comes back until the server closes it.
func rawBytes(t *testing.T, sock string, raw []byte) {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	c.Write(raw)
	if uc, ok := c.(*net.UnixConn); ok {
		uc.CloseWrite()
	}
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}
