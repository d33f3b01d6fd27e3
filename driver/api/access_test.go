package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRolesOf(t *testing.T) {
	a := &Access{OwnerUID: 1000, Drive: []string{"4242"}, Safety: []string{"4343", "no-such-group-rosorin"}}
	if err := a.Resolve(); err != nil {
		t.Fatal(err)
	}
	if u := a.Unknown(); len(u) != 1 || u[0] != "no-such-group-rosorin" {
		t.Errorf("unknown groups %v", u)
	}
	for _, c := range []struct {
		name   string
		uid    int
		groups []int
		known  bool
		want   Role
	}{
		{"owner", 1000, []int{1000}, true, AllRoles},
		{"root", 0, []int{0}, true, AllRoles},
		{"other user", 1001, []int{1001}, true, RoleObserve},
		{"drive group", 1001, []int{1001, 4242}, true, RoleObserve | RoleDrive},
		{"safety group", 1001, []int{4343}, true, AllRoles},
		{"no credentials", 0, nil, false, 0},
	} {
		if got := a.RolesOf(c.uid, c.groups, c.known); got != c.want {
			t.Errorf("%s: roles %v, want %v", c.name, got, c.want)
		}
	}
	o := &Access{OwnerUID: 1000, Observe: []string{"4141"}}
	if err := o.Resolve(); err != nil {
		t.Fatal(err)
	}
	if got := o.RolesOf(1001, []int{1001}, true); got != 0 {
		t.Errorf("observe list set, not a member: %v, want none", got)
	}
	if got := o.RolesOf(1001, []int{4141}, true); got != RoleObserve {
		t.Errorf("observe member: %v", got)
	}
	if err := (&Access{Drive: []string{"bad name"}}).Resolve(); err == nil {
		t.Error("a group name with a space resolved")
	}
	if err := (&Access{Drive: []string{"-3"}}).Resolve(); err == nil {
		t.Error("a negative gid resolved")
	}
	if got := OpenAccess().RolesOf(5, nil, false); got != AllRoles {
		t.Errorf("open access: %v", got)
	}
}

// roleHandler is fakeHandler with the contact and parameter abilities, recording what reached it.
type roleHandler struct {
	fakeHandler
	contacts []ContactRequest
	sets     []string
	acks     int
}

// StopsAck records the acknowledgement of the stop monitor's ERROR (issue 35).
func (h *roleHandler) StopsAck(p Peer) Reply {
	h.mu.Lock()
	h.acks++
	h.mu.Unlock()
	return Reply{Success: true, Message: "acknowledged"}
}

func (h *roleHandler) ContactMode(p Peer, q ContactRequest) Reply {
	h.mu.Lock()
	h.contacts = append(h.contacts, q)
	h.mu.Unlock()
	return Reply{Success: true, Message: "contact mode " + q.Mode}
}

func (h *roleHandler) Params() ([]ParamInfo, error) {
	return []ParamInfo{{Name: "max_linear", Type: "double", Value: 0.3, Start: 0.35, Limit: true},
		{Name: "scan_timeout", Type: "double", Value: 0.5, Start: 0.5, Limit: true}}, nil
}

func (h *roleHandler) SetParams(p Peer, body []byte) SetParamsReply {
	h.mu.Lock()
	h.sets = append(h.sets, string(body))
	h.mu.Unlock()
	return SetParamsReply{Success: true, Message: "set"}
}

// effects counts what reached the handler: anything a refused request changed shows here.
func (h *roleHandler) effects() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strconv.Itoa(len(h.cmds)) + " cmds, " + strconv.Itoa(len(h.enables)) + " enables, " + strconv.Itoa(h.resets) +
		" resets, " + strconv.Itoa(len(h.estops)) + " estops, " + strconv.Itoa(len(h.contacts)) + " contact modes, " +
		strconv.Itoa(len(h.sets)) + " sets, " + strconv.Itoa(h.acks) + " stop monitor acks"
}

// TestRolesRealUIDs: the roles of the control socket against clients that are real processes under other
// uids (65534) and groups, as the kernel reports them (SO_PEERCRED, SO_PEERGROUPS). Observe-only cannot
// enable or drive, drive cannot reset an e-stop or switch the contact reflex to log or loosen a limit, anyone
// can e-stop; a refusal is 403 naming the role and changes nothing. Control: the same requests as root all
// pass, so a 403 is the policy, not a client that could not talk.
func TestRolesRealUIDs(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the clients run as uid 65534 via SysProcAttr.Credential")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The clients need to reach the binary and the socket: a world-searchable folder, a 0666 socket (the
	// service's 0660 and group are the connect check; the roles are what is tested here).
	dir := shortDir(t)
	bin := filepath.Join(dir, "client.test")
	if b, err := os.ReadFile(exe); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &roleHandler{}
	path := filepath.Join(dir, "base.sock")
	a := &Access{OwnerUID: 1000, Drive: []string{"4242"}, Safety: []string{"4343"}}
	s, err := Listen(path, h, slog.New(slog.NewTextHandler(io.Discard, nil)), WithAccess(a))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	// client starts one client process under cred (RunAsClient); its do makes one request and returns the
	// answer's status and body.
	type client struct {
		do    func(method, route, body string) (int, string)
		close func()
	}
	start := func(cred *syscall.Credential) client {
		t.Helper()
		c := exec.Command(bin)
		c.Env = []string{AsClientEnv + "=" + path}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		c.Stderr = os.Stderr
		in, err := c.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		outp, err := c.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatalf("client %+v: %v", cred, err)
		}
		closed := false
		t.Cleanup(func() { // a test that stopped half way: no client is left behind
			if !closed {
				c.Process.Kill()
				c.Wait()
			}
		})
		out := bufio.NewScanner(outp)
		do := func(method, route, body string) (int, string) {
			t.Helper()
			if _, err := fmt.Fprintf(in, "%s\t%s\t%s\n", method, route, body); err != nil {
				t.Fatalf("client %+v %s %s: %v", cred, method, route, err)
			}
			if !out.Scan() {
				t.Fatalf("client %+v %s %s: no answer (%v)", cred, method, route, out.Err())
			}
			f := strings.SplitN(out.Text(), " ", 3)
			if len(f) < 2 || f[0] != "STATUS" {
				t.Fatalf("client %+v %s %s: %q", cred, method, route, out.Text())
			}
			code, _ := strconv.Atoi(f[1])
			msg := ""
			if len(f) == 3 {
				msg = f[2]
			}
			return code, msg
		}
		return client{do: do, close: func() {
			closed = true
			in.Close()
			if err := c.Wait(); err != nil {
				t.Errorf("client %+v: %v", cred, err)
			}
		}}
	}
	nobody := func(groups ...uint32) *syscall.Credential {
		return &syscall.Credential{Uid: 65534, Gid: 65534, Groups: groups}
	}
	type req struct{ name, method, route, body string }
	reqs := []req{
		{"state", "GET", "/v1/state", ""},
		{"drive", "POST", "/v1/cmd_vel", `{"vx":0.1,"vy":0,"wz":0}`},
		{"enable", "POST", "/v1/enable", `{"data":true}`},
		{"disable", "POST", "/v1/enable", `{"data":false}`},
		{"tighten", "POST", "/v1/config", `{"max_linear":0.2}`},
		{"contact act", "POST", "/v1/contact", `{"mode":"act","for_s":0}`},
		{"loosen", "POST", "/v1/config", `{"max_linear":0.35}`},
		{"scan gate off", "POST", "/v1/config", `{"scan_timeout":0}`},
		{"contact log", "POST", "/v1/contact", `{"mode":"log","for_s":60}`},
		{"contact configured", "POST", "/v1/contact", `{"mode":"","for_s":0}`},
		{"reset", "POST", "/v1/reset", ""},
		{"stops ack", "POST", "/v1/stops/ack", ""},
		{"estop", "POST", "/v1/estop", `{"reason":"role test"}`},
	}
	// want: the requests each client may make (by name); every other one must be refused with 403.
	observe := []string{"state", "estop"}
	drive := append([]string{"drive", "enable", "disable", "tighten", "contact act"}, observe...)
	all := []string{}
	for _, r := range reqs {
		all = append(all, r.name)
	}
	for _, c := range []struct {
		who  string
		cred *syscall.Credential
		may  []string
		need map[string]string // refused request -> the role its refusal must name
	}{
		{"uid 65534, no role group", nobody(), observe, map[string]string{"drive": "drive", "enable": "drive", "reset": "safety", "contact log": "drive", "stops ack": "safety"}},
		{"uid 65534 in the drive group", nobody(4242), drive, map[string]string{"reset": "safety", "contact log": "safety", "loosen": "safety", "scan gate off": "safety", "stops ack": "safety"}},
		{"uid 65534 in the safety group", nobody(4343), all, nil},
		{"root (control)", &syscall.Credential{Uid: 0, Gid: 0}, all, nil},
	} {
		cl := start(c.cred)
		for _, r := range reqs {
			before := h.effects()
			code, msg := cl.do(r.method, r.route, r.body)
			allowed := false
			for _, m := range c.may {
				allowed = allowed || m == r.name
			}
			switch {
			case allowed && code != 200:
				t.Errorf("%s: %s answered %d (%s), want 200", c.who, r.name, code, msg)
			case !allowed && code != 403:
				t.Errorf("%s: %s answered %d (%s), want 403", c.who, r.name, code, msg)
			case !allowed && h.effects() != before:
				t.Errorf("%s: refused %s changed something: %s -> %s", c.who, r.name, before, h.effects())
			case !allowed && !strings.Contains(msg, "uid 65534"):
				t.Errorf("%s: refusal of %s does not name the caller: %s", c.who, r.name, msg)
			}
			if role, ok := c.need[r.name]; ok && !strings.Contains(msg, "the "+role+" role") {
				t.Errorf("%s: refusal of %s does not name the %s role: %s", c.who, r.name, role, msg)
			}
		}
		cl.close()
	}
	if st := s.Stats(); st.RefusedRoles == 0 {
		t.Error("no refusal counted")
	}
	t.Logf("after all clients: %s; %d refusals counted", h.effects(), s.Stats().RefusedRoles)
}

// failingEStop is a driver whose control loop does not answer: the e-stop is not latched.
type failingEStop struct{ fakeHandler }

func (h *failingEStop) EStop(p Peer, reason string) Reply {
	h.fakeHandler.EStop(p, reason)
	return Reply{Message: "e-stop NOT latched: driver control loop not answering"}
}

// TestEStopNotLatchedIsNot200: an e-stop the driver did not latch is answered 503, never 200, and the client
// returns an error, so no caller takes it for a stop.
func TestEStopNotLatchedIsNot200(t *testing.T) {
	_, c := listenFor(t, &failingEStop{})
	if code, msg := post(t, c, "/v1/estop", `{"reason":"x"}`); code != http.StatusServiceUnavailable || !strings.Contains(msg, "NOT latched") {
		t.Errorf("failed e-stop answered %d %s, want 503", code, msg)
	}
	if _, err := c.EStop(context.Background(), "y"); err == nil {
		t.Error("Client.EStop returned no error for an e-stop that was not latched")
	}
	// Control: a driver that latches answers 200.
	_, _, c2 := newTestServer(t)
	if code, msg := post(t, c2, "/v1/estop", `{"reason":"x"}`); code != http.StatusOK {
		t.Errorf("latched e-stop answered %d %s", code, msg)
	}
}

// rawRequest opens a connection and sends a request whose body is declared but not sent: it holds a slot
// until the server's body timeout. The connection is closed at the end of the test.
func rawRequest(t *testing.T, path, route string) net.Conn {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: rosorin\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", route)
	return conn
}

// TestSafetyRequestsBounded: e-stop and enable requests have a cap of their own. With MaxSafetyActive
// enables held open by clients that never send their bodies, another enable is refused (503) and an e-stop
// still latches at once, unread; a slow e-stop body latches within SafetyBodyTimeout.
func TestSafetyRequestsBounded(t *testing.T) {
	s, h, c := newTestServer(t)
	var held []net.Conn
	for range MaxSafetyActive {
		held = append(held, rawRequest(t, s.Path(), "/v1/enable"))
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.safety.Load() < MaxSafetyActive {
		if time.Now().After(deadline) {
			t.Fatalf("only %d safety requests open", s.safety.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t0 := time.Now()
	if code, msg := post(t, c, "/v1/estop", `{"reason":"over the cap"}`); code != http.StatusOK {
		t.Fatalf("e-stop over the cap answered %d %s", code, msg)
	}
	if el := time.Since(t0); el > time.Second {
		t.Errorf("e-stop over the cap took %v", el)
	}
	if e := h.snap().estops; len(e) != 1 || !strings.Contains(e[0], "body not read") {
		t.Errorf("e-stops %q, want one latched unread", e)
	}
	if code, msg := post(t, c, "/v1/enable", `{"data":true}`); code != http.StatusServiceUnavailable {
		t.Errorf("enable over the cap answered %d %s, want 503", code, msg)
	}
	if n := len(h.snap().enables); n != 0 {
		t.Errorf("%d enables reached the driver", n)
	}
	// A slow e-stop (its body never comes) still latches, after the body timeout.
	for _, c := range held {
		c.Close()
	}
	for s.safety.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d safety requests still open after their clients left", s.safety.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	t1 := time.Now()
	slow := rawRequest(t, s.Path(), "/v1/estop")
	slow.SetReadDeadline(time.Now().Add(SafetyBodyTimeout + 3*time.Second))
	b := make([]byte, 512)
	n, _ := slow.Read(b)
	if !strings.Contains(string(b[:n]), "200 OK") {
		t.Errorf("slow e-stop answered %q", b[:n])
	}
	if e := h.snap().estops; len(e) != 2 || !strings.Contains(e[1], "unreadable") {
		t.Errorf("e-stops %q, want the slow one latched as unreadable", e)
	}
	t.Logf("slow e-stop latched after %v (SafetyBodyTimeout %v)", time.Since(t1).Round(time.Millisecond), SafetyBodyTimeout)
}
