package stacktest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExitEndsTheWait: a service that exits at start fails StartService at once with its log, not after the
// readiness timeout.
func TestExitEndsTheWait(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fake-base")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"no board at $3\"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := StartService(Options{Bin: bin, Device: "/dev/nothing", ReadyTimeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "no board at /dev/nothing") {
		t.Fatalf("StartService = %v, want the exit", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("StartService took %v: the exit did not end the wait", d)
	}
}

// TestReadyCheckAndInterrupt: a service judged ready by its own output (ReadyCheck, as a status file would
// be), then interrupted: its stop path runs and its exit code comes back; Close after that is harmless.
func TestReadyCheckAndInterrupt(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fake-base")
	script := "#!/bin/sh\ntrap 'echo stopping; exit 7' INT\necho up\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := StartService(Options{Bin: bin, Device: "/dev/nothing", ReadyCheck: func(s *Service) error {
		if !strings.Contains(s.Log.String(), "up") {
			return errors.New("not up")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Exited() {
		t.Fatal("exited right after the start")
	}
	if code, ok := s.WaitExit(50 * time.Millisecond); ok {
		t.Fatalf("WaitExit ended the process (code %d): it must not signal", code)
	}
	code, ok := s.Interrupt(5 * time.Second)
	if !ok || code != 7 || !strings.Contains(s.Log.String(), "stopping") {
		t.Fatalf("Interrupt = %d, %v; log %q; want the trap's exit 7", code, ok, s.Log.String())
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Fatalf("the service's own directory is gone before Close: %v", err)
	}
	s.Close()
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Fatalf("Close left the directory it made: %v", err)
	}
}
