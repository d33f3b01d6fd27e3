package service

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// TestBridgeLogPipe: the supervisor's records reach a child through its fd 3 as JSON lines, the ones made
// before the child started first; a child that reads nothing never slows the logger (drops, counted).
func TestBridgeLogPipe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log, feed := teeToBridge(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)))
	log.Warn("before the bridge", "n", 1)
	log.Debug("not for the bridge")
	cmd := exec.Command("sh", "-c", `test "$`+SupervisorLogEnv+`" = 3 && exec head -n 2 <&3`)
	var out bytes.Buffer
	cmd.Stdout = &out
	attach := feed.prepare(cmd)
	err := cmd.Start()
	attach(err == nil)
	if err != nil {
		t.Fatal(err)
	}
	log.Error("E-STOP latched", "reason", "x")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("child: %v (%s)", err, out.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child got no two records: %q", out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var a, b api.LogRecord
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &a) != nil || json.Unmarshal([]byte(lines[1]), &b) != nil {
		t.Fatalf("child read %q", out.String())
	}
	if a.Msg != "before the bridge n=1 proc=supervisor" || a.Level != slog.LevelWarn || b.Msg != "E-STOP latched reason=x proc=supervisor" || b.Level != slog.LevelError {
		t.Fatalf("records %+v %+v", a, b)
	}
	// The child is gone (head exited): the writer notices, and logging never waits.
	t0 := time.Now()
	for range 5000 {
		log.Info("line", "pad", strings.Repeat("x", 300))
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("5000 lines took %v", d)
	}
	if feed.dropped.Load() == 0 {
		t.Fatal("no drops counted with nobody reading")
	}
}
