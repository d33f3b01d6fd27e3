package driver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// The test binary doubles as a second process for the two-publisher rule: with ROSORIN_TEST_HELPER set it
// acts as a client and exits.
func TestMain(m *testing.M) {
	if mode := os.Getenv("ROSORIN_TEST_HELPER"); mode != "" {
		os.Exit(helperMain(mode, os.Getenv("ROSORIN_TEST_SOCKET")))
	}
	release := testkit.RealTimeAlone()
	code := leakChecked(m)
	release()
	os.Exit(code)
}

// leakChecked runs the tests, then fails the binary if any goroutine outlived them (goleak retries while
// goroutines are still ending): every Run, stand and harness must stop everything it started.
func leakChecked(m *testing.M) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goroutines left after the tests:", err)
		return 1
	}
	return 0
}

func helperMain(mode, sock string) int {
	cl := api.NewClient(sock)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch mode {
	case "oneshot":
		if _, err := cl.CmdVel(ctx, api.Twist{VX: 0.1}); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	case "scans":
		return scanHelper(ctx, cl)
	case "stream":
		// ROSORIN_TEST_INPUT names the input ("" is cmd_vel); ROSORIN_TEST_VX the speed (default 0.1).
		s, err := cl.StreamCmdVelOn(ctx, os.Getenv("ROSORIN_TEST_INPUT"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		vx := 0.1
		if v := os.Getenv("ROSORIN_TEST_VX"); v != "" {
			vx, _ = strconv.ParseFloat(v, 64)
		}
		for ctx.Err() == nil {
			if s.Send(api.Twist{VX: vx}) != nil {
				return 0
			}
			time.Sleep(50 * time.Millisecond)
		}
		return 0
	}
	return 2
}

// scanHelper streams scans at 20 Hz under the process name in ROSORIN_TEST_COMM (if set) until the driver
// closes the stream or ctx ends. Exit status: 3 refused with 403 (the reason on stderr), 0 ended by ctx,
// 1 anything else.
func scanHelper(ctx context.Context, cl *api.Client) int {
	if name := os.Getenv("ROSORIN_TEST_COMM"); name != "" {
		if err := setComm(name); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
	}
	ss, err := cl.StreamScans(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	for ctx.Err() == nil {
		sc := api.Scan{Stamp: time.Now(), FrameID: "laser", ScanTime: 0.1, AngleIncrement: 0.1, RangeMin: 0.12,
			RangeMax: 8, Ranges: api.Ranges{1.5, 1.5, 1.5}}
		if ss.Send(sc) != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err = ss.Close()
	var he *api.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusForbidden {
		fmt.Fprintln(os.Stderr, "helper: scans refused:", he.Message)
		return 3
	}
	if ctx.Err() != nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "helper: scan stream ended:", err)
	return 1
}

// setComm names this process as ps shows it (the thread-group leader's comm, which SO_PEERCRED's pid finds).
func setComm(name string) error {
	if err := os.WriteFile("/proc/self/comm", []byte(name), 0); err != nil {
		return fmt.Errorf("set process name: %w", err)
	}
	return nil
}

// helperEnv starts a helper with extra environment.
func helperCmdEnv(t testing.TB, sock, mode string, env ...string) *exec.Cmd {
	c := helperCmd(t, sock, mode)
	c.Env = append(c.Env, env...)
	return c
}

func helperCmd(t testing.TB, sock, mode string) *exec.Cmd {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), "ROSORIN_TEST_HELPER="+mode, "ROSORIN_TEST_SOCKET="+sock)
	c.Stderr = os.Stderr
	return c
}

// runHelper runs a helper process to completion.
func runHelper(t testing.TB, sock, mode string) {
	t.Helper()
	if err := helperCmd(t, sock, mode).Run(); err != nil {
		t.Fatalf("helper %s: %v", mode, err)
	}
}

// startHelper starts a helper process; the caller kills it.
func startHelper(t testing.TB, sock, mode string) *exec.Cmd {
	t.Helper()
	c := helperCmd(t, sock, mode)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

func unixHTTP(sock string) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}
}

// rawPost sends body as is (no client-side JSON encoding) and returns the status.
func rawPost(sock, route, ctype, body string) (int, error) {
	hc := unixHTTP(sock)
	defer hc.CloseIdleConnections()
	resp, err := hc.Post("http://rosorin"+route, ctype, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// rawStream sends lines as one chunked body, as `curl -T -` does.
func rawStream(sock, route string, lines []string) (int, error) {
	code, _, err := testkit.ChunkedPost(sock, route, lines)
	return code, err
}

// makeStaleSocket leaves a socket file nobody listens on, as a crashed driver does.
func makeStaleSocket(t testing.TB, path string) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	syscall.Close(fd)
	if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("stale socket not made: %v", err)
	}
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
