package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// TestRunAndSend runs the rosorin-sim process code in the test: Run prints the devices, Send drives a
// fault and a query through the control socket, and cancelling Run's context closes the sim (links and
// socket gone) and prints its counters. rosorin-sim's TestRunCommand checks the same over SIGTERM.
func TestRunAndSend(t *testing.T) {
	dir := t.TempDir()
	var out testkit.LockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Config{Dir: dir, Seed: 5, Faults: []string{"pad"}}, &out) }()
	defer func() {
		cancel()
		<-done
	}()
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if !strings.Contains(out.String(), "Ctrl-C") {
			return errors.New("no start-up lines yet: " + out.String())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{filepath.Join(dir, BoardLinkName) + " -> /dev/", "(1000000 baud)", "(230400 baud)", "control: " + filepath.Join(dir, ControlName), "world stand, seed 5"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Run printed %q, want it to contain %q", out.String(), want)
		}
	}
	sock, err := SocketPath(dir, "")
	if err != nil || sock != filepath.Join(dir, ControlName) {
		t.Fatalf("SocketPath(dir) = %q, %v", sock, err)
	}
	if s, err := SocketPath("", "/x/y.sock"); err != nil || s != "/x/y.sock" {
		t.Errorf("SocketPath(socket) = %q, %v", s, err)
	}
	if _, err := SocketPath("", ""); err == nil || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("SocketPath with neither: %v", err)
	}
	var sent bytes.Buffer
	if err := Send(&sent, sock, "hang=on"); err != nil || sent.String() != "ok: hang=on\n" {
		t.Errorf("Send(hang=on): %q, %v", sent.String(), err)
	}
	sent.Reset()
	if err := Send(&sent, sock, "truth"); err != nil {
		t.Fatal(err)
	}
	var tr Truth
	if err := json.Unmarshal(sent.Bytes(), &tr); err != nil || !strings.Contains(sent.String(), "\n  ") {
		t.Fatalf("truth answer %q (not indented JSON?): %v", sent.String(), err)
	}
	if f := strings.Join(tr.Faults, ","); !strings.Contains(f, "hang") || !strings.Contains(f, "pad") {
		t.Errorf("truth faults %q, want hang and pad", f)
	}
	if err := Send(&sent, sock, "explode"); err == nil || !strings.Contains(err.Error(), "unknown fault") {
		t.Errorf("Send(explode): %v", err)
	}

	cancel()
	select {
	case err := <-done:
		done <- err // for the deferred wait
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(testkit.Bound(5 * time.Second)):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if !strings.Contains(out.String(), "stopped: IMU frames") {
		t.Errorf("no counters after the stop: %q", out.String())
	}
	for _, p := range []string{filepath.Join(dir, BoardLinkName), filepath.Join(dir, ControlName)} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s left after Run returned: %v", p, err)
		}
	}
}
