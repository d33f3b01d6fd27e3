package stacktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

func TestConditions(t *testing.T) {
	fresh, stale := 0.1, 0.5
	for _, tc := range []struct {
		name         string
		st           api.State
		notPID       int
		up, scanning bool
	}{
		{"no driver", api.State{}, 0, false, false},
		{"driver, no scans", api.State{PIDs: api.PIDs{Driver: 7}}, 0, true, false},
		{"driver, fresh scans", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh}, 0, true, true},
		{"driver, stale scans", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &stale}, 0, true, false},
		{"board silent", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh, BoardSilent: true}, 0, false, false},
		{"the old driver", api.State{PIDs: api.PIDs{Driver: 7}, ScanAgeS: &fresh}, 7, false, false},
		{"a new driver", api.State{PIDs: api.PIDs{Driver: 8}, ScanAgeS: &fresh}, 7, true, true},
	} {
		if err := DriverUp(tc.notPID)(tc.st); (err == nil) != tc.up {
			t.Errorf("%s: DriverUp = %v, want ready %v", tc.name, err, tc.up)
		}
		if err := Scanning(tc.notPID)(tc.st); (err == nil) != tc.scanning {
			t.Errorf("%s: Scanning = %v, want ready %v", tc.name, err, tc.scanning)
		}
	}
}

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
