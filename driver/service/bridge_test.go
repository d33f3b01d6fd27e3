package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// A bridge that cannot start is logged as failed at ERROR once, with its last words, and retried with
// back-off (not in a tight loop) while the service runs on; once it stays up, the log says it runs again.
func TestBridgeFailsOnceThenBacksOff(t *testing.T) {
	defer func(r, m, h time.Duration) { bridgeRetry, bridgeMaxRetry, bridgeHealthy = r, m, h }(bridgeRetry, bridgeMaxRetry, bridgeHealthy)
	bridgeRetry, bridgeMaxRetry, bridgeHealthy = 50*time.Millisecond, 200*time.Millisecond, 300*time.Millisecond
	dir := t.TempDir()
	bridge := filepath.Join(dir, BridgeName)
	script := "#!/bin/sh\necho run >> " + dir + "/runs\n[ -e " + dir + "/ok ] && exec sleep 30\n" +
		"echo \"$0: error while loading shared libraries: libddsc.so.0: cannot open shared object file\" >&2\nexit 127\n"
	if err := os.WriteFile(bridge, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runs := func() int { b, _ := os.ReadFile(filepath.Join(dir, "runs")); return strings.Count(string(b), "run") }
	var buf testkit.LockedBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait, _ := startBridge(ctx, Options{Socket: filepath.Join(dir, "s.sock"), ROS2Bridge: bridge}, log, nil)
	time.Sleep(1200 * time.Millisecond)
	n := runs()
	// Back-off 50, 100, 200, 200 ... ms: about 7 starts in 1.2 s; a tight loop would start hundreds.
	if n < 3 || n > 12 {
		t.Errorf("%d starts in 1.2 s, want 3..12 (back-off 50 ms doubling to 200 ms)", n)
	}
	text := buf.String()
	if c := strings.Count(text, "level=ERROR"); c != 1 {
		t.Errorf("%d ERROR lines, want 1:\n%s", c, text)
	}
	if !strings.Contains(text, "error while loading shared libraries") || !strings.Contains(text, "exit status 127") {
		t.Errorf("the failure does not carry the bridge's last words and status:\n%s", text)
	}
	if strings.Count(text, "failed again") < 2 {
		t.Errorf("later failures not logged at DEBUG:\n%s", text)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := testkit.Eventually(3*time.Second, func() error {
		if !strings.Contains(buf.String(), "ROS 2 bridge running again") {
			return os.ErrNotExist
		}
		return nil
	}); err != nil {
		t.Fatalf("no \"running again\" after the bridge stayed up:\n%s", buf.String())
	}
	cancel()
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the bridge loop did not end with its context")
	}
}

func TestFindBridge(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := FindBridge(""); err == nil || !strings.Contains(err.Error(), "./cmd/rosorin-ros2") {
		t.Errorf("none anywhere: %v, want the build hint", err)
	}
	p := filepath.Join(dir, BridgeName)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindBridge(p); err == nil || !strings.Contains(err.Error(), "not executable") {
		t.Errorf("not executable: %v", err)
	}
	os.Chmod(p, 0o755)
	for _, named := range []string{"", p, BridgeName} {
		if got, err := FindBridge(named); err != nil || got != p {
			t.Errorf("FindBridge(%q) = %q, %v; want %s", named, got, err, p)
		}
	}
	if _, err := FindBridge(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("named, missing: %v", err)
	}
}

// TestBridgeUserAndStatus: with --ros2-user the bridge child runs as that user with its groups (here nobody,
// uid 65534), not as the service; without it (the control) as the service's own uid. The status the
// supervisor publishes follows it: running with its pid and user, then DOWN with the failure's words once it
// keeps failing.
func TestBridgeUserAndStatus(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root: the service switches the bridge to uid 65534")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody on this machine:", err)
	}
	defer func(r, m, h time.Duration) { bridgeRetry, bridgeMaxRetry, bridgeHealthy = r, m, h }(bridgeRetry, bridgeMaxRetry, bridgeHealthy)
	bridgeRetry, bridgeMaxRetry, bridgeHealthy = 50*time.Millisecond, 100*time.Millisecond, 200*time.Millisecond
	for _, c := range []struct{ name, user, wantUID string }{
		{"--ros2-user nobody", "nobody", nobody.Uid},
		{"control: the service's own user", "", strconv.Itoa(os.Getuid())},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A folder the bridge's user can reach (t.TempDir's parent is 0700).
			dir, err := os.MkdirTemp("", "bridgeuser")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			bridge := filepath.Join(dir, BridgeName)
			script := "#!/bin/sh\nid -u > " + dir + "/uid\n[ -e " + dir + "/fail ] && { echo 'no libddsc' >&2; exit 127; }\nexec sleep 30\n"
			if err := os.WriteFile(bridge, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			wait, status := startBridge(ctx, Options{Socket: filepath.Join(dir, "s.sock"), ROS2Bridge: bridge, ROS2User: c.user}, log, nil)
			defer wait()
			defer cancel()
			if err := testkit.Eventually(3*time.Second, func() error {
				if b := status(); !b.Running || !b.Healthy {
					return fmt.Errorf("status %+v", b)
				}
				return nil
			}); err != nil {
				t.Fatalf("bridge not reported running: %v", err)
			}
			b := status()
			uid, _ := os.ReadFile(filepath.Join(dir, "uid"))
			if got := strings.TrimSpace(string(uid)); got != c.wantUID {
				t.Errorf("bridge ran as uid %q, want %s", got, c.wantUID)
			}
			if b.PID <= 0 || b.User != c.user || b.Problem() != "" {
				t.Errorf("running status %+v (problem %q)", b, b.Problem())
			}
			if st, err := procStatusUID(b.PID); err == nil && st != c.wantUID {
				t.Errorf("/proc/%d says uid %s", b.PID, st)
			}
			// Now it keeps failing: the status says DOWN with its last words.
			os.WriteFile(filepath.Join(dir, "fail"), nil, 0o644)
			syscall.Kill(b.PID, syscall.SIGKILL)
			if err := testkit.Eventually(3*time.Second, func() error {
				if p := status().Problem(); !strings.Contains(p, "DOWN") || !strings.Contains(p, "no libddsc") {
					return fmt.Errorf("problem %q", p)
				}
				return nil
			}); err != nil {
				t.Errorf("a failing bridge is not reported down: %v (status %+v)", err, status())
			}
		})
	}
}

// procStatusUID is the real uid of pid from /proc/PID/status.
func procStatusUID(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
			return f[1], nil
		}
	}
	return "", errors.New("no Uid line")
}
